package nats_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/goleak"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/connectors/nats/natstest"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/nats-io/nats-server/v2/server.(*Server).startGoRoutine.func1"))
}

// seen counts, by message id, the deliveries the test-seen block had, and fails a message's
// first delivery when its body asks for it, as an upstream would that is down for a moment.
var seen = struct {
	sync.Mutex
	n  map[string]int
	at map[string][]time.Time
}{n: map[string]int{}, at: map[string][]time.Time{}}

type seenBlock struct{}

func (seenBlock) Process(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
	body, err := m.Body()
	if err != nil {
		return nil, err
	}
	obj, ok := body.(map[string]any)
	if !ok {
		return nil, runtime.Errorf(runtime.KindInvalid, "want an object")
	}
	id := fmt.Sprint(obj["id"])
	seen.Lock()
	seen.n[id]++
	seen.at[id] = append(seen.at[id], time.Now())
	n := seen.n[id]
	seen.Unlock()
	if obj["flaky"] == true && n == 1 {
		return nil, runtime.Errorf(runtime.KindUnavailable, "down for a moment")
	}
	return m, nil
}

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-seen", Summary: "test: counts deliveries by body.id",
		Build: runtime.BlockFunc(func(*runtime.Build, *struct{}) (runtime.Block, error) { return seenBlock{}, nil })})
}

// resetSeen starts the counts afresh, for a test run again (go test -count).
func resetSeen() {
	seen.Lock()
	defer seen.Unlock()
	seen.n, seen.at = map[string]int{}, map[string][]time.Time{}
}

func seenCount(id string) int {
	seen.Lock()
	defer seen.Unlock()
	return seen.n[id]
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func TestACoreSubjectIsSharedByTheReplicasQueueGroup(t *testing.T) {
	resetSeen()
	ns := natstest.Start(t, natstest.Options{})
	cfg := `service: { name: shop }
connectors: [ { name: bus, type: nats, settings: { url: '` + ns.ClientURL() + `' } } ]
flows:
  - name: orders
    source: { connector: bus, settings: { subject: 'core.orders' } }
    process:
      - type: test-seen
      - { type: nats-publish, settings: { connector: bus, subject: 'done.{{ body.id }}', body: 'headers["Nats-Subject"]' } }
`
	runtimetest.StartConfig(t, cfg, nil)
	runtimetest.StartConfig(t, cfg, nil) // a second replica, in the same queue group
	nc := natstest.Connect(t, ns)
	done, err := nc.SubscribeSync("done.*")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := nc.Publish("core.orders", fmt.Appendf(nil, `{"id":"c%d"}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]bool{}
	for len(got) < 100 {
		m, err := done.NextMsg(10 * time.Second)
		if err != nil {
			t.Fatalf("%d of 100 answered: %v", len(got), err)
		}
		if string(m.Data) != "core.orders" {
			t.Fatalf("the flow saw Nats-Subject %q", m.Data)
		}
		got[m.Subject] = true
	}
	time.Sleep(100 * time.Millisecond)
	for i := range 100 {
		if n := seenCount(fmt.Sprintf("c%d", i)); n != 1 {
			t.Fatalf("message c%d ran %d times across the two replicas, want once", i, n)
		}
	}
}

func TestARequestIsAnsweredWithTheFlowsAnswerOrItsError(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	runtimetest.StartConfig(t, `service: { name: greeter }
connectors: [ { name: bus, type: nats, settings: { url: '`+ns.ClientURL()+`' } } ]
flows:
  - name: hello
    source: { connector: bus, settings: { subject: 'greet' } }
    process:
      - type: switch
        cases:
          - when: 'body.name == ""'
            process: [ { type: fail, settings: { kind: invalid, message: 'say who to greet' } } ]
      - { type: set-payload, settings: { value: '{"hello": body.name}' } }
`, nil)
	nc := natstest.Connect(t, ns)
	reply, err := nc.Request("greet", []byte(`{"name":"Ada"}`), 5*time.Second)
	if err != nil || string(reply.Data) != `{"hello":"Ada"}` {
		t.Fatalf("reply %v, %v", reply, err)
	}
	reply, err = nc.Request("greet", []byte(`{"name":""}`), 5*time.Second)
	if err != nil || reply.Header.Get("Nats-Service-Error") != "say who to greet" || reply.Header.Get("Nats-Service-Error-Code") != "invalid" {
		t.Fatalf("an error's reply: %+v, %v", reply, err)
	}
}

// stream makes the ORDERS stream, taking orders.>, on ns.
func stream(t *testing.T, nc *natsgo.Conn) jetstream.JetStream {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateStream(context.Background(), jetstream.StreamConfig{Name: "ORDERS", Subjects: []string{"orders.>"}}); err != nil {
		t.Fatal(err)
	}
	return js
}

func TestAStreamMessageIsAckedRetriedOrGivenUpByItsFlowsOutcome(t *testing.T) {
	resetSeen()
	ns := natstest.Start(t, natstest.Options{})
	nc := natstest.Connect(t, ns)
	js := stream(t, nc)
	log := &runtimetest.Buffer{}
	runtimetest.StartConfig(t, `service: { name: shop }
connectors: [ { name: bus, type: nats, settings: { url: '`+ns.ClientURL()+`' } } ]
flows:
  - name: orders
    source: { connector: bus, settings: { stream: ORDERS, ackWait: 2s, backoff: [300ms] } }
    process: [ { type: test-seen } ]
`, log)
	ctx := context.Background()
	publish := func(body string) {
		if _, err := js.Publish(ctx, "orders.new", []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		publish(fmt.Sprintf(`{"id":"j%d"}`, i))
	}
	publish(`{"id":"flaky","flaky":true}`)
	publish(`"an order is an object"`)
	cons, err := js.Consumer(ctx, "ORDERS", "shop-orders")
	if err != nil {
		t.Fatalf("the durable consumer is named by service and flow: %v", err)
	}
	waitFor(t, "every message settled", func() bool {
		info, err := cons.Info(ctx)
		return err == nil && info.NumAckPending == 0 && info.NumPending == 0 && seenCount("flaky") == 2
	})
	t.Run("each message ran once and was acknowledged", func(t *testing.T) {
		for i := range 20 {
			if n := seenCount(fmt.Sprintf("j%d", i)); n != 1 {
				t.Fatalf("j%d ran %d times", i, n)
			}
		}
	})
	t.Run("a retryable failure is delivered again after the back-off", func(t *testing.T) {
		seen.Lock()
		at := seen.at["flaky"]
		seen.Unlock()
		if len(at) != 2 || at[1].Sub(at[0]) < 250*time.Millisecond {
			t.Fatalf("deliveries at %v: want two, 300ms apart", at)
		}
		log.WaitFor(t, `message failed; it is delivered again`)
	})
	t.Run("invalid input is given up, not delivered again", func(t *testing.T) {
		log.WaitFor(t, `message given up: delivering it again cannot mend it`)
		info, _ := cons.Info(ctx)
		if info.NumRedelivered != 0 {
			t.Fatalf("%d messages wait for redelivery", info.NumRedelivered)
		}
	})
}

func TestABadConnectorIsToldBeforeAnythingStarts(t *testing.T) {
	for _, c := range []struct{ name, settings, source, want string }{
		{"a URL that is not NATS", `{ url: 'http://127.0.0.1:4222' }`, `{ subject: x }`, `is not a NATS URL`},
		{"credentials and a token at once", `{ credentials: /x.creds, token: t }`, `{ subject: x }`, `use one of credentials, user and password, or token`},
		{"a source with neither subject nor stream", `{}`, `{}`, `missing required key "subject"`},
		{"a queue group on a stream", `{}`, `{ stream: S, queue: q }`, `queue and broadcast are for core subjects`},
		{"a consumer name a durable cannot have", `{}`, `{ stream: S, consumer: 'a.b' }`, `a durable name holds no spaces, dots`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := runtimetest.BuildConfig(t, "connectors: [ { name: bus, type: nats, settings: "+c.settings+" } ]\n"+
				"flows: [ { name: f, source: { connector: bus, settings: "+c.source+" }, process: [ { type: log, settings: { message: x } } ] } ]\n", nil)
			var ds config.Diags
			if !errors.As(err, &ds) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

func TestAServerThatCannotBeReachedIsNamedWithoutItsPassword(t *testing.T) {
	port := runtimetest.FreePort(t)
	svc, err := runtimetest.BuildConfig(t, fmt.Sprintf(`connectors: [ { name: bus, type: nats, settings: { url: 'nats://me:s3cret@127.0.0.1:%d', connectTimeout: 1s } } ]
flows: [ { name: f, source: { connector: bus, settings: { subject: x } }, process: [ { type: log, settings: { message: x } } ] } ]
`, port), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = svc.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "cannot connect to NATS at nats://redacted@127.0.0.1:") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("start: %v", err)
	}
}

func TestAStreamThatDoesNotExistIsToldAtStart(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	svc, err := runtimetest.BuildConfig(t, `connectors: [ { name: bus, type: nats, settings: { url: '`+ns.ClientURL()+`' } } ]
flows: [ { name: f, source: { connector: bus, settings: { stream: NOPE } }, process: [ { type: log, settings: { message: x } } ] } ]
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err == nil || !strings.Contains(err.Error(), `stream "NOPE" does not exist on NATS`) {
		t.Fatalf("start: %v", err)
	}
}

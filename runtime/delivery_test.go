package runtime_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// queue is the smallest message-system connector: it delivers what is put on it, acknowledges
// a message once its flow succeeded, redelivers one whose flow failed for the server's fault,
// and gives up one that failed for its own. It is the pattern docs/design.md shows a NATS
// connector following.
type queue struct {
	flow    *runtime.Flow
	acked   []string // bodies, in the order they were acknowledged
	dropped []string // "body: kind"
	tries   int
}

func (q *queue) Attach(_ *runtime.SourceBuild, f *runtime.Flow) error { q.flow = f; return nil }
func (q *queue) Start(context.Context) error                          { return nil }
func (q *queue) Stop(context.Context) error                           { return nil }

// put delivers body until its flow succeeds or fails for good, at most five times.
func (q *queue) put(ctx context.Context, body string) {
	for range 5 {
		q.tries++
		d := &queueDelivery{q: q, body: body}
		_ = q.flow.Deliver(ctx, runtime.NewMessage([]byte(body)), d)
		if !d.redeliver {
			return
		}
	}
}

// queueDelivery settles one delivery of a queued message.
type queueDelivery struct {
	q         *queue
	body      string
	redeliver bool
}

func (d *queueDelivery) Ack(_ context.Context, answer *runtime.Message) error {
	d.q.acked = append(d.q.acked, d.body+" -> "+string(answer.Raw()))
	return nil
}

func (d *queueDelivery) Nack(_ context.Context, err error) error {
	e := runtime.ErrorOf(err)
	if e.Kind.ServerFault() {
		d.redeliver = true
		return nil
	}
	d.q.dropped = append(d.q.dropped, d.body+": "+e.Kind.String())
	return nil
}

var theQueue = &queue{}

// flaky fails each message's first delivery as unavailable, and a message that is not JSON
// as invalid; otherwise it answers "done".
type flaky struct{ seen map[string]bool }

func (f *flaky) Process(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
	if _, err := m.Body(); err != nil {
		return nil, err
	}
	if key := string(m.Raw()); !f.seen[key] {
		f.seen[key] = true
		return nil, runtime.Errorf(runtime.KindUnavailable, "not yet")
	}
	m.SetRaw([]byte("done"))
	return m, nil
}

func init() {
	runtime.RegisterConnector(runtime.ConnectorSpec{Type: "test-queue", Summary: "test",
		Build: runtime.ConnectorFunc(func(*runtime.ConnectorBuild, *struct{}) (runtime.Connector, error) { return theQueue, nil })})
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-flaky", Summary: "test",
		Build: runtime.BlockFunc(func(*runtime.Build, *struct{}) (runtime.Block, error) { return &flaky{seen: map[string]bool{}}, nil })})
}

// queueFlow builds the service of a flow f, named q, taking theQueue's messages through a
// test-flaky block.
func queueFlow(t *testing.T, opts runtime.Options) {
	t.Helper()
	*theQueue = queue{}
	dir := t.TempDir()
	yaml := "service: { name: q }\nconnectors:\n  - { name: q, type: test-queue }\nflows:\n  - name: f\n    source: { connector: q }\n    process: [ { type: test-flaky } ]\n"
	if err := os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runtime.NewService(cfg, opts); err != nil {
		t.Fatal(err)
	}
}

func TestAMessageIsAcknowledgedOnlyOnceItsFlowSucceeded(t *testing.T) {
	queueFlow(t, runtime.Options{})
	ctx := context.Background()
	theQueue.put(ctx, `{"n":1}`)
	theQueue.put(ctx, `not json`)
	if got := strings.Join(theQueue.acked, "|"); got != `{"n":1} -> done` {
		t.Fatalf("acknowledged %q: the first delivery failed as unavailable, the second must be acked", got)
	}
	if got := strings.Join(theQueue.dropped, "|"); got != "not json: invalid" {
		t.Fatalf("dropped %q: a body that is not JSON cannot succeed on redelivery", got)
	}
	if theQueue.tries != 3 {
		t.Fatalf("%d deliveries, want 3 (twice the first message, once the second)", theQueue.tries)
	}
}

func TestErrorOfSaysHowToAnswerAnyError(t *testing.T) {
	cases := []struct {
		name string
		err  error
		kind runtime.ErrorKind
		msg  string
	}{
		{"a kinded error anywhere in the chain is itself", &runtime.BlockError{Type: "t", Err: runtime.Errorf(runtime.KindNotFound, "no such city")}, runtime.KindNotFound, "no such city"},
		{"a cancelled context is a cancelled request", context.Canceled, runtime.KindCancelled, "request cancelled"},
		{"a context past its deadline too", context.DeadlineExceeded, runtime.KindCancelled, "request cancelled"},
		{"anything else is internal, without its details", errors.New("secret path /etc/x"), runtime.KindInternal, "internal error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := runtime.ErrorOf(c.err)
			if e.Kind != c.kind || e.Msg != c.msg {
				t.Fatalf("got %s %q, want %s %q", e.Kind, e.Msg, c.kind, c.msg)
			}
		})
	}
}

// WatchDeliveries shows its watcher each outcome before the delivery is settled: the error of a
// failed run, the answer of one that succeeded. octo test reads an answer's vars this way.
func TestAWatchedDeliveryShowsEachOutcome(t *testing.T) {
	queueFlow(t, runtime.Options{})
	var seen []string
	ctx := runtime.WatchDeliveries(context.Background(), func(answer *runtime.Message, err error) {
		if err != nil {
			seen = append(seen, "error: "+runtime.ErrorOf(err).Kind.String())
			return
		}
		seen = append(seen, "answer: "+string(answer.Raw()))
	})
	theQueue.put(ctx, `{"n":1}`)
	if got := strings.Join(seen, "|"); got != "error: unavailable|answer: done" {
		t.Fatalf("seen %q", got)
	}
}

// nopDelivery settles a delivery by doing nothing.
type nopDelivery struct{}

func (nopDelivery) Ack(context.Context, *runtime.Message) error { return nil }
func (nopDelivery) Nack(context.Context, error) error           { return nil }

// Deliver on a request's context (a few layers, none a watcher, as a connector's request has):
// what the look for a watcher adds to every delivery.
func BenchmarkDeliver(b *testing.B) {
	svc := buildYAML(b, "connectors:\n  - { name: c, type: test-recorded }\nflows:\n  - name: f\n    source: { connector: c }\n    process: [ { type: test-recorded } ]\n")
	flow := svc.Instance("flows.f").(*runtime.Flow)
	type k struct{}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), k{}, 1))
	defer cancel()
	msg := runtime.NewMessage([]byte(`{}`))
	b.ReportAllocs()
	for b.Loop() {
		_ = flow.Deliver(ctx, msg, nopDelivery{})
	}
}

package natspublish_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/connectors/nats/natstest"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// publishing is a service whose flow f runs one nats-publish block with settings.
func publishing(t *testing.T, url, settings string) *runtime.Service {
	t.Helper()
	return runtimetest.StartConfig(t, `connectors: [ { name: bus, type: nats, settings: { url: '`+url+`' } } ]
flows:
  - name: f
    source: { connector: bus, settings: { subject: unused } }
    process: [ { type: nats-publish, settings: `+settings+` } ]
`, nil)
}

func TestPublishingOnCoreNATS(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	nc := natstest.Connect(t, ns)
	sub, err := nc.SubscribeSync("orders.*")
	if err == nil {
		err = nc.Flush() // the server has the subscription before octo publishes
	}
	if err != nil {
		t.Fatal(err)
	}
	svc := publishing(t, ns.ClientURL(), `{ connector: bus, subject: 'orders.{{ body.id }}', headers: { Order-Id: '{{ body.id }}' } }`)
	out, err := runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(`{"id":"42","total":3}`)))
	if err != nil || string(out.Raw()) != `{"id":"42","total":3}` {
		t.Fatalf("the message goes on as it came: %v %s", err, out.Raw())
	}
	m, err := sub.NextMsg(5 * time.Second)
	if err != nil || m.Subject != "orders.42" || m.Header.Get("Order-Id") != "42" || string(m.Data) != `{"id":"42","total":3}` {
		t.Fatalf("published %+v, %v", m, err)
	}
	t.Run("a subject that renders with a wildcard or a space is refused", func(t *testing.T) {
		_, err := runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(`{"id":"*"}`)))
		if e := runtime.ErrorOf(err); e.Kind != runtime.KindInvalid || !strings.Contains(e.Msg, `"orders.*"`) {
			t.Fatalf("got %v", err)
		}
	})
}

func TestPublishingToJetStreamWaitsForTheStream(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	js, err := jetstream.New(natstest.Connect(t, ns))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "EVENTS", Subjects: []string{"events.>"}})
	if err != nil {
		t.Fatal(err)
	}
	svc := publishing(t, ns.ClientURL(), `{ connector: bus, subject: '{{ body.to }}', body: '{"what": body.what}', jetstream: true }`)
	if _, err := runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(`{"to":"events.made","what":"a thing"}`))); err != nil {
		t.Fatal(err)
	}
	m, err := st.GetMsg(ctx, 1)
	if err != nil || m.Subject != "events.made" || string(m.Data) != `{"what":"a thing"}` {
		t.Fatalf("stored %+v, %v", m, err)
	}
	_, err = runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(`{"to":"elsewhere","what":"x"}`)))
	if e := runtime.ErrorOf(err); e.Kind != runtime.KindUnavailable || e.Msg != `no JetStream stream takes subject "elsewhere"` {
		t.Fatalf("a subject no stream takes: %v", err)
	}
}

func TestARequestsReplyBecomesTheBody(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	nc := natstest.Connect(t, ns)
	if _, err := nc.Subscribe("price", func(m *natsgo.Msg) { _ = m.Respond([]byte(`{"price":9.5}`)) }); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil { // the server has the responder before octo asks
		t.Fatal(err)
	}
	svc := publishing(t, ns.ClientURL(), `{ connector: bus, subject: '{{ body.ask }}', request: true, timeout: 2s }`)
	out, err := runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(`{"ask":"price"}`)))
	if err != nil || string(out.Raw()) != `{"price":9.5}` {
		t.Fatalf("got %v %s", err, out.Raw())
	}
	_, err = runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(`{"ask":"nobody.home"}`)))
	if e := runtime.ErrorOf(err); e.Kind != runtime.KindUnavailable || e.Msg != `no one answers requests on "nobody.home"` {
		t.Fatalf("a subject no one answers: %v", err)
	}
}

func TestTheConnectorMustBeANATSConnectorOfTheConfig(t *testing.T) {
	_, err := runtimetest.BuildConfig(t, `connectors: [ { name: bus, type: nats }, { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: f
    source: { connector: api, settings: { path: /x } }
    process: [ { type: nats-publish, settings: { connector: bsu, subject: x } } ]
`, nil)
	var ds config.Diags
	if !errors.As(err, &ds) || !strings.Contains(err.Error(), `unknown nats connector "bsu" (did you mean "bus"?)`) {
		t.Fatalf("got %v", err)
	}
}

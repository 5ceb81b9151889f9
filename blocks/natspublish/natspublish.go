// Package natspublish is the nats-publish block: it publishes a message on a NATS subject through
// a nats connector's connection, on core NATS, to a JetStream stream (waiting for the stream's
// acknowledgement), or as a request whose reply becomes the message's body.
package natspublish

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/octo-run/octo/connectors/nats"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "nats-publish",
		Summary: "publishes on a NATS subject through a nats connector (core, JetStream with its acknowledgement, or a request and its reply)",
		Doc: "Renders the subject and headers (templates) and publishes the message's body, or the body expression's value, " +
			"through the named nats connector's connection. With jetstream it waits for the stream's acknowledgement, so a " +
			"message no stream takes fails the flow; with request the reply becomes the message's body (a reply carrying " +
			"Nats-Service-Error fails the flow as upstream). Otherwise the message goes on as it came.",
		Example:           "type: nats-publish\nsettings:\n  connector: bus\n  subject: 'orders.{{ body.id }}'\n  headers: { Order-Id: '{{ body.id }}' }\n  jetstream: true\n",
		ExampleConnectors: "{ name: bus, type: nats, settings: { url: 'nats://127.0.0.1:4222' } }",
		Build:             runtime.BlockFunc(build),
	})
}

// Settings are the nats-publish block's.
type Settings struct {
	Connector string                      `yaml:"connector" octo:"required" doc:"The nats connector whose connection publishes."`
	Subject   runtime.Template            `yaml:"subject" octo:"required" doc:"The subject, a template: text with {{ expression }} tags (orders.{{ body.id }})."`
	Headers   map[string]runtime.Template `yaml:"headers" doc:"Headers to send, each a template."`
	Body      *runtime.Expr               `yaml:"body" doc:"An expression for what to publish (a string is sent as its text, any other value as JSON); default: the message's body."`
	JetStream bool                        `yaml:"jetstream" doc:"Publish to the JetStream stream that takes the subject, and wait for its acknowledgement."`
	Request   bool                        `yaml:"request" doc:"Send as a request and wait for the reply, which becomes the message's body."`
	Timeout   time.Duration               `yaml:"timeout" default:"5s" min:">0" max:"1h" doc:"How long to wait for the acknowledgement or the reply."`
}

// Block publishes each message.
type Block struct {
	conn    *nats.Connector
	subject *runtime.Template
	headers map[string]*runtime.Template
	body    *runtime.Expr
	set     Settings
}

func build(b *runtime.Build, s *Settings) (runtime.Block, error) {
	c, ok := b.Connector(s.Connector).(*nats.Connector)
	if !ok {
		return nil, b.Errorf(&s.Connector, "%s", config.Unknown("nats connector", s.Connector, b.Connectors()))
	}
	if s.JetStream && s.Request {
		return nil, b.Errorf(&s.Request, "a JetStream publish waits for the stream's acknowledgement, a request for its reply: choose one")
	}
	blk := &Block{conn: c, subject: &s.Subject, body: s.Body, set: *s, headers: map[string]*runtime.Template{}}
	for k := range s.Headers {
		t := s.Headers[k]
		blk.headers[k] = &t
	}
	return blk, nil
}

// Process publishes the message, and with request takes the reply as its body.
func (p *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	subject, err := p.subject.Render(m)
	if err != nil {
		return nil, err
	}
	if subject == "" || strings.ContainsAny(subject, " \t\r\n*>") || strings.HasPrefix(subject, ".") || strings.HasSuffix(subject, ".") || strings.Contains(subject, "..") {
		return nil, runtime.Errorf(runtime.KindInvalid, "the subject rendered as %q: a subject to publish on is dot-separated words, without spaces or wildcards", subject)
	}
	msg := natsgo.NewMsg(subject)
	if msg.Data, err = p.data(m); err != nil {
		return nil, err
	}
	for k, t := range p.headers {
		v, err := t.Render(m)
		if err != nil {
			return nil, err
		}
		msg.Header.Set(k, v)
	}
	nc, js, err := p.conn.Conn()
	if err != nil {
		return nil, runtime.Errorf(runtime.KindUnavailable, "publishing on %q: %v", subject, err)
	}
	ctx, cancel := context.WithTimeout(ctx, p.set.Timeout)
	defer cancel()
	switch {
	case p.set.Request:
		return p.request(ctx, nc, msg, m)
	case p.set.JetStream:
		if _, err := js.PublishMsg(ctx, msg); err != nil {
			return nil, failure(ctx, subject, err)
		}
	default:
		if err := nc.PublishMsg(msg); err != nil {
			return nil, failure(ctx, subject, err)
		}
	}
	return m, nil
}

// request sends msg and makes the reply the body of what goes on.
func (p *Block) request(ctx context.Context, nc *natsgo.Conn, msg *natsgo.Msg, m *runtime.Message) (*runtime.Message, error) {
	reply, err := nc.RequestMsgWithContext(ctx, msg)
	if err != nil {
		return nil, failure(ctx, msg.Subject, err)
	}
	if e := reply.Header.Get("Nats-Service-Error"); e != "" {
		return nil, runtime.Errorf(runtime.KindUpstream, "the service on %q answered an error: %s", msg.Subject, e)
	}
	out := m.Derive(nil)
	out.SetRaw(reply.Data)
	return out, nil
}

// data is what to publish: the body expression's value, or the message's body.
func (p *Block) data(m *runtime.Message) ([]byte, error) {
	if p.body == nil && m.IsRaw() {
		return m.Raw(), nil
	}
	var v any
	var err error
	if p.body != nil {
		v, err = p.body.Eval(m)
	} else {
		v, err = m.Body()
	}
	if err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []byte(v), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, runtime.Errorf(runtime.KindInternal, "encoding the message: %v", err)
	}
	return b, nil
}

// failure says why a publish failed, naming the subject and never the server's credentials.
func failure(ctx context.Context, subject string, err error) error {
	switch {
	case errors.Is(err, natsgo.ErrNoResponders):
		return runtime.Errorf(runtime.KindUnavailable, "no one answers requests on %q", subject)
	case errors.Is(err, jetstream.ErrNoStreamResponse):
		return runtime.Errorf(runtime.KindUnavailable, "no JetStream stream takes subject %q", subject)
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, natsgo.ErrTimeout) || ctx.Err() != nil:
		return runtime.Errorf(runtime.KindTimeout, "publishing on %q: no answer in time", subject)
	}
	return runtime.Errorf(runtime.KindUpstream, "publishing on %q: %v", subject, err)
}

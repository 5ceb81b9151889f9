package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/octo-run/octo/runtime/jsonv"
)

// Attributes are the named values a message carries beside its body, as its transport gave
// them: an HTTP request's headers (names in canonical form, "Content-Type"), a message
// system's headers. A name may have several values. Expressions see them as `headers`, each
// name with its first value; what else a transport knows (an HTTP method, a stdio line's
// event) is in the message's typed view, Message.Transport.
type Attributes map[string][]string

// Get returns the first value of name, or "".
func (a Attributes) Get(name string) string {
	if v := a[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Event is one item of a stream body: written by the http connector as a
// server-sent event and by line-based connectors as one line of Data.
type Event struct {
	ID   string
	Name string
	Data []byte
	// Retry, when positive, asks the client to wait this many milliseconds
	// before reconnecting.
	Retry int
}

// Stream is a body made of events produced over time. Next blocks until the
// next event and returns io.EOF when the stream has ended; it must return
// when ctx is done (the client left or the service is stopping).
type Stream interface {
	Next(ctx context.Context) (Event, error)
}

// Drainer is implemented by streams that owe their reader something, such as
// answers to requests in flight. A connector that stops calls Drain instead
// of cutting the stream, and goes on writing it until it ends or ctx does:
// the stream delivers what it owes (answering with an error what cannot
// finish before ctx ends) and then ends. Drain must not block.
type Drainer interface {
	Drain(ctx context.Context)
}

type bodyKind uint8

const (
	bodyNone bodyKind = iota
	bodyRaw
	bodyValue
	bodyStream
)

// Message flows through the blocks of a flow. Its body is a JSON value, raw
// bytes or a stream; raw bytes are decoded as JSON once, when first asked for.
type Message struct {
	// Attrs are the message's neutral attributes (see Attributes); set by the connector.
	Attrs Attributes
	// Transport is the connector's typed view of the message, set by the connector that
	// received it: the http connector's *httpmsg.Exchange (request and reply), the stdio
	// connector's *stdiomsg.Event. The runtime never looks inside; a block that needs a
	// transport finds its view through that transport's package (httpmsg.From).
	Transport any
	// Vars holds what blocks leave for later ones (e.g. JWT claims).
	Vars map[string]any

	raw      []byte
	value    any
	stream   Stream
	headers  map[string]string
	kind     bodyKind
	decoded  bool
	finished bool
	// lent says Vars is another message's map (Derive): the first SetVar copies it, so
	// branches that run at once (a batch's tool calls) never write one map together.
	lent bool
}

// NewMessage returns a message whose body is the given raw bytes.
func NewMessage(raw []byte) *Message {
	m := &Message{}
	m.SetRaw(raw)
	return m
}

// Body returns the body as a JSON value, decoding raw bytes on first use
// with jsonv.Decode. A body that is not valid JSON, or holds a number the
// number rule refuses, yields an *Error of KindInvalid.
func (m *Message) Body() (any, error) {
	switch m.kind {
	case bodyValue:
		return m.value, nil
	case bodyRaw:
		if !m.decoded {
			if len(m.raw) == 0 {
				m.value, m.decoded = nil, true
				return nil, nil
			}
			v, err := jsonv.Decode(m.raw)
			if err != nil {
				return nil, &Error{Kind: KindInvalid, Msg: "invalid JSON body: " + jsonErrorText(err)}
			}
			m.value, m.decoded = v, true
		}
		return m.value, nil
	case bodyStream:
		return nil, fmt.Errorf("body is a stream, not a value")
	}
	return nil, nil
}

// Text is the body as text: raw bytes as they arrived, a string as it is, any other value as
// its JSON (a tool's or a resource's text made from a branch's final body).
func (m *Message) Text() (string, error) {
	if m.IsRaw() {
		return string(m.Raw()), nil
	}
	v, err := m.Body()
	if err != nil {
		return "", err
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	b, err := jsonv.Append(nil, v, true)
	return string(b), err
}

// Raw returns the raw body bytes, or nil when the body is not raw.
func (m *Message) Raw() []byte {
	if m.kind == bodyRaw {
		return m.raw
	}
	return nil
}

// IsRaw reports whether the body is still the raw bytes it arrived as.
func (m *Message) IsRaw() bool { return m.kind == bodyRaw }

// IsEmpty reports whether the message has no body at all.
func (m *Message) IsEmpty() bool {
	return m.kind == bodyNone || (m.kind == bodyRaw && len(m.raw) == 0)
}

// Stream returns the stream body, or nil.
func (m *Message) Stream() Stream {
	if m.kind == bodyStream {
		return m.stream
	}
	return nil
}

// SetBody replaces the body with a JSON value.
func (m *Message) SetBody(v any) {
	m.kind, m.value, m.raw, m.stream, m.decoded = bodyValue, v, nil, nil, true
}

// SetRaw replaces the body with raw bytes (JSON is decoded lazily).
func (m *Message) SetRaw(b []byte) {
	m.kind, m.raw, m.value, m.stream, m.decoded = bodyRaw, b, nil, nil, false
}

// SetStream replaces the body with a stream of events.
func (m *Message) SetStream(s Stream) {
	m.kind, m.stream, m.raw, m.value, m.decoded = bodyStream, s, nil, nil, false
}

// ClearBody leaves the message without a body (e.g. a 202 or 204 answer).
func (m *Message) ClearBody() {
	m.kind, m.stream, m.raw, m.value, m.decoded = bodyNone, nil, nil, nil, false
}

// Derive returns a new message that shares m's attributes, typed view and
// variables but has the given body value; composite blocks use it to start a
// branch. The variables are m's until the branch sets one: then it has its own.
func (m *Message) Derive(body any) *Message {
	d := &Message{Attrs: m.Attrs, Transport: m.Transport, Vars: m.Vars, headers: m.headers, lent: m.Vars != nil}
	d.SetBody(body)
	return d
}

// Clone returns a copy of m that a branch may change while m stays as it was, so a block can
// run a branch again, or another one, from the same message (catch, retry): the copy has its
// own body and its own Vars map (the values in it are shared, as blocks replace values rather
// than change them); it shares m's attributes and typed view.
func (m *Message) Clone() *Message {
	c := *m
	c.Vars, c.lent = maps.Clone(m.Vars), false
	return &c
}

// SetVar records a variable for later blocks.
func (m *Message) SetVar(key string, v any) {
	switch {
	case m.lent:
		m.Vars, m.lent = maps.Clone(m.Vars), false
	case m.Vars == nil:
		m.Vars = make(map[string]any, 2)
	}
	m.Vars[key] = v
}

// headerMap gives expressions the attributes as single strings (`headers`),
// built once per message and only when an expression asks for them.
func (m *Message) headerMap() map[string]string {
	if m.headers == nil {
		m.headers = make(map[string]string, len(m.Attrs))
		for k, v := range m.Attrs {
			if len(v) > 0 {
				m.headers[k] = v[0]
			}
		}
	}
	return m.headers
}

func jsonErrorText(err error) string {
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	return err.Error()
}

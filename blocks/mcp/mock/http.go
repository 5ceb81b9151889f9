package mock

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/octo-run/octo/blocks/mcp"
	"github.com/octo-run/octo/runtime"
)

// Process answers one message: an HTTP request on the Streamable HTTP path
// or the legacy /sse and /messages pair, or a stdio line. Origin, Host and
// CORS are the http connector's guard's business, before a request gets here.
func (b *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	s := b.srv
	switch m.Meta.Method {
	case MethodOpen:
		return s.openStdio(m)
	case MethodLine:
		return s.stdioLine(ctx, m)
	case MethodEnd:
		return s.endStdio(m)
	}
	body, err := rawBody(m)
	if err != nil {
		return nil, err
	}
	in := mcp.HTTPRequest{Method: m.Meta.Method, Header: m.Meta.Headers, Body: body, Vars: m.Vars, Query: m.Meta.Query}
	var r mcp.StreamReply
	switch m.Meta.Path {
	case SSEPath:
		r = s.st.ServeSSE(ctx, in, MessagesPath)
	case MessagesPath:
		r = s.st.ServeMessages(ctx, in)
	default:
		r = s.st.ServeStreamable(ctx, in)
	}
	return reply(m, r), nil
}

// rawBody returns the request body as bytes.
func rawBody(m *runtime.Message) ([]byte, error) {
	if m.IsRaw() {
		return m.Raw(), nil
	}
	v, err := m.Body()
	if err != nil || v == nil {
		return nil, err
	}
	return json.Marshal(v)
}

// reply writes the core's answer into the message.
func reply(m *runtime.Message, r mcp.StreamReply) *runtime.Message {
	m.Meta.Status = r.Status
	for k, v := range r.Header {
		for _, x := range v {
			if m.Meta.ReplyHeaders == nil {
				m.Meta.ReplyHeaders = make(http.Header, len(r.Header))
			}
			m.Meta.ReplyHeaders.Add(k, x)
		}
	}
	switch {
	case r.Stream != nil:
		m.SetStream(eventStream{r.Stream})
	case r.Body == nil && r.Status == http.StatusOK:
		m.SetRaw([]byte{}) // an empty 200 (DELETE), not "null"
	case r.Body == nil:
		m.ClearBody()
	default:
		m.SetRaw(r.Body)
	}
	return m
}

// eventStream hands the core's event stream to the connector; the connector
// closes it when it stops reading.
type eventStream struct{ s mcp.EventStream }

// Next implements runtime.Stream.
func (e eventStream) Next(ctx context.Context) (runtime.Event, error) {
	ev, err := e.s.Next(ctx)
	return runtime.Event{ID: ev.ID, Name: ev.Name, Data: ev.Data, Retry: ev.Retry}, err
}

// Close implements io.Closer: the connector stopped reading.
func (e eventStream) Close() error { return e.s.Close() }

// Drain implements runtime.Drainer: the connector is stopping and writes
// the stream until the answers it owes are delivered.
func (e eventStream) Drain(ctx context.Context) { e.s.Drain(ctx) }

package mock

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/octo-run/octo/blocks/mcp/mcpmsg"
	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/runtime"
)

// Process answers one message: an HTTP request on the Streamable HTTP path
// or the legacy /sse and /messages pair, or a stdio line. Origin, Host and
// CORS are the http connector's guard's business, before a request gets here.
func (b *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	s := b.srv
	if ev, ok := stdiomsg.From(m); ok {
		return s.stdio.Process(ctx, m, ev)
	}
	ex, err := httpmsg.Need(m)
	if err != nil {
		return nil, err
	}
	body, err := rawBody(m)
	if err != nil {
		return nil, err
	}
	in := mcp.HTTPRequest{Method: ex.Method, Header: ex.Header, Body: body, Vars: m.Vars, Query: ex.Query()}
	var r session.StreamReply
	switch ex.Path {
	case SSEPath:
		r = s.st.ServeSSE(ctx, in, MessagesPath)
	case MessagesPath:
		r = s.st.ServeMessages(ctx, in)
	default:
		r = s.st.ServeStreamable(ctx, in)
	}
	return reply(m, ex, r), nil
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

// reply writes the core's answer into the message and its exchange.
func reply(m *runtime.Message, ex *httpmsg.Exchange, r session.StreamReply) *runtime.Message {
	ex.Status = r.Status
	for k, v := range r.Header {
		for _, x := range v {
			if ex.ReplyHeader == nil {
				ex.ReplyHeader = make(http.Header, len(r.Header))
			}
			ex.ReplyHeader.Add(k, x)
		}
	}
	switch {
	case r.Stream != nil:
		m.SetStream(mcpmsg.Stream{S: r.Stream})
	case r.Body == nil && r.Status == http.StatusOK:
		m.SetRaw([]byte{}) // an empty 200 (DELETE), not "null"
	case r.Body == nil:
		m.ClearBody()
	default:
		m.SetRaw(r.Body)
	}
	return m
}

package mcp

import (
	"context"
	"net/http"
	"strings"
)

// ServeSSE opens a legacy HTTP+SSE session (2024-11-05, mcp-protocol.md
// §7.3) with a GET: the stream's first event is `endpoint`, whose data is
// messagesPath plus "?sessionId=<id>"; every answer, notification and
// server→client request then follows as a `message` event. messagesPath
// must be the path clients can reach, public prefix included (pitfall 16).
// The session ends when the stream is closed.
func (st *Stateful) ServeSSE(_ context.Context, in HTTPRequest, messagesPath string) StreamReply {
	if in.Method != http.MethodGet {
		r := st.refuse(in, TransportSSE, http.StatusMethodNotAllowed, ID{}, NewError(CodeInvalidRequest,
			"Method not allowed: GET opens the event stream"))
		r.Header["Allow"] = allowGet
		return r
	}
	if st.full() {
		return st.busy(in, TransportSSE, ID{})
	}
	s := st.newSession(TransportSSE)
	s.stream = newQueue("", func() { s.end(EndDisconnected) })
	sep := "?"
	if strings.Contains(messagesPath, "?") {
		sep = "&"
	}
	_ = s.stream.push(context.Background(), "endpoint", []byte(messagesPath+sep+"sessionId="+s.id), false)
	if err := st.register(s); err != nil {
		s.cancel()
		return st.busy(in, TransportSSE, ID{})
	}
	return streamReply(s.stream)
}

var acceptedBody = []byte("Accepted")

// ServeMessages takes one POST to the legacy message endpoint
// (messagesPath?sessionId=<id>): a missing sessionId is 400, an unknown one
// 404, a body that is not JSON-RPC 400; otherwise 202 "Accepted", and the
// answer goes out on the session's event stream.
func (st *Stateful) ServeMessages(ctx context.Context, in HTTPRequest) StreamReply {
	if in.Method != http.MethodPost {
		r := st.refuse(in, TransportSSE, http.StatusMethodNotAllowed, ID{}, NewError(CodeInvalidRequest,
			"Method not allowed: POST messages here"))
		r.Header["Allow"] = allowPost
		return r
	}
	id := in.Query.Get("sessionId")
	if id == "" {
		return st.refuse(in, TransportSSE, http.StatusBadRequest, ID{}, NewError(CodeInvalidRequest,
			"Bad Request: missing sessionId query parameter"))
	}
	s := st.lookup(id, TransportSSE)
	if s == nil {
		return st.refuse(in, TransportSSE, http.StatusNotFound, ID{}, NewError(-32001, "Session not found: open a new event stream"))
	}
	msgs, batch, perr := Decode(in.Body)
	if perr != nil {
		return st.refuse(in, TransportSSE, http.StatusBadRequest, ID{}, perr)
	}
	if !batch && msgs[0].Kind == KindInvalid {
		st.observeMessage(s, DirIn, &msgs[0], in.Body)
		return jsonReply(http.StatusBadRequest, AppendError(nil, msgs[0].ID, msgs[0].Error))
	}
	if err := s.batchRefused(msgs, batch); err != nil {
		return st.refuse(in, TransportSSE, http.StatusBadRequest, ID{}, err)
	}
	s.deliver(ctx, msgs, batch, RequestContext{Vars: in.Vars, Header: in.Header}, in.Body)
	return StreamReply{Status: http.StatusAccepted, Header: http.Header{"Content-Type": textPlain}, Body: acceptedBody}
}

var textPlain = []string{"text/plain; charset=utf-8"}[:1:1]

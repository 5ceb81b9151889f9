package session

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// ServeSSE opens a legacy HTTP+SSE session (2024-11-05, mcp-protocol.md
// §7.3) with a GET: the stream's first event is `endpoint`, whose data is
// messagesPath plus "?sessionId=<id>"; every answer, notification and
// server→client request then follows as a `message` event. messagesPath
// must be the path clients can reach, public prefix included (pitfall 16).
// The session ends when the stream is closed.
func (st *Front) ServeSSE(_ context.Context, in mcp.HTTPRequest, messagesPath string) StreamReply {
	if in.Method != http.MethodGet {
		r := st.refuse(in, TransportSSE, http.StatusMethodNotAllowed, jsonrpc.PeekID(in.Body), jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"Method not allowed: GET opens the event stream"))
		r.Header["Allow"] = allowGet
		return r
	}
	if !st.makeRoom() {
		return st.busy(in, TransportSSE, jsonrpc.PeekID(in.Body))
	}
	s := st.newSession(TransportSSE)
	s.stream = s.sessionStream("", func() { s.end(EndDisconnected) })
	s.stream.OnDrain(s.drainSession)
	sep := "?"
	if strings.Contains(messagesPath, "?") {
		sep = "&"
	}
	_ = s.stream.Push(context.Background(), "endpoint", []byte(messagesPath+sep+"sessionId="+s.id), false)
	if err := st.register(s); err != nil {
		s.cancel()
		return st.busy(in, TransportSSE, jsonrpc.PeekID(in.Body))
	}
	return streamReply(s.stream)
}

var acceptedBody = []byte("Accepted")

// ServeMessages takes one POST to the legacy message endpoint
// (messagesPath?sessionId=<id>): a missing sessionId is 400, an unknown one
// 404, a body that is not JSON-RPC 400; otherwise 202 "Accepted", and the
// answer goes out on the session's event stream.
func (st *Front) ServeMessages(ctx context.Context, in mcp.HTTPRequest) StreamReply {
	if in.Method != http.MethodPost {
		r := st.refuse(in, TransportSSE, http.StatusMethodNotAllowed, jsonrpc.PeekID(in.Body), jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"Method not allowed: POST messages here"))
		r.Header["Allow"] = allowPost
		return r
	}
	id := in.Query.Get("sessionId")
	if id == "" {
		return st.refuse(in, TransportSSE, http.StatusBadRequest, jsonrpc.PeekID(in.Body), jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"Bad Request: missing sessionId query parameter"))
	}
	s := st.lookup(id, TransportSSE)
	if s == nil {
		return st.refuse(in, TransportSSE, http.StatusNotFound, jsonrpc.PeekID(in.Body), jsonrpc.NewError(-32001, "Session not found: open a new event stream"))
	}
	msgs, batch, perr := jsonrpc.Decode(in.Body)
	if perr != nil {
		return st.refuse(in, TransportSSE, http.StatusBadRequest, jsonrpc.ID{}, perr)
	}
	if !batch && msgs[0].Kind == jsonrpc.KindInvalid {
		st.observeMessage(s, DirIn, &msgs[0], in.Body)
		return jsonReply(http.StatusBadRequest, jsonrpc.AppendError(nil, msgs[0].ID, msgs[0].Error))
	}
	if err := s.batchRefused(msgs, batch); err != nil {
		return st.refuse(in, TransportSSE, http.StatusBadRequest, jsonrpc.ID{}, err)
	}
	if r, held := s.holdBack(ctx, in); held {
		return r
	}
	s.deliver(ctx, msgs, batch, mcp.RequestContext{Vars: in.Vars, Header: in.Header}, in.Body, s.push)
	return StreamReply{Status: http.StatusAccepted, Header: http.Header{"Content-Type": textPlain}, Body: acceptedBody}
}

// holdBack waits while the session's stream is full (waitOutbox). It
// answers instead, and reports true, when too many POSTs already wait
// (429), the session ended meanwhile (404: it was dropped for not reading)
// or the client left.
func (s *Session) holdBack(ctx context.Context, in mcp.HTTPRequest) (StreamReply, bool) {
	st := s.st
	s.mu.Lock()
	if s.waitingPost >= maxWaitingPosts && s.stream != nil && !s.stream.HasRoom() {
		s.mu.Unlock()
		r := st.refuse(in, TransportSSE, http.StatusTooManyRequests, jsonrpc.PeekID(in.Body), jsonrpc.NewError(-32000,
			"Too many requests: this session's event stream is full and %d messages already wait for it; read the stream", maxWaitingPosts))
		r.Header["Retry-After"] = retryAfter
		return r, true
	}
	s.waitingPost++
	s.mu.Unlock()
	err := s.waitOutbox(ctx)
	s.mu.Lock()
	s.waitingPost--
	s.mu.Unlock()
	switch {
	case errors.Is(err, ErrSessionEnded):
		return st.refuse(in, TransportSSE, http.StatusNotFound, jsonrpc.PeekID(in.Body), jsonrpc.NewError(-32001,
			"Session not found: it ended while this message waited for its event stream to be read; open a new event stream")), true
	case err != nil:
		return st.refuse(in, TransportSSE, http.StatusServiceUnavailable, jsonrpc.PeekID(in.Body), jsonrpc.NewError(-32000,
			"Service unavailable: the request was abandoned while the session's event stream was full")), true
	}
	return StreamReply{}, false
}

var retryAfter = []string{"1"}[:1:1]

var textPlain = []string{"text/plain; charset=utf-8"}[:1:1]

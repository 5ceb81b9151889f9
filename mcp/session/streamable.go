package session

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/stream"
)

var (
	sseContentType  = []string{"text/event-stream"}[:1:1]
	jsonContentType = []string{mcp.ContentTypeJSON}[:1:1]
	allowPost       = []string{http.MethodPost}[:1:1]
	noCache         = []string{"no-cache"}[:1:1]
	noBuffering     = []string{"no"}[:1:1]
	allowAll        = []string{"GET, POST, DELETE"}[:1:1]
	allowGet        = []string{http.MethodGet}[:1:1]
	errBusy         = errors.New("too many sessions")
)

// ServeStreamable serves the Streamable HTTP transport (mcp-protocol.md §7.2)
// at one path: POST carries client messages, GET opens the session's
// standalone stream, DELETE ends the session. Session problems are decided
// before any 200 or stream: a missing Mcp-Session-Id is 400, an unknown,
// expired or deleted one 404 (clients re-initialize only on 404, pitfall 6).
func (st *Front) ServeStreamable(ctx context.Context, in mcp.HTTPRequest) StreamReply {
	switch in.Method {
	case http.MethodPost:
		return st.streamablePost(ctx, in)
	case http.MethodGet:
		return st.streamableGet(in)
	case http.MethodDelete:
		s, bad := st.streamableSession(in, false)
		if s == nil {
			return bad
		}
		s.end(EndDeleted)
		return StreamReply{Status: http.StatusOK, Header: http.Header{}}
	}
	r := st.refuse(in, TransportStreamable, http.StatusMethodNotAllowed, jsonrpc.PeekID(in.Body), jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
		"Method not allowed: use POST, GET or DELETE"))
	r.Header["Allow"] = allowAll
	return r
}

// serveModern serves a 2026-07-28 POST, which belongs to no session, and shows it to the
// observer as a session's request and answer are shown (a streamed answer only as the
// request).
func (st *Front) serveModern(ctx context.Context, in mcp.HTTPRequest) StreamReply {
	r := fromHTTP(st.srv.ServeModern(ctx, in))
	if !st.observing() {
		return r
	}
	msgs, batch, perr := jsonrpc.Decode(in.Body)
	if perr != nil || batch {
		return r
	}
	m := &msgs[0]
	ev := TrafficEvent{Transport: TransportStreamable, Direction: DirIn, Kind: TrafficRequest, Method: m.Method,
		ID: m.ID, Summary: summarize(m.Method, m.Params), Message: in.Body, Version: mcp.RequestVersion(in.Header, m)}
	st.observe(nil, ev)
	if m.Kind == jsonrpc.KindRequest && r.Body != nil {
		ev.Direction, ev.Kind, ev.Summary, ev.Message = DirOut, TrafficResult, "result of "+ev.Summary, r.Body
		if e, ok := jsonscan.Member(r.Body, "error"); ok && len(e) > 0 {
			ev.Kind, ev.Summary = TrafficError, "error of "+summarize(m.Method, m.Params)
		}
		st.observe(nil, ev)
	}
	return r
}

// fromHTTP turns a stateless answer into a stateful transport's reply.
func fromHTTP(r mcp.HTTPResponse) StreamReply {
	h := r.Header
	if h == nil {
		h = http.Header{}
	}
	if r.ContentType != "" {
		h["Content-Type"] = []string{r.ContentType}
	}
	if r.Stream != nil {
		h["Cache-Control"], h["X-Accel-Buffering"] = noCache, noBuffering
	}
	return StreamReply{Status: r.Status, Header: h, Body: r.Body, Stream: r.Stream}
}

func errorReply(status int, e *jsonrpc.Error) StreamReply {
	return jsonReply(status, jsonrpc.AppendError(nil, jsonrpc.ID{}, e))
}

func jsonReply(status int, body []byte) StreamReply {
	return StreamReply{Status: status, Header: http.Header{"Content-Type": jsonContentType}, Body: body}
}

func streamReply(q *stream.Queue) StreamReply {
	return StreamReply{Status: http.StatusOK, Stream: q, Header: http.Header{
		"Content-Type": sseContentType, "Cache-Control": noCache, "X-Accel-Buffering": noBuffering}}
}

// streamableSession finds the session a non-initialize HTTP request names and
// checks its MCP-Protocol-Version header when checkVersion is set: a
// revision the server does not speak is 400 (§7.2.5); a different spoken one
// is accepted (conformance clients send 2025-03-26 on 2025-11-25 sessions).
func (st *Front) streamableSession(in mcp.HTTPRequest, checkVersion bool) (*Session, StreamReply) {
	id := in.Header.Get(mcp.HeaderSessionID)
	if id == "" {
		return nil, st.refuse(in, TransportStreamable, http.StatusBadRequest, jsonrpc.PeekID(in.Body), jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"Bad Request: missing %s header; send initialize first", mcp.HeaderSessionID))
	}
	s := st.lookup(id, TransportStreamable)
	if s == nil {
		return nil, st.refuse(in, TransportStreamable, http.StatusNotFound, jsonrpc.PeekID(in.Body), jsonrpc.NewError(-32001,
			"Session not found: it expired or was deleted; initialize a new one"))
	}
	if v, ok := mcp.AnnouncedVersion(in.Header); checkVersion && ok && !st.srv.VersionPolicy().Speaks(v) {
		return nil, st.refuse(in, TransportStreamable, http.StatusBadRequest, jsonrpc.PeekID(in.Body), &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: "Bad Request: unsupported " + mcp.HeaderProtocolVersion + " \"" + v +
				"\"; this server speaks " + st.srv.VersionPolicy().List(),
			Data: map[string]any{"supported": st.srv.VersionPolicy().Supported, "requested": v}})
	}
	s.touch()
	return s, StreamReply{}
}

// accepts reads the Accept header leniently (§7.2.2, pitfall 4): no header,
// */* and the type/* wildcards accept everything they cover.
func accepts(h http.Header) (jsonOK, sseOK bool) {
	values := h.Values("Accept")
	if len(values) == 0 {
		return true, true
	}
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			mt, params, _ := strings.Cut(part, ";")
			if q := strings.TrimSpace(params); strings.HasPrefix(q, "q=0") && strings.Trim(q[3:], ".0") == "" {
				continue // q=0 means "not acceptable"
			}
			switch strings.ToLower(strings.TrimSpace(mt)) {
			case "*/*":
				return true, true
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				sseOK = true
			}
		}
	}
	return jsonOK, sseOK
}

var notAcceptable = jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
	"Not Acceptable: the client must accept application/json or text/event-stream")

func (st *Front) streamableGet(in mcp.HTTPRequest) StreamReply {
	if _, sseOK := accepts(in.Header); !sseOK {
		return st.refuse(in, TransportStreamable, http.StatusNotAcceptable, jsonrpc.PeekID(in.Body), jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"Not Acceptable: a GET opens a text/event-stream"))
	}
	s, bad := st.streamableSession(in, true)
	if s == nil {
		return bad
	}
	// Events are not stored for replay (§7.2.6 makes it a MAY). A client
	// resuming its standalone stream gets a fresh one in place of the old;
	// one resuming a POST's stream (a call it cancelled, or one that broke)
	// gets 405, which clients read as "no stream to resume" and stop asking.
	if last := in.Header.Get("Last-Event-ID"); last != "" {
		if !s.isStandalone(last) {
			r := st.refuse(in, TransportStreamable, http.StatusMethodNotAllowed, jsonrpc.PeekID(in.Body), jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
				"Method Not Allowed: stream %q cannot be resumed; its events are not kept", last))
			r.Header["Allow"] = []string{"POST, DELETE"}
			return r
		}
		s.closeStandalone()
	}
	q, err := s.openStandalone()
	switch {
	case errors.Is(err, errTooManyStreams):
		r := st.refuse(in, TransportStreamable, http.StatusTooManyRequests, jsonrpc.PeekID(in.Body), s.tooManyStreams())
		r.Header["Retry-After"] = retryAfter
		return r
	case err != nil:
		return st.refuse(in, TransportStreamable, http.StatusConflict, jsonrpc.PeekID(in.Body), jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"Conflict: this session already has a standalone stream open"))
	}
	return streamReply(q)
}

var errTooManyStreams = errors.New("too many streams")

// isStandalone reports whether an event id came from the session's current
// (or last) standalone stream.
func (s *Session) isStandalone(eventID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.standalonePrefix != "" && strings.HasPrefix(eventID, s.standalonePrefix)
}

// closeStandalone ends the standalone stream a reconnecting client left.
func (s *Session) closeStandalone() {
	s.mu.Lock()
	q := s.stream
	s.mu.Unlock()
	if q != nil {
		q.Close()
	}
}

// openStandalone opens the session's one GET stream (§7.2.3: a second while
// it is open is refused, as the TypeScript SDK's 409 does).
func (s *Session) openStandalone() (*stream.Queue, error) {
	prefix := s.streamPrefix()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return nil, ErrSessionEnded
	}
	if s.stream != nil && !s.stream.IsClosed() {
		return nil, errors.New("standalone stream already open")
	}
	if s.streams >= s.st.opts.MaxStreamsPerSession {
		return nil, errTooManyStreams
	}
	s.streams++
	var q *stream.Queue
	q = s.sessionStream(prefix, func() {
		s.mu.Lock()
		if s.stream == q {
			s.stream = nil
		}
		s.mu.Unlock()
		s.releaseStream()
	})
	if s.version >= mcp.Version20251125 {
		q.Prime()
	}
	s.stream, s.standalonePrefix = q, prefix
	return q, nil
}

func (st *Front) streamablePost(ctx context.Context, in mcp.HTTPRequest) StreamReply {
	if in.Header.Get(mcp.HeaderSessionID) == "" && st.srv.IsModernRequest(in) {
		return st.serveModern(ctx, in)
	}
	jsonOK, sseOK := accepts(in.Header)
	if !jsonOK && !sseOK {
		return st.refuse(in, TransportStreamable, http.StatusNotAcceptable, jsonrpc.PeekID(in.Body), notAcceptable)
	}
	msgs, batch, perr := jsonrpc.Decode(in.Body)
	if perr != nil {
		return st.refuse(in, TransportStreamable, http.StatusBadRequest, jsonrpc.ID{}, perr)
	}
	if !batch && msgs[0].Kind == jsonrpc.KindInvalid {
		return st.refuse(in, TransportStreamable, http.StatusBadRequest, msgs[0].ID, msgs[0].Error)
	}
	if in.Header.Get(mcp.HeaderSessionID) == "" && !batch && mcp.IsInitialize(&msgs[0]) {
		return st.initializeStreamable(ctx, in, &msgs[0], jsonOK)
	}
	s, bad := st.streamableSession(in, true)
	if s == nil {
		return bad
	}
	if err := s.batchRefused(msgs, batch); err != nil {
		return st.refuse(in, TransportStreamable, http.StatusBadRequest, jsonrpc.ID{}, err)
	}
	if !batch {
		st.observeMessage(s, DirIn, &msgs[0], in.Body)
		if mcp.IsInitialize(&msgs[0]) {
			m := &msgs[0]
			return jsonReply(http.StatusBadRequest, s.reply(m.ID, m.Method, m.Method,
				jsonrpc.Response{ID: m.ID, Error: jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request: the session is already initialized")}))
		}
	}
	return s.post(ctx, in, msgs, batch, jsonOK, sseOK)
}

// post answers the messages of one POST on an existing session.
func (s *Session) post(ctx context.Context, in mcp.HTTPRequest, msgs []jsonrpc.Message, batch bool, jsonOK, sseOK bool) StreamReply {
	rc := mcp.RequestContext{Vars: in.Vars, Header: in.Header}
	s.st.srv.Budget(&rc, len(in.Body))
	n := 0
	for i := range msgs {
		if batch {
			s.st.observeMessage(s, DirIn, &msgs[i], s.rawIfObserved(&msgs[i]))
		}
		if k := msgs[i].Kind; k == jsonrpc.KindRequest || k == jsonrpc.KindInvalid {
			n++
		}
	}
	var e *exchange
	if n > 0 {
		if e = newExchange(s, n, jsonOK, sseOK); e == nil {
			id := jsonrpc.ID{}
			if !batch {
				id = msgs[0].ID
			}
			r := s.st.refuse(in, TransportStreamable, http.StatusTooManyRequests, id, s.tooManyStreams())
			r.Header["Retry-After"] = retryAfter
			return r
		}
	}
	for i := range msgs {
		if k := msgs[i].Kind; k != jsonrpc.KindRequest && k != jsonrpc.KindInvalid {
			s.receive(ctx, &msgs[i], rc)
		}
	}
	if n == 0 {
		return StreamReply{Status: http.StatusAccepted, Header: http.Header{}}
	}
	slot := 0
	for i := range msgs {
		m := &msgs[i]
		switch {
		case m.Kind == jsonrpc.KindInvalid:
			e.answer(slot, jsonrpc.AppendError(nil, m.ID, m.Error))
		case mcp.IsInitialize(m) && batch:
			e.answer(slot, s.reply(m.ID, m.Method, m.Method, jsonrpc.Response{ID: m.ID, Error: jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
				"Invalid Request: initialize must not be part of a batch")}))
		case m.Kind == jsonrpc.KindRequest:
			i := slot
			e.hold(s.start(ctx, m, rc, e, func(msg []byte) { e.answer(i, msg) }))
		default:
			continue
		}
		slot++
	}
	return e.reply(ctx, batch)
}

// reply waits until the exchange knows its form. If the caller gives up
// first (the client left), the stream is closed so no handler blocks on it;
// if the server is shutting down, the calls are stopped, to be answered so.
func (e *exchange) reply(ctx context.Context, batch bool) StreamReply {
	select {
	case <-e.decided:
	case <-ctx.Done():
		if !e.s.st.srv.ShuttingDown(ctx) {
			e.q.Close()
			return errorReply(http.StatusServiceUnavailable, jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the request was abandoned"))
		}
		e.s.stopCalls(func(c *call) bool { return c.out == outlet(e) })
		<-e.decided
	}
	if e.isSSE() {
		return streamReply(e.q)
	}
	e.q.Close()
	body := e.json(batch)
	if body == nil { // every answer was withheld after a cancel
		return StreamReply{Status: http.StatusAccepted, Header: http.Header{}}
	}
	return jsonReply(http.StatusOK, body)
}

// initializeStreamable opens a session with an initialize POST; the session
// id rides on that answer (§7.2.4). Capacity is checked first so a full
// server answers 503 without running the handshake.
func (st *Front) initializeStreamable(ctx context.Context, in mcp.HTTPRequest, m *jsonrpc.Message, jsonOK bool) StreamReply {
	if !st.makeRoom() {
		return st.busy(in, TransportStreamable, m.ID)
	}
	s := st.newSession(TransportStreamable)
	resp := s.initialize(ctx, m, mcp.RequestContext{Vars: in.Vars, Header: in.Header})
	msg := jsonrpc.AppendResponse(make([]byte, 0, 512), resp)
	if resp.Error != nil {
		s.cancel()
		return jsonReply(http.StatusOK, msg)
	}
	if err := st.register(s); err != nil {
		s.cancel()
		return st.busy(in, TransportStreamable, m.ID)
	}
	st.observeMessage(s, DirIn, m, in.Body)
	st.observeAnswer(s, DirOut, m.Method, m.Method, m.ID, false, msg)
	var r StreamReply
	if jsonOK {
		r = jsonReply(http.StatusOK, msg)
	} else {
		q := stream.New(s.streamPrefix(), nil)
		if s.primes() {
			q.Prime()
		}
		_ = q.Push(ctx, "message", msg, false)
		q.End()
		r = streamReply(q)
	}
	r.Header[mcp.HeaderSessionID] = []string{s.id}
	return r
}

// busy is the answer when no session can be opened: 503 with a JSON-RPC
// error carrying the request's id.
func (st *Front) busy(in mcp.HTTPRequest, t Transport, id jsonrpc.ID) StreamReply {
	msg := "Service unavailable: too many sessions"
	st.mu.Lock()
	if st.closed {
		msg = "Service unavailable: the server is shutting down"
	}
	st.mu.Unlock()
	return st.refuse(in, t, http.StatusServiceUnavailable, id, jsonrpc.NewError(-32000, "%s", msg))
}

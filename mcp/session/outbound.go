package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/stream"
)

// outlet is where a request's notifications and server→client requests go:
// the POST's own stream (Streamable HTTP) or the session's single stream
// (legacy SSE, stdio). block says whether to wait for a slow reader.
type outlet interface {
	send(ctx context.Context, msg []byte, block bool) error
}

// call is one client request in flight: the handle a provider reaches
// through RequestContext.Notifier (progress, logs, questions to the client)
// and the entry notifications/cancelled finds in the in-flight table.
type call struct {
	s      *Session
	id     jsonrpc.ID
	method string
	what   string // summary for the traffic log
	out    outlet
	cancel context.CancelFunc
	// abandoned: the client cancelled it, left, or the session ended, so its
	// answer is withheld (mcp-protocol.md §6.4: no response after a cancel).
	abandoned atomic.Bool
	finished  atomic.Bool
	// stopped: the server stopped it to shut down; it is answered so.
	stopped atomic.Bool
	why     atomic.Pointer[string] // why it was abandoned, when not by notifications/cancelled
	// rc is what the request's provider gets, kept here so that one allocation holds both:
	// RequestContext is over the 128 bytes a goroutine's closure copies, so start's closure
	// would move it to the heap, and run would copy it there again.
	rc mcp.RequestContext
}

// abandon withholds the call's answer and cancels its context; why, when
// not "", says why for the traffic log.
func (c *call) abandon(why string) {
	if why != "" {
		c.why.CompareAndSwap(nil, &why)
	}
	c.abandoned.Store(true)
	c.cancel()
}

type callKey struct{}

// callOf returns the call of session s that ctx was handed to, or nil.
func callOf(ctx context.Context, s *Session) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	if c == nil || c.s != s || c.finished.Load() {
		return nil
	}
	return c
}

// track registers a request in the in-flight table and returns its context.
func (s *Session) track(ctx context.Context, m *jsonrpc.Message, out outlet) (*call, context.Context, *jsonrpc.Error) {
	c := &call{s: s, id: m.ID, method: m.Method, out: out}
	if s.st.observing() {
		c.what = summarize(m.Method, m.Params)
	}
	cctx, cancel := context.WithCancel(context.WithValue(context.WithoutCancel(ctx), callKey{}, c))
	c.cancel = cancel
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.ended:
		cancel()
		return nil, nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the session has ended")
	case s.inflight[m.ID] != nil:
		cancel()
		return nil, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request: request id %s is already in flight", m.ID)
	case len(s.inflight) >= maxInFlight:
		cancel()
		return nil, nil, jsonrpc.NewError(-32000, "Server busy: too many requests in flight")
	case s.draining:
		cancel()
		return nil, nil, mcp.ErrShuttingDown
	}
	s.inflight[m.ID] = c
	s.calls.Add(1) // under s.mu, so a drain's Wait sees every call it must wait for
	return c, cctx, nil
}

// start runs request m in its own goroutine and returns its call; answer
// receives the encoded response, or nil when it must be withheld. Requests
// other than ping are refused until initialize has been answered: then, or
// when the request cannot be tracked, it is answered at once and start
// returns nil.
func (s *Session) start(ctx context.Context, m *jsonrpc.Message, rc mcp.RequestContext, out outlet, answer func([]byte)) *call {
	s.touch()
	if !allowedBeforeInit(m.Method) && !s.answered() && rc.Version != mcp.Version20260728 {
		answer(s.reply(m.ID, m.Method, summarize(m.Method, m.Params), jsonrpc.Response{ID: m.ID, Error: errNotInitialized}))
		return nil
	}
	c, cctx, err := s.track(ctx, m, out)
	if err != nil {
		answer(s.reply(m.ID, m.Method, m.Method, jsonrpc.Response{ID: m.ID, Error: err}))
		return nil
	}
	c.rc = rc
	go func() {
		defer s.calls.Done()
		answer(s.run(cctx, c, m))
	}()
	return c
}

func (s *Session) run(ctx context.Context, c *call, m *jsonrpc.Message) []byte {
	rc := &c.rc
	rc.Session, rc.Notifier = s, c
	if rc.Version != mcp.Version20260728 { // a 2026-07-28 request (stdio) keeps its own revision
		rc.Version = s.Version()
	}
	resp := s.st.srv.Handle(ctx, &m.Request, rc)
	c.finished.Store(true)
	c.cancel()
	s.mu.Lock()
	delete(s.inflight, c.id)
	s.mu.Unlock()
	s.touch()
	if c.abandoned.Load() {
		summary := "no answer to cancelled " + c.what
		if why := c.why.Load(); why != nil {
			summary += " (" + *why + ")"
		}
		s.st.observe(s, TrafficEvent{Direction: DirOut, Kind: TrafficCancelled, Method: c.method, ID: c.id,
			Summary: summary})
		return nil
	}
	if c.stopped.Load() {
		resp = jsonrpc.Response{ID: c.id, Error: mcp.ErrShuttingDown}
	}
	msg, fits := rc.FitAnswer(c.id, jsonrpc.AppendResponse(make([]byte, 0, 256), resp))
	s.st.observeAnswer(s, DirOut, c.method, c.what, c.id, resp.Error != nil || !fits, msg)
	return msg
}

// reply encodes a response and logs it.
func (s *Session) reply(id jsonrpc.ID, method, what string, resp jsonrpc.Response) []byte {
	msg := jsonrpc.AppendResponse(make([]byte, 0, 256), resp)
	s.st.observeAnswer(s, DirOut, method, what, id, resp.Error != nil, msg)
	return msg
}

// Notify implements Notifier for the request in flight. After the request
// is answered, or when nothing can carry it (a JSON-only client), the
// notification is dropped, as progress for finished requests must be.
func (c *call) Notify(ctx context.Context, method string, params any) error {
	if c.finished.Load() || c.abandoned.Load() {
		return nil
	}
	msg, err := jsonrpc.EncodeNotification(method, params)
	if err != nil {
		return err
	}
	if method == "notifications/message" && !c.s.wantsLog(params, msg) {
		return nil
	}
	if err := c.out.send(ctx, msg, true); err != nil {
		if errors.Is(err, stream.ErrNoStream) {
			return nil
		}
		return err
	}
	c.s.observeNotification(method, params, msg)
	return nil
}

// Request implements mcp.Requester: the question goes on this request's stream.
func (c *call) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return c.s.request(ctx, c, method, params)
}

func (s *Session) observeNotification(method string, params any, msg []byte) {
	if !s.st.observing() {
		return
	}
	p, _ := jsonscan.Member(msg, "params")
	s.st.observe(s, TrafficEvent{Direction: DirOut, Kind: TrafficNotification, Method: method,
		Summary: summarize(method, p), Message: msg})
}

// Notify sends a notification to the client. Inside a request (ctx is the
// one a provider was handed) it goes on that request's stream; otherwise on
// the session's standalone stream (GET, legacy SSE or stdio), waiting for
// room while ctx lasts. notifications/message is filtered by the session's
// log level. stream.ErrNoStream when nothing can carry it.
func (s *Session) Notify(ctx context.Context, method string, params any) error {
	if c := callOf(ctx, s); c != nil {
		return c.Notify(ctx, method, params)
	}
	msg, err := jsonrpc.EncodeNotification(method, params)
	if err != nil {
		return err
	}
	if method == "notifications/message" && !s.wantsLog(params, msg) {
		return nil
	}
	if err := s.sendStandalone(ctx, msg, true); err != nil {
		return err
	}
	s.observeNotification(method, params, msg)
	return nil
}

// sendStandalone puts msg on the session's standalone stream. Only logging
// may precede the initialize answer (pitfall 21).
func (s *Session) sendStandalone(ctx context.Context, msg []byte, block bool) error {
	s.mu.Lock()
	q, ready := s.stream, s.initState == initAnswered
	s.mu.Unlock()
	if q == nil || !ready {
		return stream.ErrNoStream
	}
	return q.Push(ctx, "message", msg, block)
}

// broadcast offers a server-initiated notification without waiting: a full
// or missing stream drops it rather than stall the sender.
func (s *Session) broadcast(msg []byte) {
	if s.sendStandalone(context.Background(), msg, false) != nil {
		return
	}
	if s.st.observing() {
		method, _ := jsonscan.Member(msg, "method")
		m, _ := jsonscan.Unquote(method)
		p, _ := jsonscan.Member(msg, "params")
		s.st.observe(s, TrafficEvent{Direction: DirOut, Kind: TrafficNotification, Method: m,
			Summary: summarize(m, p), Message: msg})
	}
}

// sessionOutlet sends on the session's single stream (legacy SSE, stdio).
type sessionOutlet struct{ s *Session }

func (o sessionOutlet) send(ctx context.Context, msg []byte, block bool) error {
	o.s.mu.Lock()
	q := o.s.stream
	o.s.mu.Unlock()
	if q == nil {
		return stream.ErrNoStream
	}
	return q.Push(ctx, "message", msg, block)
}

// pendingRequest is a server→client request waiting for its answer.
type pendingRequest struct {
	method string
	ch     chan *jsonrpc.Message // cap 1
}

// askCapability maps a server→client request to the client capability it
// needs (mcp-protocol.md §2.4).
var askCapability = map[string]string{
	"sampling/createMessage": "sampling",
	"elicitation/create":     "elicitation",
	"roots/list":             "roots",
}

// Request asks the client: it sends a server→client request (e.g.
// elicitation/create, sampling/createMessage) and waits for the answer. Inside
// a request (ctx is the one a provider was handed) it goes on that request's
// stream, otherwise on the standalone stream. The answer's error comes back as
// an *Error. It fails at once with ErrClientCapability when the client did not
// declare the capability the method needs; when ctx ends the request is
// abandoned and the client told so.
func (s *Session) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return s.request(ctx, callOf(ctx, s), method, params)
}

func (s *Session) request(ctx context.Context, c *call, method string, params any) (json.RawMessage, error) {
	var raw []byte
	if params != nil {
		var err error
		if raw, err = json.Marshal(params); err != nil {
			return nil, fmt.Errorf("encode %s params: %w", method, err)
		}
	}
	if err := s.canAsk(method, raw); err != nil {
		return nil, err
	}
	id, p, err := s.expect(method)
	if err != nil {
		return nil, err
	}
	// The question rides on the request's own stream while it is open.
	send := func(msg []byte, block bool) error {
		if c != nil && !c.finished.Load() {
			return c.out.send(ctx, msg, block)
		}
		return s.sendStandalone(ctx, msg, block)
	}
	msg := jsonrpc.AppendRequest(nil, id, method, raw)
	if err := send(msg, true); err != nil {
		s.forget(id)
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	s.st.observe(s, TrafficEvent{Direction: DirOut, Kind: TrafficRequest, Method: method, ID: id,
		Summary: method, Message: msg})
	select {
	case ans := <-p.ch:
		if ans.Error != nil {
			return nil, ans.Error
		}
		return ans.Result, nil
	case <-ctx.Done():
		s.forget(id)
		cancelled, _ := jsonrpc.EncodeNotification("notifications/cancelled", map[string]any{
			"requestId": id, "reason": "the server stopped waiting"})
		_ = send(cancelled, false)
		return nil, ctx.Err()
	case <-s.ctx.Done():
		return nil, ErrSessionEnded
	}
}

// expect allocates the id of a server→client request and its entry in the
// pending table.
func (s *Session) expect(method string) (jsonrpc.ID, *pendingRequest, error) {
	p := &pendingRequest{method: method, ch: make(chan *jsonrpc.Message, 1)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return jsonrpc.ID{}, nil, ErrSessionEnded
	}
	s.nextReq++
	id := jsonrpc.IntID(s.nextReq)
	s.pending[id] = p
	return id, p, nil
}

func (s *Session) forget(id jsonrpc.ID) {
	s.mu.Lock()
	delete(s.pending, id)
	s.mu.Unlock()
}

// canAsk refuses a server→client request the client did not declare it can
// take; elicitation modes follow 2025-11-25 (an empty object is form only).
func (s *Session) canAsk(method string, params []byte) error {
	name, ok := askCapability[method]
	if !ok {
		return nil
	}
	caps := s.ClientCapabilities()
	if _, ok := jsonscan.Member(caps, name); !ok {
		return fmt.Errorf("%s: %w %q", method, ErrClientCapability, name)
	}
	mode := mcp.ElicitMode(method, params)
	if mode == "" || mcp.DeclaresElicitMode(caps, mode) {
		return nil
	}
	return fmt.Errorf("%s: %w %q (mode %s)", method, ErrClientCapability, name, mode)
}

// complete hands a client's response to the request waiting for it; an
// answer to nothing pending (late, or after a cancel) is dropped.
func (s *Session) complete(m *jsonrpc.Message) {
	s.mu.Lock()
	p := s.pending[m.ID]
	delete(s.pending, m.ID)
	s.mu.Unlock()
	what := "unknown request"
	if p != nil {
		what = p.method
	}
	s.st.observeAnswer(s, DirIn, what, what, m.ID, m.Error != nil, s.rawIfObserved(m))
	if p != nil {
		p.ch <- m
	}
}

func (s *Session) rawIfObserved(m *jsonrpc.Message) []byte {
	if !s.st.observing() {
		return nil
	}
	return rawMessage(m)
}

var (
	_ mcp.Notifier  = (*call)(nil)
	_ mcp.Requester = (*call)(nil)
	_ mcp.Requester = (*Session)(nil)
	_ mcp.Session   = (*Session)(nil)
)

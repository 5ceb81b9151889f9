package session

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/stream"
)

// maxInFlight bounds the requests one session may have running at once, so a
// client cannot pile up goroutines without limit.
const maxInFlight = 1024

// Session is the state kept per client of a stateful server
// (DESIGN.md "mcp.Session"): id, negotiated version, client capabilities,
// log level, subscriptions, the in-flight table for cancellation and the
// pending server→client requests. Providers find it in RequestContext.Session.
type Session struct {
	st        *Front
	id        string
	transport Transport
	ctx       context.Context // ends with the session
	cancel    context.CancelFunc
	calls     sync.WaitGroup
	last      atomic.Int64 // unix nanos of the last traffic
	timer     *time.Timer  // idle expiry (Streamable HTTP only)
	modern    atomic.Bool  // a stdio pipe whose client spoke 2026-07-28 (pipe.go)

	mu          sync.Mutex
	ended       bool
	draining    bool  // the server is stopping: no new calls (drain.go)
	initState   uint8 // 0 none, 1 initializing, 2 answered
	initialized bool  // notifications/initialized received
	version     string
	clientInfo  mcp.Implementation
	clientCaps  json.RawMessage
	logLevel    int // -1: not set, send every level
	waitingPost int // legacy POSTs held back by waitOutbox
	streams     int // open event streams: the GET stream and POST answer streams
	subs        map[string]struct{}
	inflight    map[jsonrpc.ID]*call
	pending     map[jsonrpc.ID]*pendingRequest
	nextReq     int64
	nextStream  int
	stream      *stream.Queue // standalone (GET) stream, legacy SSE stream or stdio outbox
	// standalonePrefix is the event-id prefix of the last GET stream, so a
	// reconnect (Last-Event-ID) can be told from a resumed POST stream.
	standalonePrefix string
}

const (
	initNone = iota
	initRunning
	initAnswered
)

func newSessionID() string { return rand.Text() }

// newSession makes a session that is not yet registered.
func (st *Front) newSession(t Transport) *Session {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Session{
		st: st, id: newSessionID(), transport: t, ctx: ctx, cancel: cancel, logLevel: -1,
		inflight: make(map[jsonrpc.ID]*call), pending: make(map[jsonrpc.ID]*pendingRequest),
	}
	s.touch()
	return s
}

// register adds s to the live sessions unless the server is closed or full.
func (st *Front) register(s *Session) error {
	st.mu.Lock()
	switch {
	case st.closed:
		st.mu.Unlock()
		return ErrClosed
	case len(st.sessions) >= st.opts.MaxSessions:
		st.mu.Unlock()
		return errBusy
	}
	st.sessions[s.id] = s
	st.mu.Unlock()
	if s.transport == TransportStreamable {
		s.timer = time.AfterFunc(st.opts.IdleTimeout, s.checkIdle)
	}
	st.observe(s, TrafficEvent{Kind: TrafficSessionOpened, Summary: "session opened (" + string(s.transport) + ")"})
	return nil
}

// makeRoom reports whether a new session fits. When the server is full it
// ends the Streamable HTTP session idle the longest to make room (sessions
// on other transports hold a stream while they live, so are never idle),
// rather than refuse newcomers until the idle timeout passes.
func (st *Front) makeRoom() bool {
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		return false
	}
	if len(st.sessions) < st.opts.MaxSessions {
		st.mu.Unlock()
		return true
	}
	all := make([]*Session, 0, len(st.sessions))
	for _, s := range st.sessions {
		if s.transport == TransportStreamable {
			all = append(all, s)
		}
	}
	st.mu.Unlock()
	var oldest *Session
	for _, s := range all {
		if s.idle() && (oldest == nil || s.last.Load() < oldest.last.Load()) {
			oldest = s
		}
	}
	if oldest == nil {
		return false
	}
	oldest.end(EndEvicted)
	return true
}

// idle reports whether the session has no stream open and no request in
// flight.
func (s *Session) idle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.ended && len(s.inflight) == 0 && s.streams == 0 && (s.stream == nil || s.stream.IsClosed())
}

// takeStream claims one of the session's event streams; false when it holds
// MaxStreamsPerSession already. releaseStream gives it back.
func (s *Session) takeStream() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streams >= s.st.opts.MaxStreamsPerSession {
		return false
	}
	s.streams++
	return true
}

func (s *Session) releaseStream() {
	s.mu.Lock()
	s.streams--
	s.mu.Unlock()
	s.touch()
}

// tooManyStreams refuses a stream over MaxStreamsPerSession.
func (s *Session) tooManyStreams() *jsonrpc.Error {
	return jsonrpc.NewError(-32000, "Too many requests: this session already has %d event streams open (maxStreamsPerSession); close one or accept application/json",
		s.st.opts.MaxStreamsPerSession)
}

// lookup returns the live session id of transport t, or nil: an id issued on
// one transport is never accepted on another.
func (st *Front) lookup(id string, t Transport) *Session {
	st.mu.Lock()
	s := st.sessions[id]
	st.mu.Unlock()
	if s == nil || s.transport != t {
		return nil
	}
	return s
}

// ID implements Session.
func (s *Session) ID() string { return s.id }

// Transport returns the transport the session arrived on.
func (s *Session) Transport() Transport { return s.transport }

// Version returns the negotiated protocol revision, "" before initialize.
func (s *Session) Version() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// ClientInfo returns the clientInfo the client sent in initialize.
func (s *Session) ClientInfo() mcp.Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientInfo
}

// ClientCapabilities returns the capabilities object the client sent in
// initialize verbatim ({} when it sent none).
func (s *Session) ClientCapabilities() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.clientCaps) == 0 {
		return jsonrpc.EmptyObject
	}
	return s.clientCaps
}

// HasClientCapability reports whether the client declared the top-level
// capability name ("sampling", "elicitation", "roots", ...).
func (s *Session) HasClientCapability(name string) bool {
	_, ok := jsonscan.Member(s.ClientCapabilities(), name)
	return ok
}

// LogLevel returns the level set by logging/setLevel, "" when none was set.
func (s *Session) LogLevel() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.logLevel < 0 {
		return ""
	}
	return mcp.LogLevelName(s.logLevel)
}

// SetLogLevel implements mcp.KeepingSession.
func (s *Session) SetLogLevel(level int) {
	s.mu.Lock()
	s.logLevel = level
	s.mu.Unlock()
}

// maxSubscriptions bounds one session's subscription set.
const maxSubscriptions = 10000

// Subscribe implements mcp.KeepingSession: at most maxSubscriptions, -32602 past that.
func (s *Session) Subscribe(uri string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subs == nil {
		s.subs = make(map[string]struct{})
	}
	if _, ok := s.subs[uri]; !ok && len(s.subs) >= maxSubscriptions {
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: too many subscriptions (at most %d per session)", maxSubscriptions)
	}
	s.subs[uri] = struct{}{}
	return nil
}

// Unsubscribe implements mcp.KeepingSession.
func (s *Session) Unsubscribe(uri string) {
	s.mu.Lock()
	delete(s.subs, uri)
	s.mu.Unlock()
}

// wantsLog reports whether a notifications/message passes the session's
// level; before any logging/setLevel every level passes.
func (s *Session) wantsLog(params any, msg []byte) bool {
	s.mu.Lock()
	floor := s.logLevel
	s.mu.Unlock()
	if floor < 0 {
		return true
	}
	i := mcp.MessageLevel(params, msg)
	return i < 0 || i >= floor
}

// Subscribed reports whether the session subscribed to uri.
func (s *Session) Subscribed(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.subs[uri]
	return ok
}

// Done is closed when the session ends.
func (s *Session) Done() <-chan struct{} { return s.ctx.Done() }

// Close ends the session as Front.Close would.
func (s *Session) Close() { s.end(EndClosed) }

func (s *Session) touch() { s.last.Store(time.Now().UnixNano()) }

// checkIdle runs when the idle timer fires: a session with an open stream or
// a request in flight is busy, not idle.
func (s *Session) checkIdle() {
	idle := s.st.opts.IdleTimeout
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	busy := len(s.inflight) > 0 || (s.stream != nil && !s.stream.IsClosed())
	s.mu.Unlock()
	wait := idle - time.Duration(time.Now().UnixNano()-s.last.Load())
	if busy || wait > 0 {
		s.timer.Reset(max(wait, idle/4, time.Millisecond))
		return
	}
	s.end(EndExpired)
}

// end finishes the session once: it leaves the registry, cancels every
// request in flight and every pending server→client request, and lets its
// stream drain and end.
func (s *Session) end(why EndReason) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	q := s.stream
	// track refuses new calls from now on, so this is every call there is.
	for _, c := range s.inflight {
		c.abandon("the session ended: " + string(why))
	}
	s.mu.Unlock()
	st := s.st
	st.mu.Lock()
	if st.sessions[s.id] == s {
		delete(st.sessions, s.id)
	}
	st.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
	}
	s.cancel()
	if q != nil {
		q.End()
	}
	summary := "session closed (" + string(why) + ")"
	switch why {
	case EndStalled:
		summary = "session closed (stalled: the client did not read its event stream for " + st.opts.StallTimeout.String() + ")"
	case EndEvicted:
		idle := time.Duration(time.Now().UnixNano() - s.last.Load()).Round(time.Millisecond)
		summary = "session closed (evicted: the server had its limit of " + strconv.Itoa(st.opts.MaxSessions) +
			" sessions and this one was idle the longest, for " + idle.String() + ")"
	}
	st.observe(s, TrafficEvent{Kind: TrafficSessionClosed, Summary: summary, Reason: why})
}

// sessionStream returns a queue for the session's own stream (GET, legacy
// SSE, stdio outbox): a client that leaves it full and unread for the
// stall timeout ends the session (EndStalled).
func (s *Session) sessionStream(prefix string, onClose func()) *stream.Queue {
	return stream.New(prefix, onClose).StallAfter(s.st.opts.StallTimeout, func() { s.end(EndStalled) })
}

// maxWaitingPosts bounds the messages of one session held back while its
// stream is full; more are refused (429) rather than hold more connections.
const maxWaitingPosts = 8

// waitOutbox holds the client's next message back while the session's own
// stream (legacy SSE, stdio) is full, so its input is not taken while it
// does not read (backpressure). It returns nil when there is room or the
// session has no such stream, ErrSessionEnded when the session ended or was
// dropped for not reading, and ctx.Err() when ctx ends.
func (s *Session) waitOutbox(ctx context.Context) error {
	s.mu.Lock()
	q := s.stream
	s.mu.Unlock()
	if q == nil {
		return nil
	}
	switch err := q.WaitRoom(ctx); {
	case errors.Is(err, stream.ErrStalled), errors.Is(err, stream.ErrNoStream):
		return ErrSessionEnded
	default:
		return err
	}
}

// begin records the start of initialize; a second one is refused (-32600,
// as the TypeScript SDK does for a second initialize on a session).
func (s *Session) begin() *jsonrpc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initState != initNone {
		return jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request: the session is already initialized")
	}
	s.initState = initRunning
	return nil
}

// initialize answers an initialize request and, when it succeeds, records
// the negotiated version and what the client said about itself.
func (s *Session) initialize(ctx context.Context, m *jsonrpc.Message, rc mcp.RequestContext) jsonrpc.Response {
	if err := s.begin(); err != nil {
		return jsonrpc.Response{ID: m.ID, Error: err}
	}
	rc.Session = s
	resp := s.st.srv.Handle(ctx, &m.Request, &rc)
	s.mu.Lock()
	defer s.mu.Unlock()
	if resp.Error != nil {
		s.initState = initNone
		return resp
	}
	var p struct {
		Capabilities json.RawMessage    `json:"capabilities"`
		ClientInfo   mcp.Implementation `json:"clientInfo"`
	}
	// Lenient: a malformed clientInfo must not fail the handshake.
	_ = json.Unmarshal(m.Params, &p)
	if len(p.Capabilities) > 0 && p.Capabilities[0] == '{' {
		s.clientCaps = p.Capabilities
	}
	s.clientInfo = p.ClientInfo
	s.version, s.initState = rc.Version, initAnswered
	return resp
}

// answered reports whether initialize has been answered: the gate for every
// other request (mcp-protocol.md §2.1 and pitfall 3 — not the client's
// notifications/initialized, which races the first request over HTTP).
func (s *Session) answered() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initState == initAnswered
}

// batchRefused says why a body that is a batch cannot be served: the
// session's revision has no batches, or the batch is over the limit.
func (s *Session) batchRefused(msgs []jsonrpc.Message, batch bool) *jsonrpc.Error {
	if !batch {
		return nil
	}
	if !s.st.opts.AllowBatch || (s.Version() != mcp.Version20250326 && !s.st.opts.BatchInEveryVersion) {
		return jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"Invalid Request: JSON-RPC batches are not supported in protocol version %s", s.Version())
	}
	return s.st.srv.CheckBatch(len(msgs))
}

// allowedBeforeInit are the requests served before initialize is answered.
func allowedBeforeInit(method string) bool { return method == "initialize" || method == "ping" }

var errNotInitialized = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request: the session is not initialized; send initialize first")

// receive handles a client notification or response; it never answers.
func (s *Session) receive(ctx context.Context, m *jsonrpc.Message, rc mcp.RequestContext) {
	s.touch()
	if m.Kind == jsonrpc.KindResponse {
		s.complete(m)
		return
	}
	switch m.Method {
	case "notifications/cancelled":
		if raw, ok := jsonscan.Member(m.Params, "requestId"); ok {
			if id, err := jsonrpc.ParseID(raw); err == nil {
				s.cancelCall(id)
			}
		}
	case "notifications/initialized":
		s.mu.Lock()
		s.initialized = true
		s.mu.Unlock()
	}
	rc.Session = s
	s.st.srv.Handle(ctx, &m.Request, &rc)
}

// cancelCall cancels the request id in flight; unknown or finished ids are
// ignored, as races are normal (mcp-protocol.md §6.4).
func (s *Session) cancelCall(id jsonrpc.ID) {
	s.mu.Lock()
	c := s.inflight[id]
	s.mu.Unlock()
	if c != nil {
		c.abandon("")
	}
}

// streamPrefix returns a fresh event-id prefix: ids encode their stream, so
// they are unique across the session's streams (§7.2.6).
func (s *Session) streamPrefix() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextStream++
	return strconv.Itoa(s.nextStream) + "-"
}

// primes reports whether streams of this session start with a priming event:
// only 2025-11-25 clients expect one (pitfall 14).
func (s *Session) primes() bool { return s.Version() >= mcp.Version20251125 }

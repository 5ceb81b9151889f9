package mcp

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/octo-run/octo/mcp/tasks"

	"github.com/octo-run/octo/mcp/jsonrpc"
)

// This file is the stateful server's public face: options, the replies the
// HTTP transports produce, server-initiated broadcasts and shutdown. The
// transports live in streamable.go, sse.go and stdio.go, sessions in
// session.go, server→client traffic in outbound.go.

// Transport names a session's transport in TrafficEvent and ServerSession.
type Transport string

// The transports a stateful server speaks.
const (
	TransportStreamable Transport = "streamable-http" // POST/GET/DELETE on one path
	TransportSSE        Transport = "sse"             // legacy HTTP+SSE (2024-11-05)
	TransportStdio      Transport = "stdio"           // newline-delimited JSON-RPC
)

// HeaderSessionID carries the Streamable HTTP session id (case-insensitive on
// the wire; this is net/http's canonical form).
const HeaderSessionID = "Mcp-Session-Id"

// Defaults for StatefulOptions.
const (
	DefaultIdleTimeout          = 30 * time.Minute
	DefaultMaxSessions          = 10000
	DefaultMaxStreamsPerSession = 16
)

// Errors the stateful server returns.
var (
	// ErrClosed: the Stateful was closed.
	ErrClosed = errors.New("mcp server closed")
	// ErrSessionEnded: the session ended (DELETE, expiry, Close, EOF) while
	// waiting.
	ErrSessionEnded = errors.New("mcp session ended")
	// ErrNoStream: nothing can carry a server→client message right now (a
	// JSON-only client, no open GET stream, or a stateless server).
	ErrNoStream = errors.New("no stream to the client")
	// ErrClientCapability: the client did not declare the capability a
	// server→client request needs (sampling, elicitation, roots).
	ErrClientCapability = errors.New("client did not declare the capability")
)

// StatefulOptions configure a Stateful; the zero value is usable.
type StatefulOptions struct {
	// IdleTimeout ends a Streamable HTTP session with no traffic, no open
	// stream and no request in flight for this long (default 30m).
	IdleTimeout time.Duration
	// MaxSessions caps live sessions (default 10000). When they are all
	// taken, a new one takes the place of the Streamable HTTP session idle
	// the longest (no open stream, no request in flight); with none idle,
	// initialize (and a legacy SSE GET) gets 503.
	MaxSessions int
	// MaxStreamsPerSession caps the event streams one session holds open at
	// once, its GET stream and its POSTs' answer streams together (default
	// DefaultMaxStreamsPerSession), so one client cannot take every stream
	// the connector allows. Beyond it a POST is answered as JSON (its
	// notifications dropped), or 429 when the client takes only SSE.
	MaxStreamsPerSession int
	// Observer, when set, hears every message in both directions and every
	// session opening and closing. It is called synchronously from many
	// goroutines: it must be quick, must not block, and may keep the event.
	Observer func(TrafficEvent)
	// AllowBatch accepts JSON-RPC batches from sessions that negotiated
	// 2025-03-26, the only revision that has them (mcp-protocol.md §1.3).
	AllowBatch bool
	// BatchInEveryVersion, with AllowBatch, accepts batches whatever revision a session
	// negotiated: the agent bridge, whose documented stdio framing takes batches from any agent.
	BatchInEveryVersion bool
	// StallTimeout is how long a client may leave a full event stream (or
	// stdio output) unread while the server waits to send on it (default
	// DefaultStallTimeout). Then its session ends (reason "stalled"); a
	// POST's own answer stream is closed and its calls cancelled instead.
	StallTimeout time.Duration
}

// Stateful serves one Server with sessions over every transport: Streamable
// HTTP, legacy HTTP+SSE and stdio. It is safe for concurrent use.
type Stateful struct {
	srv  *Server
	opts StatefulOptions

	mu       sync.Mutex
	sessions map[string]*ServerSession
	closed   bool

	stopTasks func() // ends the watch that tells listeners of task changes

	changes changeState // what changed, and the other replicas told (changes.go)
}

// NewStateful returns a stateful front for s. Configure s completely (see
// SessionFeatures.Apply) and Check it before calling.
func NewStateful(s *Server, o StatefulOptions) *Stateful {
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = DefaultStallTimeout
	}
	if o.MaxStreamsPerSession <= 0 {
		o.MaxStreamsPerSession = DefaultMaxStreamsPerSession
	}
	s.listeners = &listeners{set: map[*listener]struct{}{}, max: o.MaxSessions}
	st := &Stateful{srv: s, opts: o, sessions: make(map[string]*ServerSession), stopTasks: func() {}}
	if s.Tasks != nil { // task status changes reach the listen streams that ask
		ls := s.listeners
		st.stopTasks = s.Tasks.Watch("", func(r *tasks.Record) {
			ls.sendTask(r, func() []byte { return s.encodeTask(r, "", true) })
		})
	}
	return st
}

// Server returns the dispatcher this front serves.
func (st *Stateful) Server() *Server { return st.srv }

// StreamReply is what an HTTP transport answers: a complete body, or, when
// Stream is non-nil, a text/event-stream to write event by event (Header
// already says so). The writer must Close the stream when it stops reading,
// whether the stream ended or the client left.
type StreamReply struct {
	Status int
	Header http.Header
	// Body is nil for 202 Accepted and for streams.
	Body   []byte
	Stream EventStream
}

// Event is one server-sent event. An empty Data with an ID is a 2025-11-25
// priming event; Retry, when positive, is the reconnect delay in ms.
type Event struct {
	ID, Name string
	Data     []byte
	Retry    int
}

// EventStream yields server-sent events. Next blocks until the next event,
// returns io.EOF once the stream has ended and ctx.Err() when ctx is done
// (which does not end the stream). Close tells the server the reader is gone;
// it is safe to call more than once. Drain says the server is stopping: the
// stream delivers the answers it owes, answering with an error the calls
// that cannot finish before ctx ends, and then ends (drain.go).
type EventStream interface {
	Next(ctx context.Context) (Event, error)
	Close() error
	Drain(ctx context.Context)
}

// ListChanged tells the clients that the list of kind ("tools", "resources" or "prompts")
// changed: Changed with no version.
func (st *Stateful) ListChanged(kind string) { st.Changed(Change{Kind: kind}) }

// ResourceUpdated tells the clients subscribed to uri that it changed: Changed with no version.
func (st *Stateful) ResourceUpdated(uri string) { st.Changed(Change{Kind: ChangeResource, URI: uri}) }

// tellList sends notifications/<kind>/list_changed to every initialised session that can
// receive it, on its standalone stream (GET, legacy SSE or stdio), and to every 2026-07-28
// subscriptions/listen stream that asked. It sends nothing unless the server declared the
// matching listChanged capability, and never blocks on a slow client.
func (st *Stateful) tellList(kind string) {
	if !st.declaresListChanged(kind) {
		return
	}
	msg := jsonrpc.AppendRequest(nil, jsonrpc.ID{}, "notifications/"+kind+"/list_changed", nil)
	for _, s := range st.liveSessions() {
		s.broadcast(msg)
	}
	st.srv.listeners.send("notifications/"+kind+"/list_changed", nil, func(l *listener) bool { return l.wants(kind) })
}

// tellResource sends notifications/resources/updated for uri to the sessions subscribed to it
// (mcp-protocol.md §4.3), on their standalone streams, and to the listen streams that name it.
func (st *Stateful) tellResource(uri string) {
	msg, err := jsonrpc.EncodeNotification("notifications/resources/updated", struct {
		URI string `json:"uri"`
	}{uri})
	if err != nil {
		return
	}
	for _, s := range st.liveSessions() {
		if s.Subscribed(uri) {
			s.broadcast(msg)
		}
	}
	st.srv.listeners.send("notifications/resources/updated", map[string]any{"uri": uri}, func(l *listener) bool {
		return slices.Contains(l.filter.ResourceSubscriptions, uri)
	})
}

// Sessions returns the live sessions, in no particular order.
func (st *Stateful) Sessions() []*ServerSession { return st.liveSessions() }

// Session returns the live session with id, or nil.
func (st *Stateful) Session(id string) *ServerSession {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sessions[id]
}

// Close ends every session (cancelling its requests and ending its streams)
// and refuses new ones. It is safe to call more than once.
func (st *Stateful) Close() {
	st.mu.Lock()
	st.closed = true
	all := make([]*ServerSession, 0, len(st.sessions))
	for _, s := range st.sessions {
		all = append(all, s)
	}
	st.mu.Unlock()
	for _, s := range all {
		s.end(EndClosed)
	}
	st.stopTasks()
	st.srv.listeners.end()
}

func (st *Stateful) declaresListChanged(kind string) bool {
	c := st.srv.Capabilities
	switch kind {
	case "tools":
		return c.ToolsListChanged && st.srv.Tools != nil
	case "resources":
		return c.ResourcesListChanged && st.srv.Resources != nil
	case "prompts":
		return c.PromptsListChanged && st.srv.Prompts != nil
	}
	return false
}

func (st *Stateful) liveSessions() []*ServerSession {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]*ServerSession, 0, len(st.sessions))
	for _, s := range st.sessions {
		out = append(out, s)
	}
	return out
}

// Package session is the stateful front of an MCP server: it keeps sessions over a transport-free
// [mcp.Server] and serves them on Streamable HTTP (a POST answered as JSON or an SSE stream, a
// GET standalone stream, DELETE), legacy HTTP+SSE and stdio lines. A session has its
// negotiated revision, the client's capabilities, a log level and resource subscriptions; the
// server can ask its client (elicitation, sampling, roots), cancel and drain calls, announce
// list and resource changes (to other replicas too, through a ChangeBus), and show each
// message to a traffic observer. 2026-07-28 requests, which belong to no session, are served
// by the core on the same endpoint.
package session

import (
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/octo-run/octo/mcp"

	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/stream"
)

// This file is the front's public face: options, the replies the HTTP transports produce,
// server-initiated broadcasts and shutdown. The transports live in streamable.go, sse.go and
// stdio.go, sessions in session.go, server→client traffic in outbound.go, the traffic log in
// traffic.go.

// Transport names a session's transport in TrafficEvent and Session.
type Transport string

// The transports a stateful server speaks.
const (
	TransportStreamable Transport = "streamable-http" // POST/GET/DELETE on one path
	TransportSSE        Transport = "sse"             // legacy HTTP+SSE (2024-11-05)
	TransportStdio      Transport = "stdio"           // newline-delimited JSON-RPC
)

// Defaults for Options.
const (
	DefaultIdleTimeout          = 30 * time.Minute
	DefaultMaxSessions          = 10000
	DefaultMaxStreamsPerSession = 16
	// DefaultStallTimeout is how long a full stream's reader may take nothing while a producer
	// waits before the stream is given up.
	DefaultStallTimeout = 30 * time.Second
)

// Errors the stateful server returns.
var (
	// ErrClosed: the Front was closed.
	ErrClosed = errors.New("mcp server closed")
	// ErrSessionEnded: the session ended (DELETE, expiry, Close, EOF) while
	// waiting.
	ErrSessionEnded = errors.New("mcp session ended")
	// ErrClientCapability: the client did not declare the capability a
	// server→client request needs (sampling, elicitation, roots).
	ErrClientCapability = errors.New("client did not declare the capability")
)

// Options configure a Front; the zero value is usable.
type Options struct {
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

// Front serves one Server with sessions over every transport: Streamable
// HTTP, legacy HTTP+SSE and stdio. It is safe for concurrent use.
type Front struct {
	srv  *mcp.Server
	opts Options

	mu       sync.Mutex
	sessions map[string]*Session
	closed   bool

	stopListening func() // ends the listen streams and their watch of task changes (mcp.Server.Listen)

	changes changeState // what changed, and the other replicas told (changes.go)
}

// New returns a stateful front for s. Configure s completely (see
// SessionFeatures.Apply) and Check it before calling.
func New(s *mcp.Server, o Options) *Front {
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
	return &Front{srv: s, opts: o, sessions: make(map[string]*Session), stopListening: s.Listen(o.MaxSessions)}
}

// Server returns the dispatcher this front serves.
func (st *Front) Server() *mcp.Server { return st.srv }

// StreamReply is what an HTTP transport answers: a complete body, or, when
// Stream is non-nil, a text/event-stream to write event by event (Header
// already says so). The writer must Close the stream when it stops reading,
// whether the stream ended or the client left.
type StreamReply struct {
	Status int
	Header http.Header
	// Body is nil for 202 Accepted and for streams.
	Body   []byte
	Stream stream.Stream
}

// ListChanged tells the clients that the list of kind ("tools", "resources" or "prompts")
// changed: Changed with no version.
func (st *Front) ListChanged(kind string) { st.Changed(Change{Kind: kind}) }

// ResourceUpdated tells the clients subscribed to uri that it changed: Changed with no version.
func (st *Front) ResourceUpdated(uri string) { st.Changed(Change{Kind: ChangeResource, URI: uri}) }

// tellList sends notifications/<kind>/list_changed to every initialised session that can
// receive it, on its standalone stream (GET, legacy SSE or stdio), and to every 2026-07-28
// subscriptions/listen stream that asked. It sends nothing unless the server declared the
// matching listChanged capability, and never blocks on a slow client.
func (st *Front) tellList(kind string) {
	if !st.declaresListChanged(kind) {
		return
	}
	msg := jsonrpc.AppendRequest(nil, jsonrpc.ID{}, "notifications/"+kind+"/list_changed", nil)
	for _, s := range st.liveSessions() {
		s.broadcast(msg)
	}
	st.srv.ListChanged(kind)
}

// tellResource sends notifications/resources/updated for uri to the sessions subscribed to it
// (mcp-protocol.md §4.3), on their standalone streams, and to the listen streams that name it.
func (st *Front) tellResource(uri string) {
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
	st.srv.ResourceUpdated(uri)
}

// Sessions returns the live sessions, in no particular order.
func (st *Front) Sessions() []*Session { return st.liveSessions() }

// Session returns the live session with id, or nil.
func (st *Front) Session(id string) *Session {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sessions[id]
}

// Close ends every session (cancelling its requests and ending its streams)
// and refuses new ones. It is safe to call more than once.
func (st *Front) Close() {
	st.mu.Lock()
	st.closed = true
	all := make([]*Session, 0, len(st.sessions))
	for _, s := range st.sessions {
		all = append(all, s)
	}
	st.mu.Unlock()
	for _, s := range all {
		s.end(EndClosed)
	}
	st.stopListening()
}

func (st *Front) declaresListChanged(kind string) bool {
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

func (st *Front) liveSessions() []*Session {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]*Session, 0, len(st.sessions))
	for _, s := range st.sessions {
		out = append(out, s)
	}
	return out
}

package session

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/logsafe"
)

// Direction says which way a message went.
type Direction string

// The directions of TrafficEvent.
const (
	DirIn  Direction = "in"  // client → server
	DirOut Direction = "out" // server → client
)

// TrafficKind says what a TrafficEvent records.
type TrafficKind string

// The kinds of TrafficEvent.
const (
	TrafficSessionOpened TrafficKind = "session-opened"
	TrafficSessionClosed TrafficKind = "session-closed"
	TrafficRequest       TrafficKind = "request"
	TrafficResult        TrafficKind = "result"
	TrafficError         TrafficKind = "error"
	TrafficNotification  TrafficKind = "notification"
	// TrafficInvalid is a client message the server could not accept.
	TrafficInvalid TrafficKind = "invalid"
	// TrafficCancelled is a request whose answer was withheld because the
	// client cancelled it or its session ended.
	TrafficCancelled TrafficKind = "cancelled"
	// TrafficRejected is an HTTP request refused before any of its messages
	// was served: a missing or unknown session, a body that is not JSON, an
	// unsupported MCP-Protocol-Version, a refused batch, a limit.
	TrafficRejected TrafficKind = "rejected"
	// TrafficProblem is a problem of the server's own settings, found when its file was read
	// (two tools of one name, a schema that is no JSON object): it serves an older version,
	// or not at all, until it is mended.
	TrafficProblem TrafficKind = "problem"
	// TrafficNote is what a server says of an answer it gave, beside it (mcp-mock: which of a
	// tool's answers that vary answered the call).
	TrafficNote TrafficKind = "note"
)

// EndReason says why a session closed.
type EndReason string

// The reasons a session ends.
const (
	EndDeleted      EndReason = "deleted"      // the client sent DELETE
	EndExpired      EndReason = "expired"      // idle for longer than IdleTimeout
	EndClosed       EndReason = "closed"       // Front.Close or Session.Close
	EndEOF          EndReason = "eof"          // stdin reached its end or stdout failed
	EndDisconnected EndReason = "disconnected" // the legacy SSE stream went away
	EndStalled      EndReason = "stalled"      // the client left its full stream unread (StallTimeout)
	EndEvicted      EndReason = "evicted"      // idle the longest when a new session needed its place
)

// TrafficEvent is one entry of the traffic log (Options.Observer).
type TrafficEvent struct {
	Time      time.Time
	Session   string
	Transport Transport
	Direction Direction // "" for session events
	Kind      TrafficKind
	// Method is the request's or notification's method; for a result or
	// error, the method of the request it answers.
	Method string
	ID     jsonrpc.ID
	// Summary is a short line for humans: "tools/call get_weather",
	// "result of resources/read docs://readme", "notifications/progress".
	Summary string
	// Message is the full JSON of the message; nil for session events.
	Message json.RawMessage
	// Reason is set on TrafficSessionClosed.
	Reason EndReason
	// Status is the HTTP status of a TrafficRejected request.
	Status int
	// Code is the JSON-RPC error code a TrafficRejected request got.
	Code int
	// Version is the revision a request without a session came with (2026-07-28: its
	// MCP-Protocol-Version header, else its _meta's), and of the answer to it.
	Version string
}

// observing reports whether anyone listens, so callers skip building events.
func (st *Front) observing() bool { return st.opts.Observer != nil }

// observe hands ev to the observer; s is nil for a request that names no
// live session, whose ev carries its Transport.
func (st *Front) observe(s *Session, ev TrafficEvent) {
	if st.opts.Observer == nil {
		return
	}
	ev.Time = time.Now()
	if s != nil {
		ev.Session, ev.Transport = s.id, s.transport
	}
	st.opts.Observer(logSafeEvent(ev))
}

// refuse answers an HTTP request of transport t refused before any of its
// messages was served, and logs it: these are what a developer debugging a
// client against the server needs to see. The session is the one the
// request names, when it is live.
func (st *Front) refuse(in mcp.HTTPRequest, t Transport, status int, id jsonrpc.ID, e *jsonrpc.Error) StreamReply {
	r := jsonReply(status, jsonrpc.AppendError(nil, id, e))
	if st.opts.Observer == nil {
		return r
	}
	named := in.Header.Get(mcp.HeaderSessionID)
	if t == TransportSSE {
		named = in.Query.Get("sessionId")
	}
	s := st.lookup(named, t)
	summary := "rejected (HTTP " + strconv.Itoa(status) + "): " + e.Message
	if s == nil && named != "" {
		summary += " [session " + strconv.Quote(logsafe.Clip(named)) + "]"
	}
	st.observe(s, TrafficEvent{Direction: DirIn, Kind: TrafficRejected, Transport: t, ID: id,
		Summary: summary, Message: r.Body, Status: status, Code: e.Code})
	return r
}

// logSafeEvent escapes what a client wrote before it reaches a log: a
// method, tool name or URI holding a newline or a terminal escape would
// otherwise forge log lines or drive the reader's terminal.
func logSafeEvent(ev TrafficEvent) TrafficEvent {
	ev.Method = logsafe.String(logsafe.Clip(ev.Method))
	ev.Summary = logsafe.String(ev.Summary)
	ev.Version = logsafe.String(logsafe.Clip(ev.Version))
	ev.Message = logsafe.JSON(ev.Message)
	return ev
}

// observeMessage logs a message that is not the answer to a known request.
func (st *Front) observeMessage(s *Session, dir Direction, m *jsonrpc.Message, raw []byte) {
	if st.opts.Observer == nil {
		return
	}
	ev := TrafficEvent{Direction: dir, Method: m.Method, ID: m.ID, Message: raw}
	switch m.Kind {
	case jsonrpc.KindRequest:
		ev.Kind, ev.Summary = TrafficRequest, summarize(m.Method, m.Params)
	case jsonrpc.KindNotification:
		ev.Kind, ev.Summary = TrafficNotification, summarize(m.Method, m.Params)
	case jsonrpc.KindResponse:
		ev.Kind, ev.Summary = TrafficResult, "result"
		if m.Error != nil {
			ev.Kind, ev.Summary = TrafficError, "error"
		}
	default:
		ev.Kind, ev.Summary = TrafficInvalid, "invalid message: "+m.Error.Message
	}
	st.observe(s, ev)
}

// observeAnswer logs the answer to a request summarized as what.
func (st *Front) observeAnswer(s *Session, dir Direction, method, what string, id jsonrpc.ID, isErr bool, raw []byte) {
	if st.opts.Observer == nil {
		return
	}
	ev := TrafficEvent{Direction: dir, Kind: TrafficResult, Method: method, ID: id,
		Summary: "result of " + what, Message: raw}
	if isErr {
		ev.Kind, ev.Summary = TrafficError, "error of "+what
	}
	st.observe(s, ev)
}

// summarize names a request by its method and the one parameter that tells
// calls apart: the tool or prompt name, or the resource URI.
func summarize(method string, params []byte) string {
	var key string
	switch method {
	case "tools/call", "prompts/get":
		key = "name"
	case "resources/read", "resources/subscribe", "resources/unsubscribe", "notifications/resources/updated":
		key = "uri"
	case "logging/setLevel", "notifications/message":
		key = "level"
	case "notifications/elicitation/complete":
		key = "elicitationId"
	default:
		return logsafe.Clip(method)
	}
	var val string
	jsonscan.EachMember(params, func(k, v []byte) bool {
		if string(jsonscan.KeyText(k)) != key {
			return true
		}
		val, _ = jsonscan.Unquote(v)
		return false
	})
	if val == "" {
		return logsafe.Clip(method)
	}
	return method + " " + logsafe.Clip(val)
}

// rawMessage re-encodes a decoded message for the traffic log when its
// original text is not at hand (an element of a batch).
func rawMessage(m *jsonrpc.Message) []byte {
	switch m.Kind {
	case jsonrpc.KindRequest, jsonrpc.KindNotification:
		return jsonrpc.AppendRequest(nil, m.ID, m.Method, m.Params)
	case jsonrpc.KindResponse:
		return jsonrpc.AppendResponse(nil, jsonrpc.Response{ID: m.ID, Result: m.Result, Error: m.Error})
	}
	if m.Error != nil {
		return jsonrpc.AppendError(nil, m.ID, m.Error)
	}
	return nil
}

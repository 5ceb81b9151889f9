package mcp

import (
	"encoding/json"
	"time"
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
)

// EndReason says why a session closed.
type EndReason string

// The reasons a session ends.
const (
	EndDeleted      EndReason = "deleted"      // the client sent DELETE
	EndExpired      EndReason = "expired"      // idle for longer than IdleTimeout
	EndClosed       EndReason = "closed"       // Stateful.Close or ServerSession.Close
	EndEOF          EndReason = "eof"          // stdin reached its end or stdout failed
	EndDisconnected EndReason = "disconnected" // the legacy SSE stream went away
)

// TrafficEvent is one entry of the traffic log (StatefulOptions.Observer).
type TrafficEvent struct {
	Time      time.Time
	Session   string
	Transport Transport
	Direction Direction // "" for session events
	Kind      TrafficKind
	// Method is the request's or notification's method; for a result or
	// error, the method of the request it answers.
	Method string
	ID     ID
	// Summary is a short line for humans: "tools/call get_weather",
	// "result of resources/read docs://readme", "notifications/progress".
	Summary string
	// Message is the full JSON of the message; nil for session events.
	Message json.RawMessage
	// Reason is set on TrafficSessionClosed.
	Reason EndReason
}

// observing reports whether anyone listens, so callers skip building events.
func (st *Stateful) observing() bool { return st.opts.Observer != nil }

func (st *Stateful) observe(s *ServerSession, ev TrafficEvent) {
	if st.opts.Observer == nil {
		return
	}
	ev.Time = time.Now()
	ev.Session, ev.Transport = s.id, s.transport
	st.opts.Observer(ev)
}

// observeMessage logs a message that is not the answer to a known request.
func (st *Stateful) observeMessage(s *ServerSession, dir Direction, m *Message, raw []byte) {
	if st.opts.Observer == nil {
		return
	}
	ev := TrafficEvent{Direction: dir, Method: m.Method, ID: m.ID, Message: raw}
	switch m.Kind {
	case KindRequest:
		ev.Kind, ev.Summary = TrafficRequest, summarize(m.Method, m.Params)
	case KindNotification:
		ev.Kind, ev.Summary = TrafficNotification, summarize(m.Method, m.Params)
	case KindResponse:
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
func (st *Stateful) observeAnswer(s *ServerSession, dir Direction, method, what string, id ID, isErr bool, raw []byte) {
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
	default:
		return method
	}
	var val string
	eachMember(params, func(k, v []byte) bool {
		if string(keyText(k)) != key {
			return true
		}
		val, _ = unquote(v)
		return false
	})
	if val == "" {
		return method
	}
	if len(val) > 200 {
		val = val[:200] + "…"
	}
	return method + " " + val
}

// rawMessage re-encodes a decoded message for the traffic log when its
// original text is not at hand (an element of a batch).
func rawMessage(m *Message) []byte {
	switch m.Kind {
	case KindRequest, KindNotification:
		return AppendRequest(nil, m.ID, m.Method, m.Params)
	case KindResponse:
		return AppendResponse(nil, Response{ID: m.ID, Result: m.Result, Error: m.Error})
	}
	if m.Error != nil {
		return AppendError(nil, m.ID, m.Error)
	}
	return nil
}

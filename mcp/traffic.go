package mcp

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
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
	EndStalled      EndReason = "stalled"      // the client left its full stream unread (StallTimeout)
	EndEvicted      EndReason = "evicted"      // idle the longest when a new session needed its place
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
func (st *Stateful) observing() bool { return st.opts.Observer != nil }

// observe hands ev to the observer; s is nil for a request that names no
// live session, whose ev carries its Transport.
func (st *Stateful) observe(s *ServerSession, ev TrafficEvent) {
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
func (st *Stateful) refuse(in HTTPRequest, t Transport, status int, id jsonrpc.ID, e *jsonrpc.Error) StreamReply {
	r := jsonReply(status, jsonrpc.AppendError(nil, id, e))
	if st.opts.Observer == nil {
		return r
	}
	named := in.Header.Get(HeaderSessionID)
	if t == TransportSSE {
		named = in.Query.Get("sessionId")
	}
	s := st.lookup(named, t)
	summary := "rejected (HTTP " + strconv.Itoa(status) + "): " + e.Message
	if s == nil && named != "" {
		summary += " [session " + strconv.Quote(clip(named)) + "]"
	}
	st.observe(s, TrafficEvent{Direction: DirIn, Kind: TrafficRejected, Transport: t, ID: id,
		Summary: summary, Message: r.Body, Status: status, Code: e.Code})
	return r
}

// logSafeEvent escapes what a client wrote before it reaches a log: a
// method, tool name or URI holding a newline or a terminal escape would
// otherwise forge log lines or drive the reader's terminal.
func logSafeEvent(ev TrafficEvent) TrafficEvent {
	ev.Method = LogSafe(clip(ev.Method))
	ev.Summary = LogSafe(ev.Summary)
	ev.Version = LogSafe(clip(ev.Version))
	ev.Message = logJSON(ev.Message)
	return ev
}

// maxSummaryValue bounds a client string quoted in a summary.
const maxSummaryValue = 200

// clip shortens s to maxSummaryValue bytes, on a rune boundary.
func clip(s string) string {
	if len(s) <= maxSummaryValue {
		return s
	}
	i := maxSummaryValue
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// LogSafe returns s fit for one log line: control characters, separators,
// bidirectional overrides and other runes that do not print are written as
// Go escapes (\n, \x1b, \u202e) and bytes that are not UTF-8 as \xff. A
// string that needs none of it comes back as is.
func LogSafe(s string) string {
	if i := firstUnsafe(s, utf8.DecodeRuneInString); i >= 0 {
		return escapeLog(s, i)
	}
	return s
}

// firstUnsafe returns the offset of the first byte of s that cannot be
// written to a log line as it is (a rune that does not print, or a byte
// that is not UTF-8), or -1.
func firstUnsafe[T string | []byte](s T, decode func(T) (rune, int)) int {
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < utf8.RuneSelf && c != 0x7f {
			i++
			continue
		}
		r, size := decode(s[i:])
		if r == utf8.RuneError && size == 1 || !unicode.IsPrint(r) {
			return i
		}
		i += size
	}
	return -1
}

// escapeLog escapes s from byte i on, as LogSafe describes.
func escapeLog(s string, i int) string {
	b := make([]byte, 0, len(s)+16)
	b = append(b, s[:i]...)
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, '\\', 'x', jsonscan.HexDigits[s[i]>>4], jsonscan.HexDigits[s[i]&0xf])
		case r == ' ' || unicode.IsPrint(r):
			b = append(b, s[i:i+size]...)
		default:
			q := strconv.QuoteRuneToASCII(r) // '\n', '\x1b', '\u202e'
			b = append(b, q[1:len(q)-1]...)
		}
		i += size
	}
	return string(b)
}

// logJSON returns a JSON message as one line of printable, valid UTF-8:
// whitespace between tokens (the only place a raw newline can be) becomes
// a space, a rune that does not print (it can only be inside a string)
// becomes a \u escape, and bytes that are not UTF-8 become U+FFFD, so the
// text stays the same JSON value.
func logJSON(msg []byte) []byte {
	if i := firstUnsafe(msg, utf8.DecodeRune); i >= 0 {
		return escapeJSONLine(msg, i)
	}
	return msg
}

func escapeJSONLine(msg []byte, i int) []byte {
	b := make([]byte, 0, len(msg)+16)
	b = append(b, msg[:i]...)
	for i < len(msg) {
		r, size := utf8.DecodeRune(msg[i:])
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b = append(b, ' ')
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == ' ' || unicode.IsPrint(r):
			b = append(b, msg[i:i+size]...)
		default:
			units := []rune{r}
			if r > 0xffff {
				hi, lo := utf16.EncodeRune(r)
				units = []rune{hi, lo}
			}
			for _, u := range units {
				b = append(b, '\\', 'u', jsonscan.HexDigits[u>>12&0xf], jsonscan.HexDigits[u>>8&0xf], jsonscan.HexDigits[u>>4&0xf], jsonscan.HexDigits[u&0xf])
			}
		}
		i += size
	}
	return b
}

// observeMessage logs a message that is not the answer to a known request.
func (st *Stateful) observeMessage(s *ServerSession, dir Direction, m *jsonrpc.Message, raw []byte) {
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
func (st *Stateful) observeAnswer(s *ServerSession, dir Direction, method, what string, id jsonrpc.ID, isErr bool, raw []byte) {
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
		return clip(method)
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
		return clip(method)
	}
	return method + " " + clip(val)
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

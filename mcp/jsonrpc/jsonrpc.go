// Package jsonrpc is the wire of the Model Context Protocol: JSON-RPC 2.0 messages as MCP
// accepts them (ids kept as their exact text, a string or an integer, never null), their
// decoding with every refusal named, and the encoding of answers, requests and notifications,
// a large result framed in place rather than copied. It knows nothing of methods' meaning,
// sessions or transports.
package jsonrpc

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
)

// Version is the only value the "jsonrpc" member may hold.
const Version = "2.0"

// JSON-RPC error codes MCP servers use (mcp-protocol.md §1.2).
const (
	CodeParseError       = -32700 // the body is not valid JSON
	CodeInvalidRequest   = -32600 // valid JSON, but not a JSON-RPC message MCP accepts
	CodeMethodNotFound   = -32601 // unknown method, or a capability the server lacks
	CodeInvalidParams    = -32602 // bad params, unknown tool or prompt, missing argument
	CodeInternalError    = -32603 // a server failure
	CodeResourceNotFound = -32002 // resources/read on an unknown URI (MCP, not LSP)
)

// Error is a JSON-RPC error object; a provider may return one to choose the
// code and message a client sees.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// NewError returns an error with a formatted message.
func NewError(code int, format string, args ...any) *Error {
	if len(args) == 0 {
		return &Error{Code: code, Message: format}
	}
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Error implements error.
func (e *Error) Error() string {
	return "json-rpc error " + strconv.Itoa(e.Code) + ": " + e.Message
}

// ID is a request id kept as its exact JSON text (a string or an integer), so
// it is echoed byte for byte. The zero ID means "no id". IDs are comparable, so
// a stateful server can key in-flight and pending tables by them.
type ID struct{ raw string }

// StringID returns the id "s".
func StringID(s string) ID { return ID{string(jsonscan.AppendString(nil, s))} }

// IntID returns the integer id n.
func IntID(n int64) ID { return ID{strconv.FormatInt(n, 10)} }

// ParseID checks that raw is a JSON string or integer and keeps it verbatim.
// The error is an *Error with code -32600.
func ParseID(raw []byte) (ID, error) {
	id, err := parseID(raw)
	if err != nil {
		return ID{}, err
	}
	return id, nil
}

func parseID(raw []byte) (ID, *Error) {
	if len(raw) == 0 {
		return ID{}, NewError(CodeInvalidRequest, "Invalid Request: empty id")
	}
	switch c := raw[0]; {
	case c == '"':
		// An id is echoed byte for byte, so one that is not UTF-8 (which
		// encoding/json lets through) would make the answer invalid JSON.
		if !utf8.Valid(raw) {
			return ID{}, NewError(CodeInvalidRequest, "Invalid Request: id is not valid UTF-8 (JSON text must be UTF-8)")
		}
		if _, ok := jsonscan.Unquote(raw); !ok {
			return ID{}, NewError(CodeInvalidRequest, "Invalid Request: id is not a valid JSON string")
		}
		return ID{string(raw)}, nil
	case c == 'n' && string(raw) == "null":
		return ID{}, NewError(CodeInvalidRequest, "Invalid Request: id must not be null")
	case c == '-' || (c >= '0' && c <= '9'):
		if !isInteger(raw) {
			return ID{}, NewError(CodeInvalidRequest, "Invalid Request: id must be a string or an integer, got %s", raw)
		}
		return ID{string(raw)}, nil
	}
	return ID{}, NewError(CodeInvalidRequest, "Invalid Request: id must be a string or an integer, got %s", jsonscan.Kind(raw))
}

func isInteger(raw []byte) bool {
	i := 0
	if raw[0] == '-' {
		i++
	}
	if i == len(raw) || (raw[i] == '0' && i+1 < len(raw)) {
		return false
	}
	for ; i < len(raw); i++ {
		if raw[i] < '0' || raw[i] > '9' {
			return false
		}
	}
	return true
}

// IsZero reports whether the id is absent.
func (id ID) IsZero() bool { return id.raw == "" }

// String returns the id's JSON text, e.g. `"abc"` or `7`; "" for no id.
func (id ID) String() string { return id.raw }

// MarshalJSON writes the id verbatim; no id marshals as null.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.raw == "" {
		return []byte("null"), nil
	}
	return []byte(id.raw), nil
}

// UnmarshalJSON accepts a JSON string or integer.
func (id *ID) UnmarshalJSON(b []byte) error {
	v, err := parseID(b)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// Kind says what a decoded message is.
type Kind uint8

// The kinds of message Decode tells apart.
const (
	KindInvalid      Kind = iota // not a JSON-RPC message; Message.Error says why
	KindRequest                  // method and id: must be answered
	KindNotification             // method, no id: must not be answered
	KindResponse                 // result or error for a request the server sent
)

// Request is a request or, with a zero ID, a notification.
type Request struct {
	ID     ID
	Method string
	// Params is the raw params object; Decode turns absent or null into {}.
	Params json.RawMessage
}

// IsNotification reports whether the request carries no id.
func (r *Request) IsNotification() bool { return r.ID.IsZero() }

// Message is one decoded JSON-RPC message.
type Message struct {
	Kind Kind
	Request
	// Result is a result response's result.
	Result json.RawMessage
	// Error is an error response's error or, for KindInvalid, why the message
	// was refused (answer it with Error and ID, which is zero if unreadable).
	Error *Error
}

// Response is the answer to one request: Result or Error.
type Response struct {
	ID     ID
	Result json.RawMessage
	Error  *Error
}

// MarshalJSON encodes the response as AppendResponse does.
func (r Response) MarshalJSON() ([]byte, error) { return AppendResponse(nil, r), nil }

var EmptyObject = json.RawMessage("{}")

// AppendResponse appends r as a JSON-RPC response: an unknown id is omitted
// (2025-11-25 schema), an empty result is {}.
func AppendResponse(dst []byte, r Response) []byte {
	if r.Error != nil {
		return AppendError(dst, r.ID, r.Error)
	}
	return AppendResult(dst, r.ID, r.Result)
}

func appendHead(dst []byte, id ID) []byte {
	dst = append(dst, `{"jsonrpc":"2.0"`...)
	if !id.IsZero() {
		dst = append(dst, `,"id":`...)
		dst = append(dst, id.raw...)
	}
	return dst
}

// AppendResult appends a result response; nil, empty or null result is {}.
func AppendResult(dst []byte, id ID, result []byte) []byte {
	dst = appendHead(dst, id)
	dst = append(dst, `,"result":`...)
	if jsonscan.IsNull(result) {
		result = EmptyObject
	}
	dst = append(dst, result...)
	return append(dst, '}')
}

// AppendError appends an error response. Data that cannot be encoded is left
// out rather than failing the whole answer.
func AppendError(dst []byte, id ID, e *Error) []byte {
	dst = appendHead(dst, id)
	dst = append(dst, `,"error":{"code":`...)
	dst = strconv.AppendInt(dst, int64(e.Code), 10)
	dst = append(dst, `,"message":`...)
	dst = jsonscan.AppendString(dst, e.Message)
	if e.Data != nil {
		if data, err := json.Marshal(e.Data); err == nil {
			dst = append(dst, `,"data":`...)
			dst = append(dst, data...)
		}
	}
	return append(dst, '}', '}')
}

// AppendRequest appends a request (or, with a zero id, a notification) the
// server sends to the client; empty params are left out.
func AppendRequest(dst []byte, id ID, method string, params []byte) []byte {
	dst = appendHead(dst, id)
	dst = append(dst, `,"method":`...)
	dst = jsonscan.AppendString(dst, method)
	if !jsonscan.IsNull(params) {
		dst = append(dst, `,"params":`...)
		dst = append(dst, params...)
	}
	return append(dst, '}')
}

// EncodeNotification encodes a notification with params marshalled by
// encoding/json (json.RawMessage passes through).
func EncodeNotification(method string, params any) ([]byte, error) {
	var raw []byte
	if params != nil {
		var err error
		if raw, err = json.Marshal(params); err != nil {
			return nil, fmt.Errorf("encode %s params: %w", method, err)
		}
	}
	return AppendRequest(nil, ID{}, method, raw), nil
}

// PeekID is the id of body when it is one JSON object with a valid id, else the zero ID: what an
// error about the request as a whole (a transport refusal before it is decoded) answers with,
// so the client can tell which request failed. Nothing but the id is checked.
func PeekID(body []byte) ID {
	if i := firstNonSpace(body); i < 0 || body[i] != '{' {
		return ID{}
	}
	raw, ok := jsonscan.Member(body, "id")
	if !ok {
		return ID{}
	}
	id, err := parseID(raw)
	if err != nil {
		return ID{}
	}
	return id
}

func firstNonSpace(b []byte) int {
	for i, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return i
		}
	}
	return -1
}

package jsonrpc

import (
	"encoding/json"
	"errors"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/runtime/jsonv"
)

// MaxDepth is how deeply a JSON-RPC body may nest objects and arrays. Real MCP
// traffic stays far below it; refusing deeper bodies up front keeps every later
// (recursive) decode of params and arguments bounded.
const MaxDepth = 64

// Decode reads one HTTP body or stdio line: a single message or, when batch is
// true, a JSON array of them. err is set only when nothing can be answered
// message by message: the body is not JSON (-32700), nests deeper than
// MaxDepth, or is an empty batch (-32600). Messages that are JSON but not
// valid JSON-RPC come back as KindInvalid with the reason in Message.Error.
func Decode(body []byte) (msgs []Message, batch bool, err *Error) {
	depth, ok := jsonv.Scan(body)
	if !ok {
		return nil, false, syntaxError(body)
	}
	if depth > MaxDepth {
		return nil, false, NewError(CodeInvalidRequest,
			"Invalid Request: JSON nested deeper than %d levels at offset %d", MaxDepth, jsonscan.NestingOffset(body, MaxDepth))
	}
	start := jsonscan.SkipSpace(body, 0)
	if body[start] != '[' {
		return []Message{decodeOne(body[start:])}, false, nil
	}
	jsonscan.EachElement(body[start:], func(val []byte) {
		msgs = append(msgs, decodeOne(val))
	})
	if len(msgs) == 0 {
		return nil, true, NewError(CodeInvalidRequest, "Invalid Request: empty batch")
	}
	return msgs, true, nil
}

func syntaxError(body []byte) *Error {
	if len(body) == jsonscan.SkipSpace(body, 0) {
		return NewError(CodeParseError, "Parse error: empty body")
	}
	var v json.RawMessage
	err := json.Unmarshal(body, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return NewError(CodeParseError, "Parse error: %s at offset %d", se.Error(), se.Offset)
	}
	if err != nil {
		return NewError(CodeParseError, "Parse error: %s", err.Error())
	}
	return NewError(CodeParseError, "Parse error: invalid JSON")
}

// envelope holds the raw members of one message; absent members are nil.
type envelope struct {
	jsonrpc, id, method, params, result, err []byte
}

func decodeOne(raw []byte) (m Message) {
	var env envelope
	isObject := jsonscan.EachMember(raw, func(key, val []byte) bool {
		switch string(jsonscan.KeyText(key)) {
		case "jsonrpc":
			env.jsonrpc = val
		case "id":
			env.id = val
		case "method":
			env.method = val
		case "params":
			env.params = val
		case "result":
			env.result = val
		case "error":
			env.err = val
		}
		return true
	})
	if !isObject {
		return invalid(ID{}, "Invalid Request: expected a JSON object, got %s", jsonscan.Kind(raw))
	}
	if env.id != nil && !(env.method == nil && env.err != nil && string(env.id) == "null") {
		id, perr := parseID(env.id)
		if perr != nil {
			return Message{Kind: KindInvalid, Error: perr}
		}
		m.ID = id
	}
	if v, ok := jsonscan.Unquote(env.jsonrpc); !ok || v != Version {
		if env.jsonrpc == nil {
			return invalid(m.ID, `Invalid Request: missing "jsonrpc": "2.0"`)
		}
		return invalid(m.ID, `Invalid Request: "jsonrpc" must be "2.0"`)
	}
	if env.method != nil {
		return decodeCall(m, env)
	}
	if env.result != nil || env.err != nil {
		return decodeResponse(m, env)
	}
	return invalid(m.ID, `Invalid Request: missing "method"`)
}

func invalid(id ID, format string, args ...any) Message {
	m := Message{Kind: KindInvalid, Error: NewError(CodeInvalidRequest, format, args...)}
	m.ID = id
	return m
}

func decodeCall(m Message, env envelope) Message {
	method, ok := knownMethod(env.method)
	if !ok {
		method, ok = jsonscan.Unquote(env.method)
	}
	if !ok {
		return invalid(m.ID, `Invalid Request: "method" must be a string, got %s`, jsonscan.Kind(env.method))
	}
	m.Method = method
	switch {
	case jsonscan.IsNull(env.params):
		m.Params = EmptyObject
	case env.params[0] == '{':
		m.Params = env.params
	default:
		return invalid(m.ID, `Invalid Request: "params" must be an object, got %s`, jsonscan.Kind(env.params))
	}
	m.Kind = KindRequest
	if m.ID.IsZero() {
		m.Kind = KindNotification
	}
	return m
}

// knownMethods are the method names clients send most, each kept once (InternMethods): a
// request naming one costs no string of its own.
var knownMethods = map[string]string{}

// InternMethods adds method names to those a decoded request shares instead of holding a copy
// of its own. Call it from init: the table is read without a lock.
func InternMethods(names ...string) {
	for _, name := range names {
		knownMethods[`"`+name+`"`] = name
	}
}

// knownMethod returns the method a raw JSON string names when it is one of knownMethods,
// written without escapes.
func knownMethod(raw []byte) (string, bool) {
	name, ok := knownMethods[string(raw)]
	return name, ok
}

func decodeResponse(m Message, env envelope) Message {
	if env.result != nil && env.err != nil {
		return invalid(m.ID, `Invalid Request: a response has "result" or "error", not both`)
	}
	if env.result != nil {
		if m.ID.IsZero() {
			return invalid(m.ID, `Invalid Request: a result response needs an "id"`)
		}
		m.Kind, m.Result = KindResponse, env.result
		return m
	}
	var e struct {
		Code    *int            `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if json.Unmarshal(env.err, &e) != nil || e.Code == nil || e.Message == nil {
		return invalid(m.ID, `Invalid Request: "error" must be an object with an integer "code" and a string "message"`)
	}
	m.Kind = KindResponse
	m.Error = &Error{Code: *e.Code, Message: *e.Message}
	if !jsonscan.IsNull(e.Data) {
		m.Error.Data = e.Data
	}
	return m
}

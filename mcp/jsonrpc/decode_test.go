package jsonrpc_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/octo-run/octo/mcp/jsonrpc"
)

func TestDecodeSingle(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		kind     jsonrpc.Kind
		id       string // raw id text, "" for none
		method   string
		params   string
		errCode  int
		errMatch string
	}{
		{name: "a request keeps its string id and params", body: `{"jsonrpc":"2.0","id":"req-7","method":"tools/list","params":{"cursor":"x"}}`,
			kind: jsonrpc.KindRequest, id: `"req-7"`, method: "tools/list", params: `{"cursor":"x"}`},
		{name: "a request keeps its integer id", body: ` {"id":7,"method":"ping","jsonrpc":"2.0"} `,
			kind: jsonrpc.KindRequest, id: `7`, method: "ping", params: `{}`},
		{name: "absent params become an empty object", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
			kind: jsonrpc.KindRequest, id: `1`, method: "ping", params: `{}`},
		{name: "null params become an empty object", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`,
			kind: jsonrpc.KindRequest, id: `1`, method: "ping", params: `{}`},
		{name: "a message without id is a notification", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			kind: jsonrpc.KindNotification, method: "notifications/initialized", params: `{}`},
		{name: "keys are matched case-sensitively", body: `{"jsonrpc":"2.0","ID":5,"Method":"x","method":"ping"}`,
			kind: jsonrpc.KindNotification, method: "ping", params: `{}`},
		{name: "escaped keys are understood", body: `{"jsonrpc":"2.0","\u0069d":3,"method":"ping"}`,
			kind: jsonrpc.KindRequest, id: `3`, method: "ping", params: `{}`},
		{name: "unknown members are ignored", body: `{"jsonrpc":"2.0","id":1,"method":"ping","extra":{"a":[1,2]}}`,
			kind: jsonrpc.KindRequest, id: `1`, method: "ping", params: `{}`},
		{name: "a result from the client is a response", body: `{"jsonrpc":"2.0","id":"s-1","result":{"roots":[]}}`,
			kind: jsonrpc.KindResponse, id: `"s-1"`},
		{name: "an error from the client is a response", body: `{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"no"}}`,
			kind: jsonrpc.KindResponse, id: `4`},
		{name: "an error response may have a null id", body: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
			kind: jsonrpc.KindResponse},
		{name: "a null id is an invalid request", body: `{"jsonrpc":"2.0","id":null,"method":"ping"}`,
			kind: jsonrpc.KindInvalid, errCode: jsonrpc.CodeInvalidRequest, errMatch: "id must not be null"},
		{name: "a float id is an invalid request", body: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
			kind: jsonrpc.KindInvalid, errCode: jsonrpc.CodeInvalidRequest, errMatch: "id must be a string or an integer"},
		{name: "an object id is an invalid request", body: `{"jsonrpc":"2.0","id":{},"method":"ping"}`,
			kind: jsonrpc.KindInvalid, errCode: jsonrpc.CodeInvalidRequest, errMatch: "got object"},
		{name: "a boolean id is an invalid request", body: `{"jsonrpc":"2.0","id":false,"method":"ping"}`,
			kind: jsonrpc.KindInvalid, errCode: jsonrpc.CodeInvalidRequest, errMatch: "got boolean"},
		{name: "a wrong jsonrpc version is invalid and keeps the id", body: `{"jsonrpc":"1.0","id":9,"method":"ping"}`,
			kind: jsonrpc.KindInvalid, id: `9`, errCode: jsonrpc.CodeInvalidRequest, errMatch: `"jsonrpc" must be "2.0"`},
		{name: "a missing jsonrpc member is invalid", body: `{"id":9,"method":"ping"}`,
			kind: jsonrpc.KindInvalid, id: `9`, errCode: jsonrpc.CodeInvalidRequest, errMatch: `missing "jsonrpc"`},
		{name: "array params are invalid and say so", body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":["x"]}`,
			kind: jsonrpc.KindInvalid, id: `2`, errCode: jsonrpc.CodeInvalidRequest, errMatch: `"params" must be an object, got array`},
		{name: "string params are invalid", body: `{"jsonrpc":"2.0","id":2,"method":"ping","params":"x"}`,
			kind: jsonrpc.KindInvalid, id: `2`, errCode: jsonrpc.CodeInvalidRequest, errMatch: `"params" must be an object, got string`},
		{name: "a numeric method is invalid", body: `{"jsonrpc":"2.0","id":2,"method":5}`,
			kind: jsonrpc.KindInvalid, id: `2`, errCode: jsonrpc.CodeInvalidRequest, errMatch: `"method" must be a string, got number`},
		{name: "an object without method is invalid", body: `{"jsonrpc":"2.0","id":2}`,
			kind: jsonrpc.KindInvalid, id: `2`, errCode: jsonrpc.CodeInvalidRequest, errMatch: `missing "method"`},
		{name: "a response with result and error is invalid", body: `{"jsonrpc":"2.0","id":2,"result":{},"error":{"code":1,"message":"x"}}`,
			kind: jsonrpc.KindInvalid, id: `2`, errCode: jsonrpc.CodeInvalidRequest, errMatch: "not both"},
		{name: "a malformed error member is invalid", body: `{"jsonrpc":"2.0","id":2,"error":{"code":"x"}}`,
			kind: jsonrpc.KindInvalid, id: `2`, errCode: jsonrpc.CodeInvalidRequest, errMatch: `integer "code"`},
		{name: "a bare string is invalid", body: `"ping"`,
			kind: jsonrpc.KindInvalid, errCode: jsonrpc.CodeInvalidRequest, errMatch: "expected a JSON object, got string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, batch, err := jsonrpc.Decode([]byte(tt.body))
			if err != nil || batch || len(msgs) != 1 {
				t.Fatalf("Decode = %d msgs, batch %v, err %v; want one message", len(msgs), batch, err)
			}
			m := msgs[0]
			if m.Kind != tt.kind || m.ID.String() != tt.id || m.Method != tt.method || string(m.Params) != tt.params {
				t.Fatalf("got kind %d id %q method %q params %s; want kind %d id %q method %q params %s",
					m.Kind, m.ID, m.Method, m.Params, tt.kind, tt.id, tt.method, tt.params)
			}
			if tt.kind != jsonrpc.KindInvalid {
				return
			}
			if m.Error == nil || m.Error.Code != tt.errCode || !strings.Contains(m.Error.Message, tt.errMatch) {
				t.Fatalf("error = %+v; want code %d containing %q", m.Error, tt.errCode, tt.errMatch)
			}
		})
	}
}

func TestDecodeRefusesWholeBodies(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		code    int
		message string
	}{
		{"an empty body is a parse error", "", jsonrpc.CodeParseError, "Parse error: empty body"},
		{"blank space is a parse error", " \n", jsonrpc.CodeParseError, "Parse error: empty body"},
		{"truncated JSON is a parse error with its offset", `{"jsonrpc":"2.0",`, jsonrpc.CodeParseError,
			"Parse error: unexpected end of JSON input at offset 17"},
		{"trailing garbage is a parse error", `{} x`, jsonrpc.CodeParseError,
			"Parse error: invalid character 'x' after top-level value at offset 4"},
		{"an empty batch is an invalid request", `[ ]`, jsonrpc.CodeInvalidRequest, "Invalid Request: empty batch"},
		{"nesting past the limit is refused at its offset", strings.Repeat("[", 65) + strings.Repeat("]", 65),
			jsonrpc.CodeInvalidRequest, "Invalid Request: JSON nested deeper than 64 levels at offset 64"},
		{"deep nesting inside params is refused", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":` +
			strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}}`, jsonrpc.CodeInvalidRequest,
			"Invalid Request: JSON nested deeper than 64 levels at offset 113"},
		{"very deep invalid JSON is still a parse error", strings.Repeat("[", 200000), jsonrpc.CodeParseError, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, _, err := jsonrpc.Decode([]byte(tt.body))
			if err == nil || msgs != nil {
				t.Fatalf("Decode = %v, %v; want an error", msgs, err)
			}
			if err.Code != tt.code || (tt.message != "" && err.Message != tt.message) {
				t.Fatalf("error = %d %q; want %d %q", err.Code, err.Message, tt.code, tt.message)
			}
		})
	}
	t.Run("nesting exactly at the limit is accepted", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":` + strings.Repeat("[", 62) + strings.Repeat("]", 62) + `}}`
		if _, _, err := jsonrpc.Decode([]byte(body)); err != nil {
			t.Fatalf("Decode: %v", err)
		}
	})
	t.Run("brackets inside strings do not count as nesting", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"` + strings.Repeat("[{", 100) + `\"]"}}`
		if _, _, err := jsonrpc.Decode([]byte(body)); err != nil {
			t.Fatalf("Decode: %v", err)
		}
	})
}

func TestDecodeBatch(t *testing.T) {
	body := `[{"jsonrpc":"2.0","id":1,"method":"ping"}, {"jsonrpc":"2.0","method":"n"},
		7, {"jsonrpc":"2.0","id":"r","result":{}}, {"jsonrpc":"2.0","id":null,"method":"x"}]`
	msgs, batch, err := jsonrpc.Decode([]byte(body))
	if err != nil || !batch {
		t.Fatalf("Decode = batch %v, err %v", batch, err)
	}
	want := []jsonrpc.Kind{jsonrpc.KindRequest, jsonrpc.KindNotification, jsonrpc.KindInvalid, jsonrpc.KindResponse, jsonrpc.KindInvalid}
	if len(msgs) != len(want) {
		t.Fatalf("got %d messages, want %d", len(msgs), len(want))
	}
	for i, k := range want {
		if msgs[i].Kind != k {
			t.Errorf("message %d kind = %d, want %d", i, msgs[i].Kind, k)
		}
	}
}

// FuzzDecode checks that any body decodes without panicking, that invalid JSON
// is always a parse error, and that every answer Decode leads to is JSON. (The server's
// stateless path is fuzzed with the same seeds in mcp: FuzzServeStateless.)
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":null}]}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"}]`,
		`{"jsonrpc":"2.0","id":null,"method":"x"}`, `{"jsonrpc":"2.0","id":1.5}`, `[]`, `[[[[`, `"\u00"`,
		`{"jsonrpc":"2.0","\u0069d":"\ud800","method":"\\"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msgs, batch, err := jsonrpc.Decode(body)
		if !json.Valid(body) {
			if err == nil || err.Code != jsonrpc.CodeParseError {
				t.Fatalf("invalid JSON %q decoded without a parse error: %v", body, err)
			}
			return
		}
		if err != nil {
			if err.Code == jsonrpc.CodeParseError {
				t.Fatalf("valid JSON %q got a parse error: %v", body, err)
			}
			return
		}
		if !batch && len(msgs) != 1 {
			t.Fatalf("a single body gave %d messages", len(msgs))
		}
		for _, m := range msgs {
			if (m.Kind == jsonrpc.KindInvalid) != (m.Kind == jsonrpc.KindInvalid && m.Error != nil) {
				t.Fatal("an invalid message has no reason")
			}
			if m.Kind == jsonrpc.KindRequest || m.Kind == jsonrpc.KindNotification {
				if !json.Valid(m.Params) || m.Params[0] != '{' {
					t.Fatalf("params %q are not an object", m.Params)
				}
			}
			if m.Kind == jsonrpc.KindRequest {
				if _, err := jsonrpc.ParseID([]byte(m.ID.String())); err != nil {
					t.Fatalf("request id %q does not parse again: %v", m.ID, err)
				}
			}
			out := jsonrpc.AppendResponse(nil, jsonrpc.Response{ID: m.ID, Error: m.Error, Result: m.Result})
			if !json.Valid(out) {
				t.Fatalf("answer is not JSON: %s", out)
			}
		}
	})
}

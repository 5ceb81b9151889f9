package jsonrpc_test

import (
	"encoding/json"
	"testing"

	"github.com/octo-run/octo/mcp/jsonrpc"
)

func TestParseID(t *testing.T) {
	tests := []struct {
		name, raw string
		wantErr   string // "" when valid
	}{
		{"a string id is kept with its quotes", `"abc"`, ""},
		{"an escaped string id is kept byte for byte", `"a\u0062c"`, ""},
		{"an integer id is kept", `7`, ""},
		{"a negative integer id is kept", `-12`, ""},
		{"a huge integer id is kept as text", `123456789012345678901234567890`, ""},
		{"zero is a valid id", `0`, ""},
		{"a null id is refused", `null`, "Invalid Request: id must not be null"},
		{"a fractional id is refused", `1.5`, "Invalid Request: id must be a string or an integer, got 1.5"},
		{"an exponent id is refused", `1e3`, "Invalid Request: id must be a string or an integer, got 1e3"},
		{"a leading-zero id is refused", `07`, "Invalid Request: id must be a string or an integer, got 07"},
		{"an object id is refused", `{"a":1}`, "Invalid Request: id must be a string or an integer, got object"},
		{"a boolean id is refused", `true`, "Invalid Request: id must be a string or an integer, got boolean"},
		{"an array id is refused", `[1]`, "Invalid Request: id must be a string or an integer, got array"},
		{"a string id with invalid UTF-8 is refused, as echoing it would be invalid JSON", "\"a\xffb\"", "Invalid Request: id is not valid UTF-8 (JSON text must be UTF-8)"},
		{"a string id with a raw overlong encoding is refused", "\"\xc0\xaf\"", "Invalid Request: id is not valid UTF-8 (JSON text must be UTF-8)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := jsonrpc.ParseID([]byte(tt.raw))
			if tt.wantErr == "" {
				if err != nil || id.String() != tt.raw {
					t.Fatalf("ParseID(%s) = %q, %v; want it kept verbatim", tt.raw, id, err)
				}
				return
			}
			e, ok := err.(*jsonrpc.Error)
			if !ok || e.Code != jsonrpc.CodeInvalidRequest || e.Message != tt.wantErr {
				t.Fatalf("ParseID(%s) error = %#v; want -32600 %q", tt.raw, err, tt.wantErr)
			}
		})
	}
}

func TestIDConstructorsAndJSON(t *testing.T) {
	tests := []struct {
		name string
		id   jsonrpc.ID
		want string
	}{
		{"a string id marshals quoted", jsonrpc.StringID(`say "hi"`), `"say \"hi\""`},
		{"an integer id marshals bare", jsonrpc.IntID(-3), `-3`},
		{"no id marshals as null", jsonrpc.ID{}, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.id)
			if err != nil || string(b) != tt.want {
				t.Fatalf("Marshal = %s, %v; want %s", b, err, tt.want)
			}
			if tt.id.IsZero() {
				return
			}
			var back jsonrpc.ID
			if err := json.Unmarshal(b, &back); err != nil || back != tt.id {
				t.Fatalf("round trip = %q, %v; want %q", back, err, tt.id)
			}
		})
	}
}

func TestAppendResponse(t *testing.T) {
	tests := []struct {
		name string
		resp jsonrpc.Response
		want string
	}{
		{"a string id is echoed with its type", jsonrpc.Response{ID: jsonrpc.StringID("abc"), Result: json.RawMessage(`{"tools":[]}`)},
			`{"jsonrpc":"2.0","id":"abc","result":{"tools":[]}}`},
		{"an integer id is echoed with its type", jsonrpc.Response{ID: jsonrpc.IntID(7), Result: json.RawMessage(`{}`)},
			`{"jsonrpc":"2.0","id":7,"result":{}}`},
		{"an empty result is an empty object", jsonrpc.Response{ID: jsonrpc.IntID(1)},
			`{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"a null result is an empty object", jsonrpc.Response{ID: jsonrpc.IntID(1), Result: json.RawMessage(`null`)},
			`{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"an error without a known id omits the id", jsonrpc.Response{Error: jsonrpc.NewError(jsonrpc.CodeParseError, "Parse error")},
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`},
		{"error data is encoded", jsonrpc.Response{ID: jsonrpc.IntID(41), Error: &jsonrpc.Error{Code: jsonrpc.CodeResourceNotFound, Message: "Resource not found", Data: map[string]string{"uri": "x://y"}}},
			`{"jsonrpc":"2.0","id":41,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"x://y"}}}`},
		{"unencodable error data is left out", jsonrpc.Response{ID: jsonrpc.IntID(2), Error: &jsonrpc.Error{Code: -32603, Message: "m", Data: func() {}}},
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"m"}}`},
		{"messages are escaped", jsonrpc.Response{ID: jsonrpc.IntID(3), Error: jsonrpc.NewError(-32601, "Method not found: %s", "a\"b\n\u2028")},
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found: a\"b\n\u2028"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(jsonrpc.AppendResponse(nil, tt.resp))
			if got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
			if !json.Valid([]byte(got)) {
				t.Fatalf("not valid JSON: %s", got)
			}
		})
	}
}

func TestEncodeNotification(t *testing.T) {
	tests := []struct {
		name   string
		method string
		params any
		want   string
	}{
		{"a notification without params has no params member", "notifications/tools/list_changed", nil,
			`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`},
		{"params are encoded", "notifications/progress", map[string]any{"progress": 1},
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`},
		{"raw params pass through", "notifications/message", json.RawMessage(`{"level":"info","data":"x"}`),
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jsonrpc.EncodeNotification(tt.method, tt.params)
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %s, %v; want %s", got, err, tt.want)
			}
		})
	}
	t.Run("unencodable params are an error", func(t *testing.T) {
		if _, err := jsonrpc.EncodeNotification("x", func() {}); err == nil {
			t.Fatal("want an error")
		}
	})
}

// PeekID reads the id of a single request body, for errors about the request as a whole, and
// nothing that is not a valid id.
func TestPeekID(t *testing.T) {
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","id":7,"method":"x"}`:   `7`,
		" \n{\"id\":\"a\",\"method\":\"x\"}":      `"a"`,
		`{"method":"x"}`:                          ``,
		`{"id":null}`:                             ``,
		`{"id":1.5}`:                              ``,
		`{"id":{"a":1}}`:                          ``,
		`[{"jsonrpc":"2.0","id":7,"method":"x"}]`: ``,
		``: ``,
	} {
		if got := jsonrpc.PeekID([]byte(body)).String(); got != want {
			t.Errorf("PeekID(%q) = %q, want %q", body, got, want)
		}
	}
}

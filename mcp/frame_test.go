package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/octo-run/octo/mcp/jsonrpc"
)

// A large result framed in place answers byte for byte what copying it behind the envelope
// answers, for every kind of id; a result replaced after the tool (an error) is not framed.
func TestAFramedAnswerIsTheCopiedOne(t *testing.T) {
	s := &Server{}
	res := &CallToolResult{Content: []Content{TextContent(strings.Repeat("é\"x", jsonrpc.FrameFrom))},
		StructuredContent: json.RawMessage(`{"a":1}`)}
	for _, raw := range []string{`7`, `"req-\"1\""`, ``} {
		var id jsonrpc.ID
		if raw != "" {
			id, _ = jsonrpc.ParseID([]byte(raw))
		}
		rc := &RequestContext{RequestID: id}
		result, err := s.toolAnswer("t", res, rc)
		if err != nil || rc.framed == nil {
			t.Fatalf("id %s: %v, framed %v", raw, err, rc.framed != nil)
		}
		want := jsonrpc.AppendResponse(nil, jsonrpc.Response{ID: id, Result: bytes.Clone(result)})
		if got := s.answer(rc, id, jsonrpc.Response{ID: id, Result: result}, 1<<30); !bytes.Equal(got, want) {
			t.Fatalf("id %s: framed %.80s…, want %.80s…", raw, got, want)
		}
		if !json.Valid(want) {
			t.Fatalf("id %s: not JSON", raw)
		}
		e := jsonrpc.NewError(jsonrpc.CodeInternalError, "replaced")
		if got := s.answer(rc, id, jsonrpc.Response{ID: id, Error: e}, 1<<30); !bytes.Equal(got, jsonrpc.AppendResponse(nil, jsonrpc.Response{ID: id, Error: e})) {
			t.Fatalf("id %s: an error after the tool answered %.80s", raw, got)
		}
	}
}

// FuzzServeStateless: the whole stateless path survives any body and answers JSON or nothing.
func FuzzServeStateless(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":null}]}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"}]`,
		`{"jsonrpc":"2.0","id":null,"method":"x"}`, `{"jsonrpc":"2.0","id":1.5}`, `[]`, `[[[[`, `"\u00"`,
	} {
		f.Add([]byte(seed))
	}
	server := newRouterServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		out := server.ServeStateless(context.Background(), HTTPRequest{Method: "POST", Body: body})
		if len(out.Body) > 0 && !json.Valid(out.Body) {
			t.Fatalf("status %d body is not JSON: %s", out.Status, out.Body)
		}
	})
}

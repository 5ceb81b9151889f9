package mcp

import (
	"bytes"
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

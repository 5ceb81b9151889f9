package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/mcptest"
)

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
	server := mcptest.RouterServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		out := server.ServeStateless(context.Background(), mcp.HTTPRequest{Method: "POST", Body: body})
		if len(out.Body) > 0 && !json.Valid(out.Body) {
			t.Fatalf("status %d body is not JSON: %s", out.Status, out.Body)
		}
	})
}

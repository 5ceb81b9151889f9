package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/octo-run/octo/mcp/jsonrpc"
)

// echoTool is one tool that answers its arguments.
type echoTool struct{}

func (echoTool) ListTools(context.Context, *RequestContext, string) ([]Tool, string, error) {
	return []Tool{{Name: "echo"}}, "", nil
}

func (echoTool) CallTool(_ context.Context, _ *RequestContext, _ string, args json.RawMessage) (*CallToolResult, error) {
	return &CallToolResult{Content: []Content{TextContent(string(args))}}, nil
}

// A server given no Probes makes none: observing costs it nothing.
func TestAServerWithoutProbesObservesNothing(t *testing.T) {
	s := &Server{Info: Implementation{Name: "t", Version: "1"}, Versions: RouterVersions, Tools: echoTool{}}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	msgs, _, _ := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`))
	if got := jsonrpc.AppendResponse(nil, s.Handle(context.Background(), &msgs[0].Request, nil)); !strings.Contains(string(got), `"result"`) {
		t.Fatal(string(got))
	}
	if s.probeSet.tools.Load() != nil {
		t.Fatal("probes were made without Probes")
	}
}

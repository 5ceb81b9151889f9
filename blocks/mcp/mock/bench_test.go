package mock

import (
	"context"
	"encoding/json"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/runtime"
)

// BenchmarkCallTool measures the hot path of a mock: one tools/call whose
// JSON result takes an argument, through the core's dispatcher.
func BenchmarkCallTool(b *testing.B) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(`
tools:
  - name: get_weather
    inputSchema: '{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}'
    result: '{"city": "{{args.city}}", "forecast": "sunny", "temperatureC": {{$randomInt 10 30}}}'
`), &doc); err != nil {
		b.Fatal(err)
	}
	d, ds := runtime.DecodeBlockSettings("mcp-mock", doc.Content[0], at)
	if len(ds) > 0 {
		b.Fatal(ds)
	}
	srv, ds := newServer(d.Settings.(*Settings), d.Positions, "bench", nil, nil, nil)
	if len(ds) > 0 {
		b.Fatal(ds)
	}
	req := &jsonrpc.Request{ID: jsonrpc.IntID(1), Method: "tools/call",
		Params: json.RawMessage(`{"name":"get_weather","arguments":{"city":"Lisbon"}}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if resp := srv.core.Handle(ctx, req, &mcp.RequestContext{}); resp.Error != nil {
			b.Fatal(resp.Error)
		}
	}
}

package router_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// benchConnector takes the place of the sample's http connector so the
// benchmark can hold the built flow and drive it without a socket.
type benchConnector struct{ flows map[string]*runtime.Flow }

func (c *benchConnector) Attach(_ *runtime.SourceBuild, f *runtime.Flow) error {
	c.flows[f.Name] = f
	return nil
}
func (c *benchConnector) Start(context.Context) error { return nil }
func (c *benchConnector) Stop(context.Context) error  { return nil }

var captured = &benchConnector{flows: map[string]*runtime.Flow{}}

func init() {
	runtime.RegisterConnector(runtime.ConnectorSpec{
		Type:    "bench-capture",
		Summary: "test: keeps attached flows for benchmarks",
		Build:   func(*runtime.ConnectorBuild) (runtime.Connector, error) { return captured, nil },
	})
}

const (
	forecastCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Lisbon"}}}`
	forecastWant = `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"city\":\"Lisbon\",\"summary\":\"Sunny, 24C\"}"}],"structuredContent":{"city":"Lisbon","summary":"Sunny, 24C"}}}`
	toolsList    = `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`
)

// sampleFlow builds samples/mcp-router as octo run would, with its http
// connector swapped for bench-capture, and returns the flow holding the
// router block.
func sampleFlow(tb testing.TB) *runtime.Flow {
	tb.Helper()
	cfg, err := config.Load("../../../samples/mcp-router", func(string) (string, bool) { return "", false })
	if err != nil {
		tb.Fatal(err)
	}
	for _, c := range cfg.Connectors {
		c.Type = "bench-capture"
	}
	for _, f := range cfg.Flows {
		f.Source.Type = ""
	}
	if _, err := runtime.NewService(cfg, runtime.Options{}); err != nil {
		tb.Fatal(err)
	}
	f := captured.flows["mcp"]
	if f == nil {
		tb.Fatal("the sample has no flow named mcp")
	}
	return f
}

// headers are what a 2025-06-18 client sends with every POST.
var headers = http.Header{
	"Content-Type":         {"application/json"},
	"Accept":               {"application/json, text/event-stream"},
	"Mcp-Protocol-Version": {"2025-06-18"},
}

// serve runs one POST through the flow as the http connector would: a fresh
// message per request carrying the request's metadata and raw body.
func serve(ctx context.Context, f *runtime.Flow, body []byte) (*runtime.Message, error) {
	m := runtime.NewMessage(body)
	m.Meta = runtime.Meta{Method: http.MethodPost, Path: "/mcp", Host: "127.0.0.1", RemoteAddr: "127.0.0.1:50000", Headers: headers}
	return f.Run(ctx, m)
}

func benchmarkCall(b *testing.B, body string, check func([]byte) bool) {
	f := sampleFlow(b)
	ctx := context.Background()
	in := []byte(body)
	out, err := serve(ctx, f, in)
	if err != nil {
		b.Fatal(err)
	}
	if out.Meta.Status != http.StatusOK || !check(out.Raw()) {
		b.Fatalf("got %d %s", out.Meta.Status, out.Raw())
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := serve(ctx, f, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolsCallForecast is one tools/call of the sample's forecast tool
// through the built router: JSON-RPC decode, input schema, the set-payload
// branch, output schema and the encoded answer.
func BenchmarkToolsCallForecast(b *testing.B) {
	benchmarkCall(b, forecastCall, func(got []byte) bool { return string(got) == forecastWant })
}

// BenchmarkToolsList is one tools/list, whose answer is encoded once and
// then served from the cache.
func BenchmarkToolsList(b *testing.B) {
	benchmarkCall(b, toolsList, func(got []byte) bool {
		return bytes.HasPrefix(got, []byte(`{"jsonrpc":"2.0","id":8,"result":{"tools":[{"name":"forecast",`))
	})
}

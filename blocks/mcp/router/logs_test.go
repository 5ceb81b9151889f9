package router_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// loggingConfig is a router with logging at its default level whose tool logs at debug and info.
const loggingConfig = `service: { name: logs }
connectors:
  - { name: web, type: bench-capture }
flows:
  - name: logs
    source: { connector: web, settings: { path: /mcp } }
    process:
      - type: mcp-router
        logging: {}
        tools:
          - name: find
            description: Find.
            process:
              - type: log
                settings: { message: "arguments {{ body }}", level: debug }
              - type: log
                settings: { message: "finding {{ body.id }}" }
              - type: set-payload
                settings: { value: '"found"' }
`

// loggingFlow builds loggingConfig with the service's own log off, so the lines the client hears
// are rendered for it alone.
func loggingFlow(tb testing.TB) *runtime.Flow {
	tb.Helper()
	dir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(loggingConfig), 0o644); err != nil {
		tb.Fatal(err)
	}
	cfg, err := config.Load(dir, func(string) (string, bool) { return "", false })
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := runtime.NewService(cfg, runtime.Options{Logger: slog.New(slog.DiscardHandler)}); err != nil {
		tb.Fatal(err)
	}
	return captured.flows["logs"]
}

const (
	findWithProgress = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"find","arguments":{"id":1},"_meta":{"progressToken":"f"}}}`
	findWant         = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"find","data":"finding 1"}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"found"}]}}`
)

// With logging: {} the level is info: a streamed call hears its info line, not its debug one,
// before its result.
func TestAStreamedCallHearsItsLogLinesAtTheDefaultLevel(t *testing.T) {
	out, err := serve(context.Background(), loggingFlow(t), []byte(findWithProgress))
	if err != nil {
		t.Fatal(err)
	}
	if s := out.Stream(); s == nil {
		t.Fatalf("not a stream: %s", out.Raw())
	} else if got := drain(t, s); got != findWant {
		t.Fatalf("stream:\n%s\nwant:\n%s", got, findWant)
	}
}

// BenchmarkToolsCallWithLogs is a streamed call whose branch sends one log line to the client
// (and skips a debug one), read to its end.
func BenchmarkToolsCallWithLogs(b *testing.B) {
	f := loggingFlow(b)
	in := []byte(findWithProgress)
	b.ReportAllocs()
	for b.Loop() {
		out, err := serve(context.Background(), f, in)
		if err != nil {
			b.Fatal(err)
		}
		if got := drain(b, out.Stream()); got != findWant {
			b.Fatal(got)
		}
	}
}

// Stateless, logging/setLevel keeps nothing: a known level is answered {}, an unknown one
// -32602, and the next streamed call still hears what the router's level lets through.
func TestLoggingSetLevelOverHTTPIsCheckedAndKeepsNothing(t *testing.T) {
	f := loggingFlow(t)
	for _, tt := range []struct{ level, want string }{
		{"error", `{"jsonrpc":"2.0","id":2,"result":{}}`},
		{"loud", `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: unknown log level \"loud\"; use one of debug, info, notice, warning, error, critical, alert, emergency"}}`},
	} {
		out, err := serve(context.Background(), f, []byte(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"`+tt.level+`"}}`))
		if err != nil || string(out.Raw()) != tt.want {
			t.Fatalf("logging/setLevel %s = %s %v, want %s", tt.level, out.Raw(), err, tt.want)
		}
	}
	out, err := serve(context.Background(), f, []byte(findWithProgress))
	if err != nil {
		t.Fatal(err)
	}
	if got := drain(t, out.Stream()); got != findWant {
		t.Fatalf("after logging/setLevel error, stream:\n%s\nwant:\n%s", got, findWant)
	}
}

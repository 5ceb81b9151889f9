package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// The README's curl line answers with the stream printed under it: the info and warn lines as
// notifications/message (the debug one below the router's level is not sent), then the result.
// initialize declares logging, and logging/setLevel answers {} or -32602.
func TestReadmeLogsStreamAnswersAsPrinted(t *testing.T) {
	url, _ := readmeStreamAnswersAsPrinted(t, "Logs from tools")

	accept := []string{"Accept", "application/json, text/event-stream"}
	initialized := do(t, "POST", url, "application/json", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`, accept...)
	if !strings.Contains(initialized.body, `"logging":{}`) {
		t.Fatalf("initialize does not declare logging: %s", initialized.body)
	}
	for level, answer := range map[string]string{
		"warning": `{"jsonrpc":"2.0","id":2,"result":{}}`,
		"loud":    `"code":-32602`,
	} {
		a := do(t, "POST", url, "application/json", `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"`+level+`"}}`, accept...)
		if !strings.Contains(a.body, answer) {
			t.Fatalf("logging/setLevel %s = %s, want %s", level, a.body, answer)
		}
	}
}

// messageLog gathers the log notifications an SDK client hears.
type messageLog chan *mcp.LoggingMessageParams

func (l messageLog) handler(_ context.Context, req *mcp.LoggingMessageRequest) { l <- req.Params }

// wait returns the next n lines heard, "level logger data" each, failing after a bound. The
// lines of one call come in the order sent, so one sent that should not have been (a level
// below the floor, logged before the others) shows among the first n.
func (l messageLog) wait(t *testing.T, n int) []string {
	t.Helper()
	var got []string
	for len(got) < n {
		select {
		case p := <-l:
			got = append(got, fmt.Sprintf("%s %s %v", p.Level, p.Logger, p.Data))
		case <-time.After(10 * time.Second):
			t.Fatalf("heard %d log lines, want %d: %q", len(got), n, got)
		}
	}
	return got
}

// The official Go SDK client hears the tool's log lines, then gets the result, over Streamable
// HTTP and over stdio. Over stdio logging/setLevel raises the session's level; over HTTP it is
// answered and the router's own level stays.
func TestGoSDKClientHearsLogsFromATool(t *testing.T) {
	dir, _ := readmeSectionConfig(t, "Logs from tools")
	port := strconv.Itoa(freePort(t))
	startOcto(t, []string{"HTTP_PORT=" + port}, "run", "--config", dir)
	heard := map[string]messageLog{"over HTTP": make(messageLog, 16), "over stdio": make(messageLog, 16)}
	connect := map[string]func(*testing.T, context.Context) *mcp.ClientSession{
		"over HTTP": func(t *testing.T, _ context.Context) *mcp.ClientSession {
			return runtimetest.ConnectMCP(t, "http://127.0.0.1:"+port+"/mcp", &mcp.ClientOptions{LoggingMessageHandler: heard["over HTTP"].handler})
		},
		"over stdio": func(t *testing.T, ctx context.Context) *mcp.ClientSession {
			client := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e", Version: "1"}, &mcp.ClientOptions{LoggingMessageHandler: heard["over stdio"].handler})
			cs, _ := connectStdio(t, ctx, client, []string{"HTTP_PORT=" + strconv.Itoa(freePort(t))}, "run", "--config", dir, "--stdio")
			return cs
		},
	}
	both := []string{"info find_order looking up order 42", "warning find_order order 42 is late"}
	afterSetLevel := map[string][]string{"over HTTP": both, "over stdio": both[1:]}
	for _, name := range []string{"over HTTP", "over stdio"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cs := connect[name](t, ctx)
			if cs.InitializeResult().Capabilities.Logging == nil {
				t.Fatal("initialize does not declare logging")
			}
			call := func(want []string) {
				t.Helper()
				params := &mcp.CallToolParams{Name: "find_order", Arguments: map[string]any{"id": 42}}
				params.SetProgressToken("o1")
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "Order 42 ships tomorrow" {
					t.Fatalf("tools/call = %s %v", jsonText(res), err)
				}
				got := heard[name].wait(t, len(want))
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("log heard:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
			call(both)
			if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
				t.Fatalf("logging/setLevel: %v", err)
			}
			call(afterSetLevel[name])
			if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "loud"}); err == nil || !strings.Contains(err.Error(), "unknown log level") {
				t.Fatalf("logging/setLevel loud: %v", err)
			}
		})
	}
}

const noLoggingConfig = `service: { name: quiet }
env:
  - { name: HTTP_PORT, default: "8080" }
connectors:
  - { name: web, type: http, settings: { port: "${HTTP_PORT}" } }
flows:
  - name: mcp
    source: { connector: web, settings: { path: /mcp } }
    process:
      - type: mcp-router
        name: quiet
        tools:
          - name: find_order
            description: Find an order.
            process:
              - type: log
                settings: { message: "looking up an order", level: error }
              - type: set-payload
                settings: { value: '"found"' }
`

// A router without logging declares no logging capability, sends no log notifications even on
// a streamed call, and answers logging/setLevel with -32601.
func TestRouterWithoutLoggingSendsNoLogs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(noLoggingConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	startOcto(t, []string{"HTTP_PORT=" + strconv.Itoa(port)}, "run", "--config", dir)
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	accept := []string{"Accept", "application/json, text/event-stream"}
	initialized := do(t, "POST", url, "application/json", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`, accept...)
	if initialized.status != 200 || strings.Contains(initialized.body, `"logging"`) {
		t.Fatalf("initialize: %d %s", initialized.status, initialized.body)
	}
	a := do(t, "POST", url, "application/json", `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`, accept...)
	if !strings.Contains(a.body, `"code":-32601`) {
		t.Fatalf("logging/setLevel = %s", a.body)
	}
	a = do(t, "POST", url, "application/json", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"find_order","arguments":{},"_meta":{"progressToken":"q"}}}`, accept...)
	want := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"found\"}]}}"
	if a.header.Get("Content-Type") != "text/event-stream" || strings.TrimRight(a.body, "\n") != want {
		t.Fatalf("streamed call without logging:\n%s", a.body)
	}
}

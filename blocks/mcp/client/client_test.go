package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// tools are router tools that call the upstream mock through mcp-client, at URL.
const tools = `
- name: weather
  inputSchema: '{"type": "object", "properties": {"city": {"type": "string"}}}'
  process:
    - type: mcp-client
      settings:
        server: { url: "%[1]s" }
        tool: get_weather
        arguments: '{"city": body.city}'
    - type: set-payload
      settings:
        value: '{"plan": body.forecast == "sunny" ? "walk" : "museum", "server": vars.mcp.server.name}'
- name: structured
  process:
    - type: mcp-client
      settings: { server: { url: "%[1]s" }, tool: structured }
- name: broken
  process:
    - type: mcp-client
      settings: { server: { url: "%[1]s" }, tool: broken }
- name: unknown
  process:
    - type: mcp-client
      settings: { server: { url: "%[1]s" }, tool: nope }
- name: report
  process:
    - type: mcp-client
      settings: { server: { url: "%[1]s" }, tool: report }
- name: slow
  process:
    - type: mcp-client
      settings: { server: { url: "%[1]s" }, tool: slow }
- name: station
  process:
    - type: mcp-client
      settings: { server: { url: "%[1]s" }, resource: "stations://{{ body.name }}" }
- name: prompt
  process:
    - type: mcp-client
      settings: { server: { url: "%[1]s" }, prompt: plan_trip, arguments: '{"city": "Oslo"}' }
    - type: set-payload
      settings: { value: 'body[0].content.text' }
`

func text(t testing.TB, res *sdk.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatalf("no content: %+v", res)
	}
	return res.Content[0].(*sdk.TextContent).Text
}

func TestARouterToolCallsAnotherMCPServer(t *testing.T) {
	_, addr, log := upstream(t, 0)
	url, svc := startRouter(t, fmt.Sprintf(tools, "http://"+addr+"/mcp"))
	var (
		mu       sync.Mutex
		progress []string
	)
	cs := runtimetest.ConnectMCP(t, url, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, fmt.Sprintf("%v/%v %s", r.Params.Progress, r.Params.Total, r.Params.Message))
			mu.Unlock()
		}})
	ctx := testCtx(t)
	call := func(t *testing.T, name string, args map[string]any) *sdk.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	t.Run("the tool's JSON text becomes the body, and vars.mcp names the server", func(t *testing.T) {
		res := call(t, "weather", map[string]any{"city": "Oslo"})
		if got := text(t, res); res.IsError || got != `{"plan":"walk","server":"Weather mock"}` {
			t.Fatalf("%s %v", got, res.IsError)
		}
	})
	t.Run("structuredContent becomes the body", func(t *testing.T) {
		if got := text(t, call(t, "structured", nil)); got != `{"n":7}` {
			t.Fatal(got)
		}
	})
	t.Run("an isError result is the router tool's isError, with its text", func(t *testing.T) {
		res := call(t, "broken", nil)
		if got := text(t, res); !res.IsError || got != "the upstream is down" {
			t.Fatalf("%s %v", got, res.IsError)
		}
	})
	t.Run("a JSON-RPC error is an isError naming the server's error", func(t *testing.T) {
		res := call(t, "unknown", nil)
		want := "MCP server http://" + addr + ": tools/call nope: Unknown tool: nope (-32602)"
		if got := text(t, res); !res.IsError || got != want {
			t.Fatalf("%q, want %q", got, want)
		}
	})
	t.Run("the upstream's progress reaches the router's client", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "report", Meta: sdk.Meta{"progressToken": "p1"}})
		if err != nil || text(t, res) != "reported" {
			t.Fatalf("%v %v", res, err)
		}
		// The SDK hands notifications to the handler on its own goroutine.
		got := func() string {
			mu.Lock()
			defer mu.Unlock()
			return strings.Join(progress, "|")
		}
		for deadline := time.Now().Add(5 * time.Second); got() != "1/2 first half|2/2 second half" && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if got() != "1/2 first half|2/2 second half" {
			t.Fatalf("progress: %q", progress)
		}
	})
	t.Run("a resource's text becomes the body", func(t *testing.T) {
		if got := text(t, call(t, "station", map[string]any{"name": "Bergen"})); got != "Station Bergen" {
			t.Fatal(got)
		}
	})
	t.Run("a prompt's messages become the body", func(t *testing.T) {
		if got := text(t, call(t, "prompt", nil)); got != "Plan a day in Oslo." {
			t.Fatal(got)
		}
	})
	t.Run("a caller that leaves cancels the upstream call", func(t *testing.T) {
		cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		if _, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: "slow"}); err == nil {
			t.Fatal("the call was not cancelled")
		}
		log.WaitFor(t, "msg=notifications/cancelled")
	})
	t.Run("every call used one session", func(t *testing.T) {
		if n := strings.Count(log.String(), "kind=session-opened"); n != 1 {
			t.Fatalf("%d sessions opened", n)
		}
	})
	t.Run("stopping the flow closes the session", func(t *testing.T) {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := svc.Stop(sctx); err != nil {
			t.Fatal(err)
		}
		log.WaitFor(t, "reason=deleted")
	})
}

func TestABrokenSessionIsDialledAgain(t *testing.T) {
	up, addr, _ := upstream(t, 0)
	url, _ := startRouter(t, fmt.Sprintf(`
- name: weather
  process:
    - type: mcp-client
      settings:
        server: { url: "http://%s/sse", transport: sse }
        tool: get_weather
        arguments: '{"city": "Oslo"}'
`, addr))
	cs := runtimetest.ConnectMCP(t, url, nil)
	ctx := testCtx(t)
	if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "weather"}); err != nil || res.IsError {
		t.Fatalf("%v %v", res, err)
	}
	// The upstream goes away, ending the event stream, and comes back on the same port.
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := up.Stop(sctx); err != nil {
		t.Fatal(err)
	}
	var p int
	_, _ = fmt.Sscanf(addr[strings.LastIndex(addr, ":")+1:], "%d", &p)
	_, _, log := upstream(t, p)
	var res *sdk.CallToolResult
	var err error
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "weather"}); err == nil && !res.IsError {
			break
		}
	}
	if err != nil || res.IsError {
		t.Fatalf("%v %v", res, err)
	}
	// The upstream may log the session it opened just after the stream's first event has gone.
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(log.String(), "transport=sse kind=session-opened"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no new session:\n%s", log.String())
		}
	}
}

func TestTheArgumentsMustBeAnObject(t *testing.T) {
	_, addr, _ := upstream(t, 0)
	url, _ := startRouter(t, fmt.Sprintf(`
- name: weather
  process:
    - type: mcp-client
      settings: { server: { url: "http://%s/mcp" }, tool: get_weather, arguments: '[1, 2]' }
`, addr))
	cs := runtimetest.ConnectMCP(t, url, nil)
	res, err := cs.CallTool(testCtx(t), &sdk.CallToolParams{Name: "weather"})
	if err != nil || !res.IsError || text(t, res) != "the arguments must be an object, got a list" {
		t.Fatalf("%v %v", res, err)
	}
}

func TestAnUnreachableServerFailsTheCallInGeneralWords(t *testing.T) {
	port := runtimetest.FreePort(t)
	url, _ := startRouter(t, fmt.Sprintf(`
- name: weather
  process:
    - type: mcp-client
      settings: { server: { url: "http://127.0.0.1:%d/mcp?token=secret" }, tool: get_weather }
`, port))
	cs := runtimetest.ConnectMCP(t, url, nil)
	res, err := cs.CallTool(testCtx(t), &sdk.CallToolParams{Name: "weather"})
	want := fmt.Sprintf("MCP server http://127.0.0.1:%d: connecting: the server could not be reached", port)
	if err != nil || !res.IsError || text(t, res) != want {
		t.Fatalf("%v %v", res, err)
	}
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), "secret") {
		t.Fatal("the error shows the URL's query")
	}
}

func TestASlowServerIsATimeoutNamingTheLimit(t *testing.T) {
	_, addr, log := upstream(t, 0)
	url, _ := startRouter(t, fmt.Sprintf(`
- name: slow
  process:
    - type: mcp-client
      settings: { server: { url: "http://%s/mcp", timeout: 200ms }, tool: slow }
`, addr))
	cs := runtimetest.ConnectMCP(t, url, nil)
	res, err := cs.CallTool(testCtx(t), &sdk.CallToolParams{Name: "slow"})
	want := "MCP server http://" + addr + ": tools/call slow: no answer within 200ms"
	if err != nil || !res.IsError || text(t, res) != want {
		t.Fatalf("%v %v, want %q", res, err, want)
	}
	log.WaitFor(t, "msg=notifications/cancelled")
}

package agenttools_test

// An agent's work over the real app, tool by tool.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/blocks/agent/app"
	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/runtime/runtimetest"
)

type serverView struct {
	Name, File, URL, Problem string
	Running                  bool
}

func weather(port int, result string) map[string]any {
	return map[string]any{"name": "Weather mock", "kind": "mcp", "port": port, "mcp": map[string]any{
		"instructions": "Use get_weather.",
		"tools": []any{
			map[string]any{"name": "get_weather", "description": "The weather in a city.",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}},
				"result":      result},
			map[string]any{"name": "report", "steps": []any{map[string]any{"progress": 1, "total": 2, "message": "halfway"}}, "result": "done"},
		},
		"resources": []any{map[string]any{"uri": "docs://readme", "name": "readme", "text": "Read me, {{token}}."}},
		"prompts": []any{map[string]any{"name": "plan", "arguments": []any{map[string]any{"name": "city", "required": true}},
			"messages": []any{map[string]any{"role": "user", "text": "Plan {{args.city}}."}}}},
	}}
}

func TestAnAgentBuildsStartsCallsAndReadsAMock(t *testing.T) {
	a, ws := openApp(t, appdata.Agents{Allow: true, Approve: appdata.ApproveNever}, app.Options{}, map[string]string{
		"workspace.yaml": "variables: {token: secret-value}\nenvironments: {local: {apiBase: 'http://x'}}\nenvironment: local\n"})
	var progress []string
	var mu sync.Mutex
	cs := connect(t, a, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		defer mu.Unlock()
		progress = append(progress, r.Params.Message)
	}})

	init := cs.InitializeResult()
	if init.ServerInfo.Name != "octo" || init.Instructions != agenttools.Instructions {
		t.Fatalf("initialize = %+v", init)
	}
	if names := runtimetest.ToolNames(t, cs); len(names) != 9 {
		t.Fatalf("tools %v", names)
	}

	t.Run("get_workspace shows variable names, never values", func(t *testing.T) {
		text := works(t, cs, agenttools.GetWorkspace, map[string]any{})
		v := decode[struct {
			Folder       string
			Variables    []string
			Environments map[string][]string
			Environment  string
		}](t, text)
		if v.Folder != ws || len(v.Variables) != 1 || v.Variables[0] != "token" || v.Environment != "local" || v.Environments["local"][0] != "apiBase" {
			t.Fatalf("%s", text)
		}
		if strings.Contains(text, "secret-value") || strings.Contains(text, "http://x") {
			t.Fatalf("a value is shown: %s", text)
		}
	})

	port := runtimetest.FreePort(t)
	t.Run("a broken server is not saved, and its problems point into the text shown", func(t *testing.T) {
		bad := weather(port, "sunny")
		bad["mcp"].(map[string]any)["tols"] = []any{}
		text := fails(t, cs, agenttools.SaveServer, bad, "Nothing was saved: servers/Weather mock.yaml would have 1 problem.")
		for _, want := range []string{`servers/Weather mock.yaml:19:3: mcp.tols (server "Weather mock"): unknown key "tols" (did you mean "tools"?)`, "  19 |   tols: []"} {
			if !strings.Contains(text, want) {
				t.Errorf("lacks %q:\n%s", want, text)
			}
		}
		text = fails(t, cs, agenttools.SaveServer, weather(port, "{{nope}}"), "Nothing was saved")
		if !strings.Contains(text, `servers/Weather mock.yaml:29:16: mcp.tools[0].result (server "Weather mock"): unknown variable "nope"`) {
			t.Errorf("%s", text)
		}
		if _, err := os.Stat(filepath.Join(ws, "servers", "Weather mock.yaml")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("written anyway: %v", err)
		}
	})

	t.Run("save_server writes the saved format", func(t *testing.T) {
		text := works(t, cs, agenttools.SaveServer, weather(port, `{"city": "{{args.city}}", "sky": "sunny"}`))
		if !strings.Contains(text, `Saved "Weather mock" to servers/Weather mock.yaml`) || !strings.Contains(text, "start it with start_server") {
			t.Fatalf("%s", text)
		}
		names, ds := workspace.Validate(ws, "")
		if len(ds) > 0 || len(names) != 1 {
			t.Fatalf("the workspace does not take it: %v %v", names, ds)
		}
	})

	t.Run("a new server without a port gets the one octo new would pick", func(t *testing.T) {
		works(t, cs, agenttools.SaveServer, map[string]any{"name": "Spare", "kind": "mcp", "mcp": map[string]any{}})
		text := works(t, cs, agenttools.GetServer, map[string]any{"name": "spare"})
		v := decode[struct{ Fields struct{ Port int } }](t, text)
		if v.Fields.Port != 3004 {
			t.Fatalf("%s", text)
		}
		works(t, cs, agenttools.DeleteServer, map[string]any{"name": "Spare"})
	})

	var url string
	t.Run("start_server gives the URL the SDK client calls", func(t *testing.T) {
		text := works(t, cs, agenttools.StartServer, map[string]any{"name": "Weather mock"})
		url = regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`).FindString(text)
		if url == "" || !strings.Contains(text, "/sse") {
			t.Fatalf("%s", text)
		}
		mock := runtimetest.ConnectMCP(t, url, nil)
		res, err := mock.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Oslo"}})
		if err != nil || res.Content[0].(*sdk.TextContent).Text != `{"city": "Oslo", "sky": "sunny"}` {
			t.Fatalf("%v %+v", err, res)
		}
		list := decode[struct{ Servers []serverView }](t, works(t, cs, agenttools.ListServers, map[string]any{}))
		if len(list.Servers) != 1 || !list.Servers[0].Running || list.Servers[0].URL != url || list.Servers[0].File != "servers/Weather mock.yaml" {
			t.Fatalf("%+v", list)
		}
	})

	t.Run("call_server calls a tool, with its progress passed on", func(t *testing.T) {
		text := works(t, cs, agenttools.CallServer, map[string]any{"server": "weather mock", "tool": "get_weather", "arguments": map[string]any{"city": "Bergen"}})
		if !strings.Contains(text, `"method": "tools/call"`) || !strings.Contains(text, `Bergen`) {
			t.Fatalf("%s", text)
		}
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: agenttools.CallServer,
			Arguments: map[string]any{"server": "Weather mock", "tool": "report"}, Meta: sdk.Meta{"progressToken": "p1"}})
		if err != nil || res.IsError {
			t.Fatalf("%v %+v", err, res)
		}
		// The progress came before the result, but the SDK client hands notifications to their
		// handler on a goroutine of their own: wait for it, boundedly.
		got := func() []string {
			mu.Lock()
			defer mu.Unlock()
			return slices.Clone(progress)
		}
		for deadline := time.Now().Add(5 * time.Second); len(got()) == 0 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		if p := got(); len(p) == 0 || p[0] != "halfway" {
			t.Fatalf("progress %q", p)
		}
	})

	t.Run("call_server reads a resource and gets a prompt; the server's errors are its answer", func(t *testing.T) {
		if text := works(t, cs, agenttools.CallServer, map[string]any{"server": "Weather mock", "resource": "docs://readme"}); !strings.Contains(text, "Read me, secret-value.") {
			t.Fatalf("%s", text)
		}
		if text := works(t, cs, agenttools.CallServer, map[string]any{"server": "Weather mock", "prompt": "plan", "arguments": map[string]any{"city": "Oslo"}}); !strings.Contains(text, "Plan Oslo.") {
			t.Fatalf("%s", text)
		}
		if text := works(t, cs, agenttools.CallServer, map[string]any{"server": "Weather mock", "tool": "nope"}); !strings.Contains(text, `"code": -32602`) {
			t.Fatalf("%s", text)
		}
	})

	t.Run("get_traffic reads what passed", func(t *testing.T) {
		var v struct{ Entries []agenttools.TrafficEntry }
		waitFor(t, "the calls in the traffic", func() bool {
			v = decode[struct{ Entries []agenttools.TrafficEntry }](t, works(t, cs, agenttools.GetTraffic,
				map[string]any{"server": "Weather mock", "method": "tools/call", "limit": 1000}))
			return len(v.Entries) >= 6 // Oslo, Bergen and report: each a request and its result
		})
		if !strings.Contains(string(v.Entries[0].Message), "Oslo") {
			t.Fatalf("first entry %+v", v.Entries[0])
		}
		later := time.Now().Add(time.Hour).Format(time.RFC3339)
		if v := decode[struct{ Entries []agenttools.TrafficEntry }](t, works(t, cs, agenttools.GetTraffic, map[string]any{"since": later})); len(v.Entries) != 0 {
			t.Fatalf("entries after an hour from now: %+v", v.Entries)
		}
		few := decode[struct {
			Entries []agenttools.TrafficEntry
			Note    string
		}](t, works(t, cs, agenttools.GetTraffic, map[string]any{"server": "Weather mock", "limit": 2}))
		if len(few.Entries) != 2 || !strings.Contains(few.Note, "There may be more") {
			t.Fatalf("%+v", few)
		}
	})

	t.Run("a save to the running server applies live", func(t *testing.T) {
		text := works(t, cs, agenttools.SaveServer, weather(port, "rain in {{args.city}}"))
		if !strings.Contains(text, "takes the change at once") {
			t.Fatalf("%s", text)
		}
		mock := runtimetest.ConnectMCP(t, url, nil)
		waitFor(t, "the new answer", func() bool {
			res, err := mock.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Oslo"}})
			return err == nil && res.Content[0].(*sdk.TextContent).Text == "rain in Oslo"
		})
		saved := decode[struct {
			YAML   string
			Fields struct {
				MCP struct{ Tools []struct{ Result string } }
			}
		}](t, works(t, cs, agenttools.GetServer, map[string]any{"name": "Weather mock"}))
		if !strings.Contains(saved.YAML, "result: rain in {{args.city}}") || saved.Fields.MCP.Tools[0].Result != "rain in {{args.city}}" {
			t.Fatalf("%+v", saved)
		}
		noPort := weather(port, "rain")
		delete(noPort, "port")
		works(t, cs, agenttools.SaveServer, noPort)
		kept := decode[struct{ Fields struct{ Port int } }](t, works(t, cs, agenttools.GetServer, map[string]any{"name": "Weather mock"}))
		if kept.Fields.Port != port {
			t.Fatalf("saved without a port, it has port %d, want its own %d", kept.Fields.Port, port)
		}
	})

	t.Run("stop_server stops it; its file stays", func(t *testing.T) {
		if text := works(t, cs, agenttools.StopServer, map[string]any{"name": "Weather mock"}); !strings.Contains(text, `Stopped "Weather mock"`) {
			t.Fatalf("%s", text)
		}
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			t.Fatalf("the stopped server still answers: %s", resp.Status)
		}
		fails(t, cs, agenttools.CallServer, map[string]any{"server": "Weather mock", "tool": "get_weather"}, `"Weather mock" is not running`)
	})

	t.Run("delete_server stops a running server and removes its file", func(t *testing.T) {
		works(t, cs, agenttools.StartServer, map[string]any{"name": "Weather mock"})
		text := works(t, cs, agenttools.DeleteServer, map[string]any{"name": "Weather mock"})
		if !strings.Contains(text, "It was running and is stopped.") {
			t.Fatalf("%s", text)
		}
		if _, err := os.Stat(filepath.Join(ws, "servers", "Weather mock.yaml")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("still there: %v", err)
		}
		fails(t, cs, agenttools.GetServer, map[string]any{"name": "Weather mock"}, `unknown saved server "Weather mock"; the workspace has none yet (save_server makes one)`)
	})
}

// An agent that gives up on a call_server call cancels the call it made to the mock.
func TestACancelledCallServerCancelsTheMocksCall(t *testing.T) {
	a, _ := openApp(t, appdata.Agents{Allow: true, Approve: appdata.ApproveNever}, app.Options{}, map[string]string{
		"servers/Slow.yaml": "name: Slow\nport: 0\nmcp:\n  tools: [ { name: wait, delayMs: 60000, result: late } ]\n"})
	cs := connect(t, a, nil)
	works(t, cs, agenttools.StartServer, map[string]any{"name": "Slow"})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: agenttools.CallServer, Arguments: map[string]any{"server": "Slow", "tool": "wait"}})
		errc <- err
	}()
	waitFor(t, "the call to reach the mock", func() bool {
		return len(a.Traffic(agenttools.TrafficQuery{Server: "Slow", Method: "tools/call"})) > 0
	})
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("the cancelled call answered")
	}
	waitFor(t, "the mock to hear the cancellation", func() bool {
		return len(a.Traffic(agenttools.TrafficQuery{Server: "Slow", Method: "notifications/cancelled"})) > 0
	})
}

// A broken saved file is shown with its problem, and saving the server whole fixes it; a save
// never takes over a file that holds another server.
func TestSaveServerFixesABrokenFileAndTakesNoOtherFile(t *testing.T) {
	a, ws := openApp(t, appdata.Agents{Allow: true, Approve: appdata.ApproveNever}, app.Options{}, map[string]string{
		"servers/Broken.yaml": "name: Broken\nport: 0\nmcp:\n  tols: []\n",
		"servers/Other.yaml":  "name: Someone else\nport: 0\n",
	})
	cs := connect(t, a, nil)
	broken := decode[struct {
		YAML     string
		Problems []string
		Fields   map[string]any
	}](t, works(t, cs, agenttools.GetServer, map[string]any{"name": "Broken"}))
	if !strings.Contains(broken.YAML, "tols: []") || len(broken.Problems) != 1 ||
		!strings.HasPrefix(broken.Problems[0], `servers/Broken.yaml:4:3: mcp.tols (server "Broken"): unknown key "tols"`) || broken.Fields["mcp"] == nil {
		t.Fatalf("%+v", broken)
	}
	works(t, cs, agenttools.SaveServer, rawArgs(`{"name": "Broken", "kind": "mcp", "port": 0, "mcp": {"tools": []}}`))
	if text := works(t, cs, agenttools.GetServer, map[string]any{"name": "Broken"}); strings.Contains(text, "problems") {
		t.Fatalf("still broken: %s", text)
	}
	fails(t, cs, agenttools.SaveServer, rawArgs(`{"name": "Other", "kind": "mcp", "mcp": {}}`),
		`servers/Other.yaml holds the server "Someone else"; save under that name to replace it, or pick another name`)
	if text, err := os.ReadFile(filepath.Join(ws, "servers", "Other.yaml")); err != nil || string(text) != "name: Someone else\nport: 0\n" {
		t.Fatalf("the other server's file: %q %v", text, err)
	}
}

// An agent saves an HTTP API (kind http) as it saves an MCP server: the file holds its routes
// under http, it serves at its URL, and its traffic is the app's.
func TestSaveServerMakesAnHTTPAPI(t *testing.T) {
	a, ws := openApp(t, appdata.Agents{Allow: true, Approve: appdata.ApproveNever}, app.Options{}, nil)
	cs := connect(t, a, nil)
	saved := works(t, cs, agenttools.SaveServer, rawArgs(`{"name": "Billing", "kind": "http", "port": 0,
		"http": {"routes": [{"method": "GET", "path": "/invoices/{id}", "body": "{\"id\": \"{{params.id}}\"}"}]}}`))
	if !strings.Contains(saved, "Billing") {
		t.Fatalf("save: %s", saved)
	}
	text, err := os.ReadFile(filepath.Join(ws, "servers", "Billing.yaml"))
	if err != nil || !strings.Contains(string(text), "kind: http") || !strings.Contains(string(text), "http:\n  routes:") {
		t.Fatalf("file: %s %v", text, err)
	}
	fails(t, cs, agenttools.SaveServer, rawArgs(`{"name": "Billing", "kind": "http", "http": {"routes": [{"path": "/a", "body": "{{params.id}}"}]}}`),
		`{{params.id}}: the path /a has no {id}`)
	fails(t, cs, agenttools.SaveServer, rawArgs(`{"name": "Billing", "kind": "http", "http": {}, "mcp": {}}`),
		`a server of kind http takes its settings under http, not mcp`)
	started := works(t, cs, agenttools.StartServer, map[string]any{"name": "Billing"})
	_, rest, _ := strings.Cut(started, "serves at ")
	base, _, _ := strings.Cut(rest, " ")
	if !strings.Contains(started, "(an HTTP API: every route under it)") || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("started: %s", started)
	}
	resp, err := http.Get(strings.TrimSuffix(base, "/") + "/invoices/9")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"id": "9"}` {
		t.Fatalf("GET: %d %s", resp.StatusCode, body)
	}
	waitFor(t, "the request in the app's traffic", func() bool {
		return len(a.Traffic(agenttools.TrafficQuery{Server: "Billing"})) >= 2
	})
	fails(t, cs, agenttools.CallServer, map[string]any{"server": "Billing", "tool": "x"}, `"Billing" is an HTTP API, and call_server speaks MCP`)
}

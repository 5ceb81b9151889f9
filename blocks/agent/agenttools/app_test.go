package agenttools_test

// The tools over the real app: a temp workspace, real servers on real ports, the agent tools
// served as an MCP server to the official Go SDK client, which also calls what they built.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/blocks/agent/app"
	"github.com/octo-run/octo/blocks/agent/appdata"
	_ "github.com/octo-run/octo/blocks/all"
	"github.com/octo-run/octo/blocks/mcp"
	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// openApp opens the app as opts say on a new workspace holding files, with the agent settings
// given, closed when the test ends.
func openApp(t *testing.T, agents appdata.Agents, opts app.Options, files map[string]string) (*app.App, string) {
	t.Helper()
	data, ws := t.TempDir(), t.TempDir()
	if err := appdata.SaveSettings(data, appdata.Settings{Agents: agents}); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log := &runtimetest.Buffer{}
	opts.DataDir, opts.Workspace, opts.Poll = data, ws, 20*time.Millisecond
	opts.Logger = slog.New(slog.NewTextHandler(log, nil))
	a, err := app.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Close(context.Background()); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("app log:\n%s", log.String())
		}
	})
	return a, ws
}

// connect serves the tools over host to the SDK client through a stdio session, as the agent
// connector serves each agent's connection, and returns the client's session.
func connect(t *testing.T, host agenttools.Host, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	st := mcp.NewStateful(agenttools.Server(host, "test"), mcp.StatefulOptions{})
	ss, err := st.OpenStdio()
	if err != nil {
		t.Fatal(err)
	}
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // the client's lines in
		defer wg.Done()
		r := bufio.NewReader(toServer)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				ss.Line(context.Background(), bytes.TrimSpace(line))
			}
			if err != nil {
				ss.EndInput()
				return
			}
		}
	}()
	go func() { // the answers out
		defer wg.Done()
		defer fromServer.Close()
		for {
			ev, err := ss.Next(context.Background())
			if err != nil {
				return
			}
			if _, err := fromServer.Write(append(bytes.Clone(ev.Data), '\n')); err != nil {
				return
			}
		}
	}()
	client := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: toClient, Writer: fromClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		fromClient.Close()
		ss.Close()
		st.Close()
		wg.Wait()
	})
	return cs
}

// use calls a tool and returns its text and whether it failed.
func use(t *testing.T, cs *sdk.ClientSession, tool string, args any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.(*sdk.TextContent).Text)
	}
	return b.String(), res.IsError
}

// works calls a tool that must succeed.
func works(t *testing.T, cs *sdk.ClientSession, tool string, args any) string {
	t.Helper()
	text, failed := use(t, cs, tool, args)
	if failed {
		t.Fatalf("%s failed: %s", tool, text)
	}
	return text
}

// fails calls a tool that must fail saying want.
func fails(t *testing.T, cs *sdk.ClientSession, tool string, args any, want string) string {
	t.Helper()
	text, failed := use(t, cs, tool, args)
	if !failed || !strings.Contains(text, want) {
		t.Fatalf("%s: failed %v, %s\nwant a failure saying %q", tool, failed, text, want)
	}
	return text
}

func decode[T any](t *testing.T, text string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%v in %s", err, text)
	}
	return v
}

// waitFor polls ok for up to 10 seconds.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

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
		mu.Lock()
		defer mu.Unlock()
		if len(progress) == 0 || progress[0] != "halfway" {
			t.Fatalf("progress %q", progress)
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

// rawArgs sends arguments written as JSON text, keys in their order.
func rawArgs(text string) json.RawMessage { return json.RawMessage(text) }

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

package app_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/agentlink/handshake"
	"github.com/octo-run/octo/blocks/agent/app"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/runtimetest"
	"github.com/octo-run/octo/runtime/supervisor"
)

// serveApp runs octo app's embedded config over a, as the command does, until the test ends.
func serveApp(t *testing.T, a *app.App, dataDir string) {
	t.Helper()
	sup := supervisor.New(supervisor.Options{StopTimeout: 5 * time.Second})
	_, release, err := runtime.Acquire(sup.Shared(), app.SharedKey(dataDir), func() (*app.App, error) { return a, nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := sup.Start(context.Background(), "octo app", app.Embedded(dataDir)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := sup.Close(ctx); err != nil {
			t.Error(err)
		}
		_ = release(ctx)
	})
}

// dial connects to the app of dataDir as octo mcp does: agent.json, then the handshake.
func dial(t *testing.T, dataDir string) net.Conn {
	t.Helper()
	info, err := appdata.ReadInfo(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := handshake.Dial(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// connect is the official Go SDK client over a handshaken connection, named name.
func connect(t *testing.T, dataDir, name string) *sdk.ClientSession {
	t.Helper()
	conn := dial(t, dataDir)
	client := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1.0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: conn, Writer: conn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// tool calls a tool and returns its text, failing on an error result.
func tool(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) string {
	t.Helper()
	text, isErr := toolResult(t, cs, name, args)
	if isErr {
		t.Fatalf("%s failed: %s", name, text)
	}
	return text
}

func toolResult(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func TestAnAgentBuildsStartsAndReadsAMockOverTheWire(t *testing.T) {
	a := allowedApp(t, appdata.ApproveNever, app.Options{})
	dataDir := a.DataDir()
	serveApp(t, a, dataDir)
	cs := connect(t, dataDir, "test-agent")
	if got := cs.InitializeResult().ServerInfo.Name; got != "octo" {
		t.Fatalf("serverInfo.name = %q", got)
	}
	waitFor(t, func() bool { ag := a.Agents(); return len(ag) == 1 && ag[0].Name == "test-agent" },
		func() string { return "agents: " + strings.Join(agentNames(a), ", ") })
	if text := tool(t, cs, "list_servers", nil); !strings.Contains(text, "Weather") || !strings.Contains(text, "Other") {
		t.Fatalf("list_servers = %s", text)
	}
	text := tool(t, cs, "start_server", map[string]any{"name": "Weather"})
	url := state(t, a, "Weather").URL
	if url == "" || !strings.Contains(text, url) {
		t.Fatalf("start_server = %s (state URL %q)", text, url)
	}
	mock := runtimetest.ConnectMCP(t, url, nil)
	call(t, mock, "get_weather", map[string]any{"city": "Tromsø"})
	var traffic string
	waitFor(t, func() bool {
		traffic = tool(t, cs, "get_traffic", map[string]any{"server": "Weather", "method": "tools/call"})
		return strings.Contains(traffic, "sunny in Tromsø")
	}, func() string { return "get_traffic = " + traffic })
	t.Run("a second agent is a session of its own", func(t *testing.T) {
		other := connect(t, dataDir, "other-agent")
		if text := tool(t, other, "get_workspace", nil); text == "" {
			t.Fatal("empty get_workspace")
		}
		waitFor(t, func() bool { return len(a.Agents()) == 2 }, func() string { return strings.Join(agentNames(a), ", ") })
	})
}

func agentNames(a *app.App) []string {
	var out []string
	for _, ag := range a.Agents() {
		out = append(out, ag.Name)
	}
	return out
}

func TestDisconnectTellsTheAgentAndCloses(t *testing.T) {
	a := allowedApp(t, appdata.ApproveNever, app.Options{})
	dataDir := a.DataDir()
	serveApp(t, a, dataDir)
	conn := dial(t, dataDir)
	lines := bufio.NewReader(conn)
	send := func(msg string) {
		if _, err := conn.Write([]byte(msg + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-agent","version":"1"}}}`)
	if line, err := lines.ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("initialize answer %q, %v", line, err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	waitFor(t, func() bool { return len(a.Agents()) == 1 }, func() string { return "the agent was not recorded" })
	if !a.Disconnect(a.Agents()[0].ID) {
		t.Fatal("Disconnect found no agent")
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := lines.ReadString('\n')
	var msg struct{ Method string }
	if err != nil || json.Unmarshal([]byte(line), &msg) != nil || msg.Method != app.Disconnected {
		t.Fatalf("after Disconnect: %q, %v", line, err)
	}
	if rest, err := lines.ReadString('\n'); err == nil {
		t.Fatalf("the connection stayed open: %q", rest)
	}
	if len(a.Agents()) != 0 {
		t.Fatalf("agents = %v", agentNames(a))
	}
}

// What octo app --print-config prints is the config it runs: the same connector, flow and block
// on the same data folder, and both build, whatever the folder's name holds (a "${" that octo
// run would read as a variable, quotes, backslashes, non-ASCII).
func TestThePrintedConfigIsTheEmbeddedOne(t *testing.T) {
	for name, dir := range map[string]string{
		"a plain folder":                    "octo",
		"a folder named like a variable":    "a${HOME}b",
		"a folder with the escape in it":    "x$${y}$",
		"quotes, backslashes and non-ASCII": `q"u\o'té ${`,
	} {
		t.Run(name, func(t *testing.T) {
			dataDir := filepath.Join(t.TempDir(), dir)
			if err := os.MkdirAll(dataDir, 0o700); err != nil {
				t.Fatal(err)
			}
			printedConfigRuns(t, dataDir)
		})
	}
}

func printedConfigRuns(t *testing.T, dataDir string) {
	file := filepath.Join(t.TempDir(), "octo-app.yaml")
	if err := os.WriteFile(file, []byte(app.EmbeddedYAML(dataDir, app.Ports{})), 0o600); err != nil {
		t.Fatal(err)
	}
	printed, err := config.Load(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	emb := app.EmbeddedWithConsole(dataDir, app.Ports{})
	same := func(c *config.Config) string {
		out := c.Service.Name
		for _, cn := range c.Connectors {
			out += fmt.Sprintf("|%s:%s", cn.Name, cn.Type)
		}
		for _, f := range c.Flows {
			out += fmt.Sprintf("|%s<-%s|%s", f.Name, f.Source.Connector, f.Process[0].Type)
		}
		return out
	}
	if len(printed.Connectors) != 2 || len(printed.Flows) != 2 || same(printed) != same(emb) {
		t.Fatalf("printed %s, runs %s", same(printed), same(emb))
	}
	for _, c := range []*config.Config{printed, emb} {
		svc, err := runtime.NewService(c, runtime.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.Files[0], err)
		}
		if got := svc.Connector("agent").(interface{ DataDir() string }).DataDir(); got != dataDir {
			t.Fatalf("%s: the connector's data folder is %q, want %q", c.Files[0], got, dataDir)
		}
	}
}

// Run by `octo run` (no octo app around it), the block opens the app itself on the data
// folder's last workspace, starts its remembered servers, and closes it when it stops.
func TestTheBlockOpensItsOwnAppWhenNobodyHas(t *testing.T) {
	ws, dataDir := newWorkspace(t), t.TempDir()
	first := open(t, app.Options{DataDir: dataDir, Workspace: ws})
	if _, err := first.Start(context.Background(), "Weather"); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := appdata.SaveSettings(dataDir, appdata.Settings{Workspace: ws, Agents: appdata.Agents{Allow: true, Approve: appdata.ApproveNever}}); err != nil {
		t.Fatal(err)
	}
	svc, err := runtime.NewService(app.Embedded(dataDir), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := svc.Stop(ctx); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(stop)
	cs := connect(t, dataDir, "test-agent")
	text := tool(t, cs, "list_servers", nil)
	if !strings.Contains(text, `"running": true`) || !strings.Contains(text, "http://127.0.0.1:") {
		t.Fatalf("the remembered server does not run: %s", text)
	}
	var url string
	for _, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, "http://127.0.0.1:"); i >= 0 {
			url = strings.Trim(line[i:], `",`)
		}
	}
	cs.Close()
	stop()
	if _, err := (&net.Dialer{Timeout: time.Second}).Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")); err == nil {
		t.Fatalf("%s still answers after the block stopped", url)
	}
}

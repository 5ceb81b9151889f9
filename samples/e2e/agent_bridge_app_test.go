package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The agent bridge with the app: the built binary's `octo mcp` starts `octo app` (through an
// OCTO_APP script that notes each start), and agents drive both through the official Go SDK.

// appHome is a data folder whose settings let agents act without asking, a workspace, and an
// OCTO_APP script that runs the built binary's `octo app`, noting each start (its pid) and
// keeping its log, so that a test counts the apps started and ends them.
type appHome struct {
	env         []string
	dataDir, ws string
	pids, log   string
}

func newAppHome(t *testing.T) *appHome {
	t.Helper()
	dir := t.TempDir()
	h := &appHome{dataDir: filepath.Join(dir, "data"), ws: filepath.Join(dir, "mocks"),
		pids: filepath.Join(dir, "app-pids"), log: filepath.Join(dir, "app.log")}
	writeAgentSettings(t, h.dataDir, "workspace: "+h.ws+"\nagents:\n  allow: true\n  approve: never\n")
	app := filepath.Join(dir, "app.sh")
	body := "#!/bin/sh\necho $$ >> '" + h.pids + "'\nexec '" + octoBin + "' app 2>> '" + h.log + "'\n"
	if err := os.WriteFile(app, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	h.env = []string{"OCTO_APP=" + app, "OCTO_DATA_DIR=" + h.dataDir}
	t.Cleanup(func() {
		h.stopApps(t)
		if t.Failed() {
			b, _ := os.ReadFile(h.log)
			t.Logf("the app's log:\n%s", b)
		}
	})
	return h
}

// started returns the pids of the apps started so far.
func (h *appHome) started() []int {
	b, _ := os.ReadFile(h.pids)
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// kill ends an app at once, as a crash would.
func (h *appHome) kill(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(pid, 10*time.Second)
}

// stopApps ends every app the bridge started, as the user quitting it would.
func (h *appHome) stopApps(t *testing.T) {
	for _, pid := range h.started() {
		if syscall.Kill(pid, syscall.SIGTERM) == nil && !waitGone(pid, 10*time.Second) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("the app %d did not stop on SIGTERM", pid)
		}
	}
}

// waitGone waits until process pid has ended (it is not the test's child: the bridge started
// it detached, and init reaps it).
func waitGone(pid int, within time.Duration) bool {
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
	}
	return false
}

// The first tool call starts the app (OCTO_APP), detached, waits for it and succeeds; later
// calls use the same connection; initialize alone started nothing.
func TestAgentBridgeStartsTheAppOnTheFirstCall(t *testing.T) {
	h := newAppHome(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, nil)
	cs, stderr := connectStdio(t, ctx, client, h.env, "mcp")
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(h.started()); n != 0 {
		t.Fatalf("initialize and tools/list started %d apps", n)
	}
	text, isErr := toolText(t, ctx, cs, "get_workspace", map[string]any{})
	if isErr || !strings.Contains(text, h.ws) {
		t.Fatalf("get_workspace = %q (isError %v)\n%s", text, isErr, stderr)
	}
	if _, err := os.Stat(filepath.Join(h.dataDir, "agent.json")); err != nil {
		t.Fatalf("no agent.json once the app answered: %v", err)
	}
	text, isErr = toolText(t, ctx, cs, "list_servers", map[string]any{})
	if isErr {
		t.Fatalf("list_servers = %q", text)
	}
	if pids := h.started(); len(pids) != 1 {
		t.Fatalf("%d apps started, want 1", len(pids))
	}
}

// Two agents whose first calls come at once start one app between them.
func TestTwoAgentBridgesStartOneApp(t *testing.T) {
	h := newAppHome(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var sessions []*mcp.ClientSession
	for _, name := range []string{"agent-a", "agent-b"} {
		client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
		cs, _ := connectStdio(t, ctx, client, h.env, "mcp")
		sessions = append(sessions, cs)
	}
	errs := make(chan error, len(sessions))
	for _, cs := range sessions {
		go func() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_workspace", Arguments: map[string]any{}})
			if err == nil && res.IsError {
				err = fmt.Errorf("isError: %s", jsonText(res))
			}
			errs <- err
		}()
	}
	for range sessions {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if pids := h.started(); len(pids) != 1 {
		t.Fatalf("%d apps started, want 1", len(pids))
	}
}

// serveSlowMock saves and starts, through the bridge, "Slow mock": a server whose tool
// answers after delay (with progress each second meanwhile), for calls to cancel or cut.
func serveSlowMock(t *testing.T, ctx context.Context, cs *mcp.ClientSession, delay time.Duration, stderr fmt.Stringer) {
	t.Helper()
	slow := map[string]any{"name": "Slow mock", "kind": "mcp", "port": 0, "mcp": map[string]any{
		"tools": []any{map[string]any{"name": "slow_report", "result": "done", "delayMs": delay.Milliseconds()}}}}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{{"save_server", slow}, {"start_server", map[string]any{"name": "Slow mock"}}} {
		if text, isErr := toolText(t, ctx, cs, c.tool, c.args); isErr {
			t.Fatalf("%s = %q\n%s", c.tool, text, stderr)
		}
	}
}

// An agent that cancels a call cancels it in the app at once: the app's call_server stops, and
// the mock it called hears notifications/cancelled, which its traffic shows.
func TestAgentBridgeCancelsASlowCallInTheApp(t *testing.T) {
	h := newAppHome(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, nil)
	cs, stderr := connectStdio(t, ctx, client, h.env, "mcp")
	serveSlowMock(t, ctx, cs, 30*time.Second, stderr)
	callCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "call_server",
			Arguments: map[string]any{"server": "Slow mock", "tool": "slow_report", "arguments": map[string]any{}}})
		done <- err
	}()
	waitForTraffic(t, ctx, cs, "tools/call") // the mock got the call
	stop()
	<-done
	waitForTraffic(t, ctx, cs, "notifications/cancelled")
	if waited := time.Since(start); waited > 20*time.Second {
		t.Errorf("the cancel took %s to reach the mock", waited)
	}
}

// waitForTraffic polls get_traffic until the slow mock's traffic holds a message of method.
func waitForTraffic(t *testing.T, ctx context.Context, cs *mcp.ClientSession, method string) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		text, isErr := toolText(t, ctx, cs, "get_traffic", map[string]any{"server": "Slow mock", "method": method})
		if isErr {
			t.Fatalf("get_traffic = %q", text)
		}
		if strings.Contains(text, `"method":"`+method+`"`) || strings.Contains(text, `"method": "`+method+`"`) {
			return
		}
	}
	t.Fatalf("the slow mock's traffic shows no %s", method)
}

// The app going away: during a call the agent hears "closed before the call finished"; the next
// call tries the app once more and says "closed the connection; try again"; the one after that
// starts the app again.
func TestAgentBridgeWhenTheAppCloses(t *testing.T) {
	h := newAppHome(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, nil)
	cs, stderr := connectStdio(t, ctx, client, h.env, "mcp")
	serveSlowMock(t, ctx, cs, 30*time.Second, stderr)
	got := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "call_server",
			Arguments: map[string]any{"server": "Slow mock", "tool": "slow_report", "arguments": map[string]any{}}})
		got <- fmt.Sprintf("%s %v", jsonText(res), err)
	}()
	waitForTraffic(t, ctx, cs, "tools/call")
	h.kill(t, h.started()[0])
	if a := <-got; a != `{"content":[{"type":"text","text":"Octo closed before the call finished."}],"isError":true,"resultType":"complete"} <nil>` {
		t.Fatalf("the call cut short got %s", a)
	}
	if text, isErr := toolText(t, ctx, cs, "list_servers", map[string]any{}); !isErr || text != "Octo closed the connection; try again." {
		t.Fatalf("the next call got %q (isError %v)", text, isErr)
	}
	if text, isErr := toolText(t, ctx, cs, "list_servers", map[string]any{}); isErr || !strings.Contains(text, "Slow mock") {
		t.Fatalf("the call after got %q (isError %v)\n%s", text, isErr, stderr)
	}
	if pids := h.started(); len(pids) != 2 {
		t.Fatalf("%d apps started, want 2 (the first, and the one after it was closed)", len(pids))
	}
}

// The whole path: an agent builds a mock through the bridge (save_server, start_server,
// call_server, get_traffic), and then the official Go SDK client calls that mock over HTTP as
// any MCP client would.
func TestAnAgentBuildsAMockThroughTheBridge(t *testing.T) {
	h := newAppHome(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	agent := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, nil)
	cs, stderr := connectStdio(t, ctx, agent, h.env, "mcp")

	weather := map[string]any{"name": "Weather mock", "kind": "mcp", "port": 0, "mcp": map[string]any{
		"instructions": "Use get_weather for the weather in a city.",
		"tools": []any{map[string]any{
			"name":        "get_weather",
			"description": "The current weather in a city.",
			"inputSchema": `{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`,
			"result":      `{"city": "{{args.city}}", "forecast": "sunny"}`,
		}},
	}}
	if text, isErr := toolText(t, ctx, cs, "save_server", weather); isErr {
		t.Fatalf("save_server = %q\n%s", text, stderr)
	}
	text, isErr := toolText(t, ctx, cs, "start_server", map[string]any{"name": "Weather mock"})
	m := regexp.MustCompile(`serves at (http://127\.0\.0\.1:\d+/mcp)`).FindStringSubmatch(text)
	if isErr || m == nil {
		t.Fatalf("start_server = %q (isError %v)", text, isErr)
	}
	url := m[1]
	text, isErr = toolText(t, ctx, cs, "call_server",
		map[string]any{"server": "Weather mock", "tool": "get_weather", "arguments": map[string]any{"city": "Oslo"}})
	if isErr || !strings.Contains(text, `Oslo`) || !strings.Contains(text, "sunny") {
		t.Fatalf("call_server = %q (isError %v)", text, isErr)
	}
	text, isErr = toolText(t, ctx, cs, "get_traffic", map[string]any{"server": "Weather mock", "method": "tools/call"})
	if isErr || !strings.Contains(text, "get_weather") {
		t.Fatalf("get_traffic = %q (isError %v)", text, isErr)
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-client", Version: "1"}, nil)
	mock, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect to the mock at %s: %v", url, err)
	}
	defer mock.Close()
	if ir := mock.InitializeResult(); ir.ServerInfo.Name != "Weather mock" || ir.Instructions != "Use get_weather for the weather in a city." {
		t.Errorf("the mock's initialize = %s", jsonText(ir))
	}
	res, err := mock.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Lisbon"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != `{"city": "Lisbon", "forecast": "sunny"}` {
		t.Fatalf("the mock's get_weather = %s %v", jsonText(res), err)
	}
}

// writeAgentSettings writes the app's settings.yaml in dataDir as the user (or the console)
// leaves it.
func writeAgentSettings(t testing.TB, dataDir, text string) {
	t.Helper()
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, "settings.yaml"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// toolText calls a tool through the bridge and returns its first text and isError.
func toolText(t testing.TB, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("%s answered no content: %s", name, jsonText(res))
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	if text == nil {
		t.Fatalf("%s answered %s", name, jsonText(res))
	}
	return text.Text, res.IsError
}

// Working without the app: with agents.withoutApp and agents.allow on and no app running, the
// bridge runs the tools itself on the last workspace and starts no app. What reads works; what
// would ask the user is refused, saying why; nothing is written.
func TestAgentBridgeWithoutTheAppRefusesWhatWouldAsk(t *testing.T) {
	env, dataDir, mark := bridgeEnv(t)
	ws := filepath.Join(t.TempDir(), "mocks")
	writeAgentSettings(t, dataDir, "workspace: "+ws+"\nagents:\n  allow: true\n  withoutApp: true\n  approve: changes\n")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, nil)
	cs, stderr := connectStdio(t, ctx, client, env, "mcp")

	text, isErr := toolText(t, ctx, cs, "get_workspace", map[string]any{})
	if isErr || !strings.Contains(text, ws) {
		t.Fatalf("get_workspace = %q (isError %v)\n%s", text, isErr, stderr)
	}
	server := map[string]any{"name": "Weather mock", "kind": "mcp",
		"mcp": map[string]any{"tools": []any{map[string]any{"name": "get_weather", "result": "sunny"}}}}
	refused := func(tool string, args map[string]any) {
		t.Helper()
		text, isErr := toolText(t, ctx, cs, tool, args)
		if !isErr || !strings.Contains(text, "Octo's app is not open") || !strings.Contains(text, "Ask the user to open Octo") {
			t.Errorf("%s = %q (isError %v), want the headless refusal", tool, text, isErr)
		}
	}
	refused("save_server", server)
	if entries, _ := os.ReadDir(filepath.Join(ws, "servers")); len(entries) != 0 {
		t.Errorf("the refused save wrote %d files", len(entries))
	}
	writeFile(t, filepath.Join(ws, "servers", "Weather mock.yaml"), "name: Weather mock\nkind: mcp\nport: 0\n") // the user's own
	refused("start_server", map[string]any{"name": "Weather mock"})
	refused("delete_server", map[string]any{"name": "Weather mock"})
	if _, err := os.Stat(filepath.Join(ws, "servers", "Weather mock.yaml")); err != nil {
		t.Errorf("the refused delete removed the file: %v", err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the bridge started the app although it may work without it")
	}

	// The user opens the app: it takes over from the next call, and answers in its own words
	// (it asks in its console, where nobody answers within the second it is given).
	app := exec.Command(octoBin, "app", "--approval-timeout", "1s")
	app.Env = append(os.Environ(), "OCTO_DATA_DIR="+dataDir)
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = app.Process.Signal(syscall.SIGTERM); _ = app.Wait() })
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dataDir, "agent.json")); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatal("the app wrote no agent.json")
		}
	}
	text, isErr = toolText(t, ctx, cs, "save_server", server) // it replaces the user's file
	if !isErr || strings.Contains(text, "Octo's app is not open") || !strings.Contains(text, "did not answer within 1s") {
		t.Errorf("save_server once the app is open = %q (isError %v), want the app's own refusal", text, isErr)
	}
}

// Progress of a call in the app reaches the agent with the agent's own token: a slow mock
// reports progress to call_server, the app to the bridge, the bridge to the agent.
func TestAgentBridgePassesTheAppsProgressOn(t *testing.T) {
	h := newAppHome(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	var heard []string
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			heard = append(heard, fmt.Sprintf("%v %v", r.Params.ProgressToken, r.Params.Progress))
		}})
	cs, stderr := connectStdio(t, ctx, client, h.env, "mcp")
	serveSlowMock(t, ctx, cs, 2500*time.Millisecond, stderr)
	params := &mcp.CallToolParams{Name: "call_server",
		Arguments: map[string]any{"server": "Slow mock", "tool": "slow_report", "arguments": map[string]any{}}}
	params.SetProgressToken("agent-42")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError || !strings.Contains(jsonText(res), "done") {
		t.Fatalf("call_server = %s %v", jsonText(res), err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(heard) < 2 || !strings.HasPrefix(heard[0], "agent-42 ") {
		t.Fatalf("the agent heard %q, want the slow mock's progress under its token", heard)
	}
}

// Without OCTO_APP the bridge starts `octo app` from its own binary, with the data folder in
// OCTO_DATA_DIR, detached: in a session of its own, so that the agent's end does not end it.
func TestAgentBridgeStartsOctoAppFromItsOwnBinary(t *testing.T) {
	h := newAppHome(t)
	env := []string{"OCTO_DATA_DIR=" + h.dataDir} // no OCTO_APP
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, nil)
	cs, stderr := connectStdio(t, ctx, client, env, "mcp")
	if text, isErr := toolText(t, ctx, cs, "get_workspace", map[string]any{}); isErr || !strings.Contains(text, h.ws) {
		t.Fatalf("get_workspace = %q (isError %v)\n%s", text, isErr, stderr)
	}
	b, err := os.ReadFile(filepath.Join(h.dataDir, "agent.json"))
	if err != nil {
		t.Fatal(err)
	}
	var info struct{ PID int }
	if err := json.Unmarshal(b, &info); err != nil || info.PID <= 0 {
		t.Fatalf("agent.json %s: %v", b, err)
	}
	if err := os.WriteFile(h.pids, []byte(strconv.Itoa(info.PID)+"\n"), 0o600); err != nil {
		t.Fatal(err) // so that the cleanup ends it
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", info.PID))
	if err != nil {
		t.Skipf("no /proc to check the app's command line and session: %v", err)
	}
	if args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00"); len(args) != 2 || args[0] != octoBin || args[1] != "app" {
		t.Errorf("the app runs as %q, want %s app", args, octoBin)
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", info.PID))
	if err != nil {
		t.Fatal(err)
	}
	// stat: pid (comm) state ppid pgrp session …; comm may hold spaces, so count after ')'.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(fields) < 4 || fields[3] != strconv.Itoa(info.PID) {
		t.Errorf("the app's session is %v, want its own (%d)", fields[3:4], info.PID)
	}
}

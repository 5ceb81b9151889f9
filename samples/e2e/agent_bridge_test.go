package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The agent bridge, `octo mcp`, driven as an agent drives it: the built binary on a pipe. These
// tests need no app: the bridge answers the handshake itself, and an app it would start is a
// program that leaves a mark, so a test can tell that none was started.

// bridgeEnv is the environment of an `octo mcp` that must not start an app: OCTO_APP names a
// script that only leaves the file it returns, which a test checks is absent.
func bridgeEnv(t testing.TB) (env []string, dataDir, startedMark string) {
	t.Helper()
	dir := t.TempDir()
	dataDir, startedMark = filepath.Join(dir, "data"), filepath.Join(dir, "app-started")
	app := filepath.Join(dir, "app.sh")
	if err := os.WriteFile(app, []byte("#!/bin/sh\ntouch '"+startedMark+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"OCTO_APP=" + app, "OCTO_DATA_DIR=" + dataDir}, dataDir, startedMark
}

// bridge is a running `octo mcp` whose standard input and output the test holds.
type bridge struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
	lines  []string // every line read from standard output
}

func startBridge(t testing.TB, env []string, args ...string) *bridge {
	t.Helper()
	cmd := exec.Command(octoBin, append([]string{"mcp"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	b := &bridge{cmd: cmd, stderr: new(bytes.Buffer)}
	cmd.Stderr = b.stderr
	var err error
	if b.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	b.out = bufio.NewReaderSize(out, 1<<20)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return b
}

func (b *bridge) send(t testing.TB, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(b.in, l+"\n"); err != nil {
			t.Fatalf("writing to octo mcp: %v\n%s", err, b.stderr)
		}
	}
}

// recv reads the next line of standard output as a JSON object, within 20 seconds.
func (b *bridge) recv(t testing.TB) map[string]any {
	t.Helper()
	type read struct {
		line string
		err  error
	}
	got := make(chan read, 1)
	go func() {
		line, err := b.out.ReadString('\n')
		got <- read{line, err}
	}()
	select {
	case r := <-got:
		if r.err != nil {
			t.Fatalf("reading octo mcp's output: %v\n%s", r.err, b.stderr)
		}
		b.lines = append(b.lines, r.line)
		var m map[string]any
		if err := json.Unmarshal([]byte(r.line), &m); err != nil {
			t.Fatalf("octo mcp wrote a line that is not a JSON object: %q", r.line)
		}
		return m
	case <-time.After(20 * time.Second):
		t.Fatalf("no answer from octo mcp in 20s\n%s", b.stderr)
	}
	return nil
}

// byID reads n answers and returns them by id (answers come as they are done, not in order).
func (b *bridge) byID(t testing.TB, n int) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for range n {
		m := b.recv(t)
		id, _ := json.Marshal(m["id"])
		out[string(id)] = m
	}
	return out
}

// end closes standard input and returns the exit code and what was left on standard output.
func (b *bridge) end(t testing.TB) (int, string) {
	t.Helper()
	b.in.Close()
	rest, _ := io.ReadAll(b.out)
	done := make(chan error, 1)
	go func() { done <- b.cmd.Wait() }()
	select {
	case err := <-done:
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(rest)
	case <-time.After(20 * time.Second):
		t.Fatalf("octo mcp did not exit 20s after its input ended\n%s", b.stderr)
	}
	return 0, ""
}

func agentInitialize(version string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{},"clientInfo":{"name":"e2e-agent","version":"1"}}}`
}

// The official Go SDK client, as an agent: initialize names octo, every tool and both prompts
// are listed, a prompt renders, and no app was started for any of it.
func TestAgentBridgeAnswersWithoutTheApp(t *testing.T) {
	env, dataDir, mark := bridgeEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, nil)
	cs, _ := connectStdio(t, ctx, client, env, "mcp")

	ir := cs.InitializeResult()
	if ir.ServerInfo.Name != "octo" || ir.ServerInfo.Title != "Octo" || ir.ServerInfo.Version == "" ||
		ir.ProtocolVersion != "2025-06-18" && ir.ProtocolVersion != "2025-11-25" {
		t.Fatalf("initialize = %s", jsonText(ir))
	}
	if ir.Capabilities.Tools == nil || ir.Capabilities.Prompts == nil || ir.Capabilities.Resources != nil {
		t.Errorf("capabilities = %s, want tools and prompts only", jsonText(ir.Capabilities))
	}
	if !strings.Contains(ir.Instructions, "get_workspace") || !strings.Contains(ir.Instructions, "{{") {
		t.Errorf("instructions = %q: they start with get_workspace and put hosts in {{variables}}", ir.Instructions)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	want := "get_workspace list_servers get_server save_server delete_server start_server stop_server get_traffic call_server"
	if strings.Join(names, " ") != want {
		t.Errorf("tools/list names %q, want %q", names, want)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) != 2 || prompts.Prompts[0].Name != "map_apis" || prompts.Prompts[1].Name != "test_apis" {
		t.Fatalf("prompts/list = %s %v", jsonText(prompts), err)
	}
	got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_apis", Arguments: map[string]string{"server": "Weather mock"}})
	if err != nil || len(got.Messages) != 1 || !strings.Contains(got.Messages[0].Content.(*mcp.TextContent).Text, "the saved mock server Weather mock") {
		t.Fatalf("prompts/get test_apis = %s %v", jsonText(got), err)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the handshake started the app")
	}
	if _, err := os.Stat(filepath.Join(dataDir, "agent.json")); err == nil {
		t.Error("agent.json appeared in the data folder")
	}
}

// Each version the bridge speaks is answered as asked; another gets 2025-11-25. Resources are
// not offered, yet listed as empty.
func TestAgentBridgeNegotiatesVersionsAndListsNoResources(t *testing.T) {
	env, _, _ := bridgeEnv(t)
	for _, v := range []struct{ asked, answered string }{
		{"2025-11-25", "2025-11-25"}, {"2025-06-18", "2025-06-18"}, {"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"}, {"2099-01-01", "2025-11-25"},
	} {
		b := startBridge(t, env)
		b.send(t, agentInitialize(v.asked), `{"jsonrpc":"2.0","id":2,"method":"resources/list"}`,
			`{"jsonrpc":"2.0","id":3,"method":"resources/templates/list"}`)
		got := b.byID(t, 3)
		if r := got["1"]["result"].(map[string]any); r["protocolVersion"] != v.answered {
			t.Errorf("asked %s, answered %v", v.asked, r["protocolVersion"])
		}
		if r := jsonText(got["2"]["result"]); r != `{"resources":[]}` {
			t.Errorf("resources/list = %s", r)
		}
		if r := jsonText(got["3"]["result"]); r != `{"resourceTemplates":[]}` {
			t.Errorf("resources/templates/list = %s", r)
		}
		if code, rest := b.end(t); code != 0 || rest != "" {
			t.Errorf("exit %d, left %q", code, rest)
		}
	}
}

// A line one byte over 64 MB is skipped with a parse error, and the next line is answered.
func TestAgentBridgeSkipsALineOver64MB(t *testing.T) {
	env, _, _ := bridgeEnv(t)
	b := startBridge(t, env)
	b.send(t, agentInitialize("2025-06-18"))
	b.recv(t)
	const limit = 64 << 20
	head, tail := `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"`, `"}}`
	long := head + strings.Repeat("x", limit+1-len(head)-len(tail)) + tail
	if len(long) != limit+1 {
		t.Fatalf("the line is %d bytes", len(long))
	}
	b.send(t, long, `{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	perr := b.recv(t)
	if e, _ := perr["error"].(map[string]any); e == nil || e["code"] != float64(-32700) || perr["id"] != nil {
		t.Fatalf("the long line got %s, want a parse error without an id", jsonText(perr))
	}
	if next := b.recv(t); jsonText(next) != `{"id":8,"jsonrpc":"2.0","result":{}}` {
		t.Fatalf("the next line got %s", jsonText(next))
	}
	if code, _ := b.end(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// Whatever the agent writes, standard output holds JSON-RPC messages and nothing else, one per
// line, and the bridge exits 0 when its input ends. A tool call whose app cannot be started is
// answered with the message agents are told.
func TestAgentBridgeWritesOnlyJSONRPC(t *testing.T) {
	env, _, _ := bridgeEnv(t)
	env = append(env, "OCTO_APP="+filepath.Join(t.TempDir(), "no-such-app"))
	in := []string{
		agentInitialize("2025-03-26"),
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`not json at all`,
		`{"jsonrpc":"2.0","id":2}`,
		`[]`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"tools/list"}]`,
		`{"jsonrpc":"2.0","id":5,"method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"no_such_prompt"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"get_workspace","arguments":{}}}`,
		"\x00\xff\xfe",
		`{"jsonrpc":"2.0","id":9,"method":"ping"}`,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, octoBin, "mcp")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(strings.Join(in, "\n") + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("octo mcp: %v\n%s", err, stderr.String())
	}
	out := stdout.Bytes()
	if len(out) == 0 || out[len(out)-1] != '\n' {
		t.Fatalf("standard output does not end with a line break: %q", out)
	}
	answered := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		var msgs []map[string]any
		if strings.HasPrefix(line, "[") {
			if err := json.Unmarshal([]byte(line), &msgs); err != nil {
				t.Fatalf("not JSON-RPC: %q", line)
			}
		} else {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("not JSON-RPC: %q", line)
			}
			msgs = append(msgs, m)
		}
		for _, m := range msgs {
			if m["jsonrpc"] != "2.0" || (m["result"] == nil) == (m["error"] == nil) {
				t.Fatalf("not a JSON-RPC response: %q", line)
			}
			answered[jsonText(m["id"])] = jsonText(m)
		}
	}
	for _, id := range []string{"1", "3", "4", "5", "6", "7", "8", "9"} {
		if answered[id] == "" {
			t.Errorf("id %s was not answered; standard output:\n%s", id, out)
		}
	}
	if !strings.Contains(answered["8"], `"isError":true`) ||
		!strings.Contains(answered["8"], "Octo is not running and could not be started (") ||
		!strings.Contains(answered["8"], "). Ask the user to open Octo.") {
		t.Errorf("a call whose app cannot start got %s", answered["8"])
	}
	if !strings.Contains(answered["6"], `"code":-32602`) {
		t.Errorf("an unknown tool got %s", answered["6"])
	}
}

// No data folder can be determined (no flag, no OCTO_DATA_DIR, no XDG_DATA_HOME, no home):
// exit 1, the reason on standard error after "octo mcp:", nothing on standard output.
func TestAgentBridgeWithoutADataFolderExits1(t *testing.T) {
	cmd := exec.Command(octoBin, "mcp")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cmd.Stdin = strings.NewReader(agentInitialize("2025-06-18") + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want 1\n%s", err, stderr.String())
	}
	if stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), "octo mcp: ") {
		t.Fatalf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}

// --data-dir wins over OCTO_DATA_DIR and is left out of the help.
func TestAgentBridgeDataDirFlagIsHidden(t *testing.T) {
	out, err := exec.Command(octoBin, "mcp", "--help").CombinedOutput()
	if err != nil || strings.Contains(string(out), "data-dir") || !strings.Contains(string(out), "usage: octo mcp") {
		t.Fatalf("octo mcp --help: %v\n%s", err, out)
	}
	help, _ := exec.Command(octoBin, "help").CombinedOutput()
	if !strings.Contains(string(help), "  mcp ") {
		t.Errorf("octo help does not list mcp:\n%s", help)
	}
}

// The README's check, pasted into a shell with octo on the PATH: the first answer names octo,
// the second lists the tools, and the pipe ends as its input does.
func TestReadmeAgentBridgeCheck(t *testing.T) {
	section := readmeSection(t, "AI agents")
	_, block, ok := strings.Cut(section, "```sh\nprintf")
	if !ok {
		t.Fatal(`the "AI agents" section has no printf check`)
	}
	block, _, _ = strings.Cut(block, "```")
	script := "printf" + block
	if !strings.Contains(script, "| octo mcp") {
		t.Fatalf("the check does not pipe into octo mcp:\n%s", script)
	}
	env, _, mark := bridgeEnv(t)
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append(append(os.Environ(), env...), "PATH="+filepath.Dir(octoBin)+":"+os.Getenv("PATH"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the README check: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), stdout.String())
	}
	byID := map[string]string{}
	for _, l := range lines {
		var m struct{ ID json.RawMessage }
		_ = json.Unmarshal([]byte(l), &m)
		byID[string(m.ID)] = l
	}
	if !strings.Contains(byID["1"], `"serverInfo":{"name":"octo","title":"Octo",`) {
		t.Errorf("the first answer: %s", byID["1"])
	}
	if !strings.Contains(byID["2"], `"tools":[{"name":"get_workspace"`) || !strings.Contains(byID["2"], `"name":"call_server"`) {
		t.Errorf("the second answer is not the tool list: %.300s", byID["2"])
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the check started the app")
	}
}

// BenchmarkAgentBridgeHandshake is what an agent waits for when it starts octo mcp: the process
// starting, reading initialize and answering it (the issue asks for under 100 ms).
func BenchmarkAgentBridgeHandshake(b *testing.B) {
	env, _, _ := bridgeEnv(b)
	line := agentInitialize("2025-06-18")
	for b.Loop() {
		br := startBridge(b, env)
		br.send(b, line)
		if m := br.recv(b); m["result"] == nil {
			b.Fatalf("initialize = %s", jsonText(m))
		}
		b.StopTimer()
		if code, _ := br.end(b); code != 0 {
			b.Fatalf("exit %d", code)
		}
		b.StartTimer()
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
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"save_server", server}, {"start_server", map[string]any{"name": "Weather mock"}},
		{"delete_server", map[string]any{"name": "Weather mock"}},
	} {
		text, isErr := toolText(t, ctx, cs, c.tool, c.args)
		if !isErr || !strings.Contains(text, "Octo's app is not open") || !strings.Contains(text, "Ask the user to open Octo") {
			t.Errorf("%s = %q (isError %v), want the headless refusal", c.tool, text, isErr)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(ws, "servers")); len(entries) != 0 {
		t.Errorf("the refused save wrote %d files", len(entries))
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the bridge started the app although it may work without it")
	}
}

// An agent that closes the bridge's standard output: the write fails, octo mcp says so on
// standard error and exits 1.
func TestAgentBridgeExits1WhenStandardOutputFails(t *testing.T) {
	env, _, _ := bridgeEnv(t)
	cmd := exec.Command(octoBin, "mcp")
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out.Close()
	_, _ = io.WriteString(in, agentInitialize("2025-06-18")+"\n")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("octo mcp did not exit after its output failed\n%s", stderr.String())
	}
	in.Close()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want 1\n%s", err, stderr.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if !strings.HasPrefix(line, "octo mcp: ") {
			t.Errorf("a line on standard error without the prefix: %q", line)
		}
	}
	if !strings.Contains(stderr.String(), "octo mcp: writing standard output: ") {
		t.Errorf("standard error does not say what failed:\n%s", stderr.String())
	}
}

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
		ir.ProtocolVersion != "2026-07-28" { // over stdio too, beside the older revisions

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

// The README's check, pasted into a shell with octo on the PATH: the first answer names octo,
// the second lists the tools, and the pipe ends as its input does.
func TestReadmeAgentBridgeCheck(t *testing.T) {
	section := docSection(t, "AI agents")
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

// The block is a block like any: a config of its own that runs agent-bridge on a stdio
// connector serves agents as octo mcp does.
func TestAgentBridgeBlockRunsInAConfigOfItsOwn(t *testing.T) {
	env, dataDir, mark := bridgeEnv(t)
	dir := t.TempDir()
	cfg := "service: { name: my-bridge }\nconnectors:\n  - { name: io, type: stdio }\nflows:\n  - name: agent\n" +
		"    source: { connector: io }\n    process:\n      - type: agent-bridge\n        settings: { dataDir: '" + dataDir + "' }\n"
	if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, nil)
	cs, _ := connectStdio(t, ctx, client, env, "run", "--config", dir)
	if ir := cs.InitializeResult(); ir.ServerInfo.Name != "octo" {
		t.Fatalf("initialize = %s", jsonText(ir))
	}
	if tools, err := cs.ListTools(ctx, nil); err != nil || len(tools.Tools) != 9 {
		t.Fatalf("tools/list = %s %v", jsonText(tools), err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the handshake started the app")
	}
}

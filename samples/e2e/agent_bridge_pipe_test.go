package e2e

import (
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
)

// The agent bridge's pipe: limits, what reaches standard output, exit codes.

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
	for _, version := range []string{"2025-03-26", "2025-11-25"} { // batches accepted in every version
		t.Run(version, func(t *testing.T) { bridgeWritesOnlyJSONRPC(t, version) })
	}
}

func bridgeWritesOnlyJSONRPC(t *testing.T, version string) {
	env, _, _ := bridgeEnv(t)
	env = append(env, "OCTO_APP="+filepath.Join(t.TempDir(), "no-such-app"))
	in := []string{
		agentInitialize(version),
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

// A usage mistake exits 1, as the product documents only 0 and 1: the reason on standard
// error after "octo mcp:", nothing on standard output, which an agent reads as MCP.
func TestAgentBridgeUsageMistakesExit1(t *testing.T) {
	for _, args := range [][]string{{"mcp", "extra"}, {"mcp", "--nope"}} {
		cmd := exec.Command(octoBin, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("octo %v: exit %v, want 1\n%s", args, err, stderr.String())
		}
		if stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), "octo mcp: ") || !strings.Contains(stderr.String(), "usage: octo mcp") {
			t.Fatalf("octo %v: stdout %q, stderr %q", args, stdout.String(), stderr.String())
		}
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

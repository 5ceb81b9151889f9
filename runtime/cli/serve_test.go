package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/runtime/cli"
	"github.com/octo-run/octo/runtime/runtimetest"
)

const echoServerFile = `name: Echo
kind: mcp
port: 0
mcp:
  tools:
    - { name: echo, description: Echo, result: "{{args.text}}" }
`

func mockWorkspace(t *testing.T, servers map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range servers {
		p := filepath.Join(dir, "servers", name+".yaml")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// serveInProcess runs Main with args until cancelled.
func serveInProcess(t *testing.T, stdin io.Reader, args ...string) (stdout, stderr *runtimetest.Buffer, cancel func() int) {
	t.Helper()
	stdout, stderr = &runtimetest.Buffer{}, &runtimetest.Buffer{}
	ctx, stop := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() {
		code <- cli.Main(ctx, &cli.Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, LookupEnv: func(string) (string, bool) { return "", false }}, args)
	}()
	var once sync.Once
	var got int
	cancel = func() int {
		once.Do(func() {
			stop()
			select {
			case got = <-code:
			case <-time.After(10 * time.Second):
				t.Error("octo did not stop")
			}
		})
		return got
	}
	t.Cleanup(func() { cancel() })
	return stdout, stderr, cancel
}

func waitForText(t *testing.T, b *runtimetest.Buffer, text string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(b.String(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("never saw %q in:\n%s", text, b.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return b.String()
}

func TestServeRefusesWhatItCannotServe(t *testing.T) {
	two := mockWorkspace(t, map[string]string{"A": "name: A\nport: 0", "B": "name: B\nport: 0"})
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no workspace is a usage error", []string{"serve"}, 2, "name the workspace folder"},
		{"a folder that is no workspace is refused", []string{"serve", t.TempDir()}, 1, "is not a workspace"},
		{"a port for two servers is refused", []string{"serve", two, "--port", "4000"}, 1, "--port serves one server"},
		{"an unknown server is named", []string{"serve", two, "C"}, 1, `unknown server "C"`},
		{"a bad log level is a usage error", []string{"serve", two, "--log-level", "loud"}, 2, `unknown log level "loud"`},
		{"a shutdown timeout must be positive", []string{"serve", two, "--shutdown-timeout", "0s"}, 2, "--shutdown-timeout must be positive"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := runCLI(c.args...)
			if code != c.code || !strings.Contains(errs, c.stderr) {
				t.Fatalf("exit %d (want %d): %s", code, c.code, errs)
			}
		})
	}
}

func TestServePrintsAddressesAndLogsTraffic(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		name := "readable lines"
		if asJSON {
			name = "JSON lines"
		}
		t.Run("with "+name, func(t *testing.T) {
			ws := mockWorkspace(t, map[string]string{"Echo": echoServerFile})
			args := []string{"serve", ws}
			if asJSON {
				args = append(args, "--json")
			}
			stdout, stderr, cancel := serveInProcess(t, nil, args...)
			out := waitForText(t, stdout, "http://127.0.0.1:")
			url := strings.TrimSpace(out[strings.Index(out, "http://"):])
			if asJSON {
				var addr struct{ Server, URL string }
				if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &addr); err != nil || addr.Server != "Echo" {
					t.Fatalf("stdout %q: %v", out, err)
				}
				url = addr.URL
			} else if !strings.HasPrefix(out, "Echo  http://") {
				t.Fatalf("stdout = %q", out)
			}
			ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
			defer stop()
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
				t.Fatal(err)
			}
			cs.Close()
			if asJSON {
				waitForText(t, stderr, `"msg":"tools/call echo"`)
				waitForText(t, stderr, `"message":{"jsonrpc":"2.0"`)
			} else {
				waitForText(t, stderr, "Echo  in  tools/call echo  [")
				waitForText(t, stderr, "Echo  out result of tools/call echo  [")
			}
			if code := cancel(); code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr.String())
			}
		})
	}
}

func TestServeOverStdioWritesOnlyMCPToStdout(t *testing.T) {
	ws := mockWorkspace(t, map[string]string{"Echo": echoServerFile, "Other": "name: Other\nport: 0"})
	inR, inW := io.Pipe()
	stdout, stderr, cancel := serveInProcess(t, inR, "serve", ws, "Echo", "--stdio", "--json")
	_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`+"\n")
	waitForText(t, stdout, `"id":1,"result"`)
	inW.Close()
	if code := cancel(); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	sc := bufio.NewScanner(strings.NewReader(stdout.String()))
	for sc.Scan() {
		var msg struct{ JSONRPC string }
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.JSONRPC != "2.0" {
			t.Fatalf("stdout holds a line that is not MCP: %q", sc.Text())
		}
	}
	if !strings.Contains(stderr.String(), `"msg":"initialize"`) {
		t.Fatalf("stderr lacks the traffic log:\n%s", stderr.String())
	}
}

func TestRunRecognisesAWorkspace(t *testing.T) {
	ws := mockWorkspace(t, map[string]string{"Echo": echoServerFile})
	_, stderr, cancel := serveInProcess(t, nil, "run", "--config", ws)
	waitForText(t, stderr, `msg=serving server=Echo url=http://127.0.0.1:`)
	if code := cancel(); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	t.Run("validate builds every saved server", func(t *testing.T) {
		broken := mockWorkspace(t, map[string]string{"Echo": echoServerFile, "Bad": "name: Bad\nmcp: { tools: [ { name: x, result: '{{$nope}}' } ] }"})
		code, out, errs := runCLI("validate", "--config", broken)
		if code != 1 || !strings.Contains(errs, `unknown dynamic variable "$nope"`) || out != "" {
			t.Fatalf("exit %d\n%s%s", code, out, errs)
		}
	})
}

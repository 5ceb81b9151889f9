package workspace_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	_ "github.com/octo-run/octo/blocks/all"
	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/connectors/stdio"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// running is a workspace served by Run in the background.
type running struct {
	log   *runtimetest.Buffer
	ready chan [2]string // name, url
	done  chan error
}

func run(t *testing.T, dir string, opts workspace.Options) *running {
	t.Helper()
	r := &running{log: &runtimetest.Buffer{}, ready: make(chan [2]string, 16), done: make(chan error, 1)}
	opts.Logger = slog.New(slog.NewTextHandler(r.log, nil))
	opts.Poll = 20 * time.Millisecond
	opts.Ready = func(name, url string) { r.ready <- [2]string{name, url} }
	ctx, cancel := context.WithCancel(context.Background())
	go func() { r.done <- workspace.Run(ctx, dir, opts) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
			t.Error("Run did not return after its context ended")
		}
		if t.Failed() {
			t.Logf("log:\n%s", r.log.String())
		}
	})
	return r
}

// next waits for the next server to be ready.
func (r *running) next(t *testing.T) (name, url string) {
	t.Helper()
	select {
	case got := <-r.ready:
		return got[0], got[1]
	case err := <-r.done:
		t.Fatalf("Run returned %v\n%s", err, r.log.String())
	case <-time.After(10 * time.Second):
		t.Fatalf("no server became ready\n%s", r.log.String())
	}
	return "", ""
}

func (r *running) waitLog(t *testing.T, text string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(r.log.String(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("the log never showed %q:\n%s", text, r.log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func callText(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", tool, err)
	}
	return res.Content[0].(*sdk.TextContent).Text
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

const echoServer = `name: Echo
kind: mcp
port: 0
mcp:
  tools:
    - name: get_weather
      description: Weather
      result: "sunny {{token}} ${HOME}"
    - name: echo
      description: Echo
      result: "{{args.text}}"
  resources:
    - { uri: "docs://readme", name: readme, text: "v1" }
`

func TestOneBrokenServerDoesNotStopTheOthers(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"workspace.yaml":      "variables: { token: t1 }",
		"servers/Echo.yaml":   echoServer,
		"servers/Broken.yaml": "name: Broken\nport: 0\nmcp:\n  tools: [ { name: a, reslt: x } ]\n",
		"servers/Items.yaml":  "name: Items\nport: 0\nmcp:\n  tools: [ { name: ok, result: fine }, { name: bad, result: '{{$nope}}' } ]\n",
	})
	r := run(t, dir, workspace.Options{})
	ready := map[string]string{}
	for range 2 {
		name, url := r.next(t)
		ready[name] = url
	}
	if _, ok := ready["Broken"]; ok || ready["Echo"] == "" || ready["Items"] == "" {
		t.Fatalf("ready = %v", ready)
	}
	r.waitLog(t, `Broken.yaml:4:23: mcp.tools[0].reslt (server \"Broken\"): unknown key \"reslt\"`)
	r.waitLog(t, `unknown dynamic variable \"$nope\"`)
	t.Run("a server with a bad item serves the rest", func(t *testing.T) {
		cs := runtimetest.ConnectMCP(t, ready["Items"], nil)
		if got := runtimetest.ToolNames(t, cs); len(got) != 1 || got[0] != "ok" {
			t.Fatalf("tools = %v", got)
		}
	})
	t.Run("workspace files keep ${...} as text and fill {{variables}}", func(t *testing.T) {
		cs := runtimetest.ConnectMCP(t, ready["Echo"], nil)
		if got := callText(t, cs, "get_weather", nil); got != "sunny t1 ${HOME}" {
			t.Fatalf("answer = %q", got)
		}
	})
}

func TestRunRefusesWhatItCannotServe(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"servers/A.yaml": "name: Alpha\nport: 0", "servers/B.yaml": "name: Beta\nport: 0"})
	cases := []struct {
		name string
		opts workspace.Options
		want string
	}{
		{"an unknown server name is named with a suggestion", workspace.Options{Servers: []string{"Alpah"}}, `unknown server "Alpah" (did you mean "Alpha"?)`},
		{"a port for two servers is refused", workspace.Options{Port: 4000}, "--port serves one server"},
		{"stdio for two servers is refused", workspace.Options{Transport: workspace.Stdio}, "--stdio serves one server"},
		{"an unknown environment is refused", workspace.Options{Environment: "prod"}, `unknown environment "prod"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := workspace.Run(context.Background(), dir, c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	t.Run("a workspace whose every server is broken serves nothing", func(t *testing.T) {
		bad := t.TempDir()
		writeFiles(t, bad, map[string]string{"servers/A.yaml": "name: ["})
		err := workspace.Run(context.Background(), bad, workspace.Options{Logger: slog.New(slog.NewTextHandler(&runtimetest.Buffer{}, nil))})
		if !errors.Is(err, workspace.ErrNothingServed) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestOneServerServesOverStdioUntilInputEnds(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"servers/Echo.yaml": echoServer, "servers/Other.yaml": "name: Other\nport: 0"})
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	ctx := stdio.WithStreams(context.Background(), inR, outW)
	done := make(chan error, 1)
	go func() {
		done <- workspace.Run(ctx, dir, workspace.Options{Servers: []string{"echo"}, Transport: workspace.Stdio,
			Logger: slog.New(slog.NewTextHandler(&runtimetest.Buffer{}, nil))})
		outW.Close()
	}()
	lines := bufio.NewReader(outR)
	var out strings.Builder
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"over stdio"}}}`,
	} {
		_, _ = inW.WriteString(msg + "\n")
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString(line)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not end with its input")
	}
	if got := out.String(); !strings.Contains(got, `"serverInfo":{"name":"Echo"`) || !strings.Contains(got, `"text":"over stdio"`) {
		t.Fatalf("stdout:\n%s", got)
	}
	if rest, _ := readAll(outR); rest != "" {
		t.Fatalf("more on stdout than MCP answers: %q", rest)
	}
}

func readAll(f *os.File) (string, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(f)
	return b.String(), err
}

func TestValidateListsEveryProblem(t *testing.T) {
	t.Run("the weather sample builds cleanly", func(t *testing.T) {
		names, ds := workspace.Validate(filepath.Join("..", "..", "..", "..", "samples", "weather-mock"), "")
		if len(ds) > 0 || len(names) != 1 || names[0] != "Weather mock" {
			t.Fatalf("%v %v", names, ds)
		}
	})
	t.Run("load errors and left-out items are both listed", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"servers/A.yaml": "name: A\nmcp:\n  tools: [ { name: a, result: '{{nope}}' } ]\n",
			"servers/B.yaml": "name: B\nmcp:\n  path: nope\n",
			"servers/C.yaml": "name: C\n",
		})
		names, ds := workspace.Validate(dir, "")
		text := ds.Error()
		if len(names) != 1 || names[0] != "C" || !strings.Contains(text, `unknown variable "nope"`) || !strings.Contains(text, `path "nope" must start with /`) {
			t.Fatalf("names %v, problems:\n%s", names, text)
		}
	})
}

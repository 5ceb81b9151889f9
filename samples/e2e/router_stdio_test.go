package e2e

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readmeStdioConfig writes the "Serve a router over stdio" section's config (the stdio
// connector form) into a folder of its own.
func readmeStdioConfig(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cfg := readmeConfig(t, docSection(t, "Serve a router over stdio"))
	if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// connectStdio starts octo with args as an MCP client starts a server it runs as a command.
func connectStdio(t *testing.T, ctx context.Context, client *mcp.Client, env []string, args ...string) (*mcp.ClientSession, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(octoBin, args...)
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), env...)
	stderr := new(bytes.Buffer)
	cmd.Stderr = stderr
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect to octo %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		if t.Failed() {
			t.Logf("octo's standard error:\n%s", stderr)
		}
	})
	return cs, stderr
}

// The README's pipe: its printf lines go in, and the lines printed under it come out, exactly.
func TestReadmeStdioPipeAnswersAsPrinted(t *testing.T) {
	section := docSection(t, "Serve a router over stdio")
	in, env, args, want := readmePipe(t, section)
	if len(in) != 2 || len(want) != 2 || len(args) == 0 || len(env) != 0 {
		t.Fatalf("the README pipe has %d lines in, %d answers and args %q", len(in), len(want), args)
	}
	stderr := checkPipe(t, nil, args, in, want)
	if !strings.Contains(stderr, "service started") {
		t.Errorf("the log is not on standard error:\n%s", stderr)
	}
}

// checkPipe runs octo with args and env, writes the lines in to its standard input and closes
// it, and checks that standard output is the lines want; it returns standard error.
func checkPipe(t *testing.T, env, args, in, want []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, octoBin, args...)
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(strings.Join(in, "\n") + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("octo %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if got := strings.TrimSuffix(stdout.String(), "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("standard output:\n%s\nthe README prints:\n%s\nstandard error:\n%s", got, strings.Join(want, "\n"), stderr.String())
	}
	return stderr.String()
}

// The official Go SDK client starts octo as a command, both ways the README says: --stdio on the
// router sample, and a config whose flow has a stdio source.
func TestGoSDKClientUsesTheRouterOverStdio(t *testing.T) {
	forms := []struct {
		name string
		args func(t *testing.T) []string
	}{
		{"run --stdio on the router sample", func(*testing.T) []string {
			return []string{"run", "--config", "samples/mcp-router", "--stdio"}
		}},
		{"a flow whose source is a stdio connector", func(t *testing.T) []string {
			return []string{"run", "--config", readmeStdioConfig(t)}
		}},
	}
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e-stdio", Version: "1"}, nil)
			cs, _ := connectStdio(t, ctx, client, nil, f.args(t)...)
			// The SDK speaks 2026-07-28 first, which a stdio pipe serves beside the older revisions.
			if res := cs.InitializeResult(); res.ServerInfo.Name != "weather-tools" || res.ProtocolVersion != "2026-07-28" {
				t.Fatalf("initialize = %s", jsonText(res))
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "forecast" {
				t.Fatalf("tools/list = %s %v", jsonText(tools), err)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{"city": "Paris"}})
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != `{"city":"Paris","summary":"Sunny, 24C"}` {
				t.Fatalf("tools/call = %s %v", jsonText(res), err)
			}
		})
	}
}

// With --stdio the router's flow moves to the pipe and the others keep their connectors: the
// README's HTTP API config serves its API on its port, which the tool calls. A connector left
// with no flow (the router sample's) is not started, so its port stays free.
func TestRunStdioKeepsTheOtherFlowsServing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e-stdio", Version: "1"}, nil)

	t.Run("the tool calls the API flow on http", func(t *testing.T) {
		dir := t.TempDir()
		cfg := readmeConfig(t, docSection(t, "Call an HTTP API from a tool"))
		if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		port := strconv.Itoa(freePort(t))
		cs, _ := connectStdio(t, ctx, client, []string{"HTTP_PORT=" + port}, "run", "--config", dir, "--stdio")
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{"city": "Lisbon"}})
		if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != `{"city":"Lisbon","summary":"clear, 21C"}` {
			t.Fatalf("tools/call = %s %v", jsonText(res), err)
		}
		if a := do(t, "POST", "http://127.0.0.1:"+port+"/api/forecast", "application/json", `{"city":"Oslo"}`); a.status != 200 {
			t.Fatalf("the API flow answers %d %s", a.status, a.body)
		}
	})

	t.Run("a connector left with no flow binds no port", func(t *testing.T) {
		port := strconv.Itoa(freePort(t))
		cs, _ := connectStdio(t, ctx, client, []string{"HTTP_PORT=" + port}, "run", "--config", "samples/mcp-router", "--stdio")
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+port)
		if err != nil {
			t.Fatalf("the router sample's port is taken: %v", err)
		}
		ln.Close()
	})
}

// The TypeScript SDK's StdioClientTransport starts octo both ways too.
func TestTypeScriptSDKClientUsesTheRouterOverStdio(t *testing.T) {
	node, dir := typeScriptSDK(t)
	t.Run("run --stdio on the router sample", func(t *testing.T) {
		runStdioClientScript(t, node, dir, "run", "--config", filepath.Join(repoRoot(), "samples", "mcp-router"), "--stdio")
	})
	t.Run("a flow whose source is a stdio connector", func(t *testing.T) {
		runStdioClientScript(t, node, dir, "run", "--config", readmeStdioConfig(t))
	})
}

// runStdioClientScript runs node/router-stdio-client.mjs, which starts octo with args.
func runStdioClientScript(t *testing.T, node, dir string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"router-stdio-client.mjs", octoBin}, args...)...)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "ok: ") {
		t.Fatalf("node router-stdio-client.mjs %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Log(strings.TrimSpace(string(out)))
}

// What a client writes cannot break the pipe: a line over maxLineBytes, one that is not JSON and
// a request before initialize each get their JSON-RPC error, and the session goes on.
func TestTheRouterOverStdioAnswersBadLinesAndGoesOn(t *testing.T) {
	dir := t.TempDir()
	cfg := strings.Replace(readmeConfig(t, docSection(t, "Serve a router over stdio")),
		"{ name: io, type: stdio }", "{ name: io, type: stdio, settings: { maxLineBytes: 300 } }", 1)
	if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"` + strings.Repeat("x", 400) + `"}}}`,
		`not json`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Oslo"}}}`,
	}, "\n") + "\n"
	cmd := exec.CommandContext(ctx, octoBin, "run", "--config", dir)
	cmd.Stdin = strings.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	want := []string{
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: the session is not initialized; send initialize first"}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"weather-tools","version":"1.0.0"}}}`,
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the line is longer than the limit of 300 bytes"}}`,
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: invalid character 'o' in literal null (expecting 'u') at offset 2"}}`,
		`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"{\"city\":\"Oslo\",\"summary\":\"Sunny, 24C\"}"}]}}`,
	}
	if got := strings.TrimSuffix(stdout.String(), "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("standard output:\n%s\nwant:\n%s\nstandard error:\n%s", got, strings.Join(want, "\n"), stderr.String())
	}
}

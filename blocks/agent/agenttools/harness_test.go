package agenttools_test

// The tools over the real app: a temp workspace, real servers on real ports, the agent tools
// served as an MCP server to the official Go SDK client, which also calls what they built.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/blocks/agent/app"
	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestMain(m *testing.M) {
	if os.Getenv(peerEnv) != "" {
		lockPeer() // the other process of a two-process test (lock_test.go)
	}
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
	st := session.New(agenttools.Server(host, "test"), session.Options{})
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

// rawArgs sends arguments written as JSON text, keys in their order.
func rawArgs(text string) json.RawMessage { return json.RawMessage(text) }

package bridge

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/agentlink/handshake"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// These tests run the bridge's MCP server in-process on a stdio session, with real programs as
// the app it starts: ones that fail, exit at once or never answer. An app that answers is the
// built binary's `octo app`, in samples/e2e.

// notes is a notifier that keeps what the server tells the agent.
type notes struct {
	mu   sync.Mutex
	sent []string
}

func (n *notes) Notify(_ context.Context, method string, params any) error {
	b, _ := json.Marshal(params)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sent = append(n.sent, method+" "+string(b))
	return nil
}

func (n *notes) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.sent...)
}

// script writes an executable shell script and returns its path.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "app.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// callTool runs tools/call get_workspace through the bridge's server as the agent "tester",
// with a progress token, and returns the result's text and whether it is an error.
func callTool(t *testing.T, fwd *forwarder, n *notes) (string, bool) {
	t.Helper()
	srv := newServer(fwd)
	req := &jsonrpc.Request{ID: jsonrpc.IntID(1), Method: "tools/call",
		Params: json.RawMessage(`{"name":"get_workspace","arguments":{},"_meta":{"progressToken":"tok-1"}}`)}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp := srv.Handle(ctx, req, &mcp.RequestContext{Notifier: n})
	if resp.Error != nil {
		t.Fatalf("tools/call answered %v", resp.Error)
	}
	var r struct {
		Content []struct{ Text string }
		IsError bool
	}
	if err := json.Unmarshal(resp.Result, &r); err != nil || len(r.Content) != 1 {
		t.Fatalf("result %s: %v", resp.Result, err)
	}
	return r.Content[0].Text, r.IsError
}

func TestAnAppThatCannotStartIsReported(t *testing.T) {
	cases := []struct {
		name, app, want string
	}{
		{"no such program", filepath.Join(t.TempDir(), "octo-app-missing"),
			"Octo is not running and could not be started (octo-app-missing: no such file or directory). Ask the user to open Octo."},
		{"a program that fails at once", script(t, "echo 'cannot open the display' >&2; exit 3"),
			"Octo is not running and could not be started (it exited: exit status 3). Ask the user to open Octo."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(EnvApp, c.app)
			fwd := newForwarder(t.TempDir(), 20*time.Second, slog.New(slog.DiscardHandler))
			text, isErr := callTool(t, fwd, &notes{})
			if !isErr || text != c.want {
				t.Fatalf("got %q (isError %v)\nwant %q", text, isErr, c.want)
			}
		})
	}
}

// An app that starts but never answers is waited for as long as the bridge allows (30 s in
// octo mcp, less here), with progress each second, then the agent hears so.
func TestAnAppThatNeverAnswersTimesOut(t *testing.T) {
	tmp := t.TempDir()
	mark, pidFile := filepath.Join(tmp, "started"), filepath.Join(tmp, "pid")
	t.Setenv(EnvApp, script(t, "echo $$ > '"+pidFile+"'; echo \"$OCTO_DATA_DIR\" > '"+mark+"'; exec sleep 30"))
	t.Cleanup(func() { // the app outlives the bridge, as it should: end it here
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				if p, err := os.FindProcess(pid); err == nil {
					_ = p.Kill()
				}
			}
		}
	})
	dir := t.TempDir()
	fwd := newForwarder(dir, 2500*time.Millisecond, slog.New(slog.DiscardHandler))
	n := &notes{}
	start := time.Now()
	text, isErr := callTool(t, fwd, n)
	if !isErr || text != msgStartTimeout {
		t.Fatalf("got %q (isError %v)", text, isErr)
	}
	if waited := time.Since(start); waited < 2500*time.Millisecond {
		t.Errorf("gave up after %s", waited)
	}
	got, err := os.ReadFile(mark)
	if err != nil || strings.TrimSpace(string(got)) != dir {
		t.Errorf("the app got OCTO_DATA_DIR %q (%v), want %q", got, err, dir)
	}
	sent := n.all()
	if len(sent) < 2 || !strings.Contains(sent[0], `"progressToken":"tok-1","progress":1,`) ||
		!strings.Contains(sent[1], `"progress":2,`) || !strings.Contains(sent[0], "Starting Octo") {
		t.Errorf("progress while waiting: %q", sent)
	}
}

// The app's progress on a call follows on from what the bridge reported while the app started,
// so the agent sees it only grow; without a wait it passes as the app sent it.
func TestTheAppsProgressFollowsOnFromTheWait(t *testing.T) {
	n := &notes{}
	c := callOf(&mcp.RequestContext{ProgressToken: json.RawMessage(`7`), Notifier: n}, "call_server", nil)
	c.passOn(1, 2, "first")
	c.sent = 3 // seconds of waiting reported
	c.passOn(1, 2, "after a wait")
	c.passOn(2, 0, "no total")
	want := []string{
		`notifications/progress {"progressToken":7,"progress":1,"total":2,"message":"first"}`,
		`notifications/progress {"progressToken":7,"progress":4,"total":5,"message":"after a wait"}`,
		`notifications/progress {"progressToken":7,"progress":5,"message":"no total"}`,
	}
	if got := n.all(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// An app that runs (it holds the data folder's app lock) but does not take the connection is
// told to the agent as it is: no second app is started, and the bridge does not work without
// the app beside it, even with agents.withoutApp on.
func TestABridgeNeverStartsASecondAppBesideARunningOne(t *testing.T) {
	dir := t.TempDir()
	started := filepath.Join(t.TempDir(), "started")
	t.Setenv(EnvApp, script(t, "touch '"+started+"'"))
	if err := appdata.SaveSettings(dir, appdata.Settings{Workspace: t.TempDir(),
		Agents: appdata.Agents{Allow: true, WithoutApp: true, Approve: appdata.ApproveChanges}}); err != nil {
		t.Fatal(err)
	}
	lock, err := appdata.LockApp(dir) // the running app
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	t.Run("it listens, but refuses the connection as busy", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		info, err := appdata.NewInfo(ln.Addr().(*net.TCPAddr).Port)
		if err == nil {
			err = appdata.WriteInfo(dir, info)
		}
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for {
				conn, err := ln.Accept()
				if err != nil {
					return
				}
				handshake.RefuseBusy(conn, "too many connections are in the handshake (16, the agent connector's maxHandshakes)")
				conn.Close()
			}
		}()
		text, isErr := callTool(t, newForwarder(dir, 5*time.Second, slog.New(slog.DiscardHandler)), &notes{})
		if !isErr || !strings.HasPrefix(text, "Octo refused the connection: too many connections are in the handshake") {
			t.Fatalf("got %q (isError %v)", text, isErr)
		}
	})
	t.Run("its agent.json is gone", func(t *testing.T) {
		if err := os.Remove(filepath.Join(dir, appdata.InfoFile)); err != nil {
			t.Fatal(err)
		}
		text, isErr := callTool(t, newForwarder(dir, 5*time.Second, slog.New(slog.DiscardHandler)), &notes{})
		if !isErr || !strings.HasPrefix(text, "Octo is running but did not accept this agent's connection (octo is not running: no agent.json)") {
			t.Fatalf("got %q (isError %v)", text, isErr)
		}
	})
	if _, err := os.Stat(started); err == nil {
		t.Fatal("a second app was started")
	}
}

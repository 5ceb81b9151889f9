package workspace_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/blocks/mockkit/traffic"
	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// tapped collects the traffic a runner's tap hands over.
type tapped struct {
	mu  sync.Mutex
	evs []string // server kind method
}

func (tp *tapped) observe(server string, ev session.TrafficEvent) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	tp.evs = append(tp.evs, server+" "+string(ev.Kind)+" "+ev.Method)
}

func (tp *tapped) has(want string) bool {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	for _, e := range tp.evs {
		if e == want {
			return true
		}
	}
	return false
}

func newManual(t *testing.T, dir string, tap *traffic.Tap) *workspace.Servers {
	t.Helper()
	log := &runtimetest.Buffer{}
	rn, err := workspace.NewServers(dir, workspace.Options{Manual: true, Poll: 20 * time.Millisecond, Settle: -1,
		Logger: slog.New(slog.NewTextHandler(log, nil)), Tap: tap})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	if err := rn.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	go func() { rn.Follow(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
		rn.Close()
		if t.Failed() {
			t.Logf("log:\n%s", log.String())
		}
	})
	return rn
}

func stateOf(t *testing.T, rn *workspace.Servers, name string) workspace.State {
	t.Helper()
	for _, st := range rn.States() {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no state for %q in %+v", name, rn.States())
	return workspace.State{}
}

func TestRunnerStartsAndStopsSingleServers(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"servers/Echo.yaml":   echoServer,
		"servers/Other.yaml":  "name: Other\nport: 0\nmcp:\n  tools: [ { name: ok, result: fine } ]\n",
		"servers/Broken.yaml": "name: [",
	})
	tp := &tapped{}
	rn := newManual(t, dir, &traffic.Tap{Observe: tp.observe})
	for _, st := range rn.States() {
		if st.Running {
			t.Fatalf("a manual runner started %s by itself", st.Name)
		}
	}
	if st := stateOf(t, rn, "Broken"); !strings.Contains(st.Problem, "Broken.yaml:1") {
		t.Fatalf("Broken's problem = %q", st.Problem)
	}
	st, err := rn.Start(context.Background(), "echo")
	if err != nil || !st.Running || !strings.HasPrefix(st.URL, "http://127.0.0.1:") {
		t.Fatalf("Start = %+v, %v", st, err)
	}
	if stateOf(t, rn, "Other").Running {
		t.Fatal("starting Echo started Other")
	}
	cs := runtimetest.ConnectMCP(t, st.URL, nil)
	if got := callText(t, cs, "echo", map[string]any{"text": "hi"}); got != "hi" {
		t.Fatalf("echo = %q", got)
	}
	t.Run("the tap gets the traffic with the server's name, rejections included", func(t *testing.T) {
		resp, err := http.Post(st.URL, "application/json", strings.NewReader("{not json"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		waitFor(t, func() bool {
			return tp.has("Echo request tools/call") && tp.has("Echo result tools/call") && tp.has("Echo rejected ")
		}, func() string { return strings.Join(tp.evs, "\n") })
	})
	t.Run("unknown and broken servers say why", func(t *testing.T) {
		if _, err := rn.Start(context.Background(), "Ech"); err == nil || !strings.Contains(err.Error(), `unknown server "Ech" (did you mean "Echo"?)`) {
			t.Fatalf("err = %v", err)
		}
		if _, err := rn.Start(context.Background(), "Broken"); err == nil || !strings.Contains(err.Error(), "Broken cannot be read: ") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a stopped server stays stopped when its file is edited", func(t *testing.T) {
		if st, err := rn.Stop(context.Background(), "Echo"); err != nil || st.Running || st.Name != "Echo" {
			t.Fatalf("Stop = %+v, %v", st, err)
		}
		if stateOf(t, rn, "Echo").Running {
			t.Fatal("Echo still runs")
		}
		writeFiles(t, dir, map[string]string{"servers/Echo.yaml": strings.Replace(echoServer, "Weather", "Weather now", 1)})
		time.Sleep(150 * time.Millisecond) // several polls
		if stateOf(t, rn, "Echo").Running {
			t.Fatal("an edit started a stopped server")
		}
	})
	t.Run("a started server follows edits, and a new file waits to be started", func(t *testing.T) {
		st, err := rn.Start(context.Background(), "Other.yaml")
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(t, dir, map[string]string{"servers/Other.yaml": "name: Other\nport: 0\nmcp:\n  tools: [ { name: ok, result: finer } ]\n",
			"servers/New.yaml": "name: New\nport: 0\n"})
		cs := runtimetest.ConnectMCP(t, st.URL, nil)
		waitFor(t, func() bool { return callText(t, cs, "ok", nil) == "finer" }, func() string { return "the edit was not applied" })
		if stateOf(t, rn, "New").Running {
			t.Fatal("a new file started by itself")
		}
		writeFiles(t, dir, map[string]string{"servers/Other.yaml": "name: Other\nport: 0\nmcp:\n  tools: [ { name: ok, reslt: x } ]\n"})
		waitFor(t, func() bool { return strings.Contains(stateOf(t, rn, "Other").Problem, `unknown key "reslt"`) },
			func() string { return "a broken edit's problem: " + stateOf(t, rn, "Other").Problem })
		if st := stateOf(t, rn, "Other"); !st.Running || callText(t, cs, "ok", nil) != "finer" {
			t.Fatalf("the last good version stopped serving: %+v", st)
		}
		// Undone: the file is the version that serves again, so it has no problem.
		writeFiles(t, dir, map[string]string{"servers/Other.yaml": "name: Other\nport: 0\nmcp:\n  tools: [ { name: ok, result: finer } ]\n"})
		waitFor(t, func() bool { return stateOf(t, rn, "Other").Problem == "" },
			func() string { return "an undone edit's problem: " + stateOf(t, rn, "Other").Problem })
		writeFiles(t, dir, map[string]string{"servers/Other.yaml": "name: Other\nport: 0\nmcp:\n  tools: [ { name: ok, result: fixed } ]\n"})
		waitFor(t, func() bool { return stateOf(t, rn, "Other").Problem == "" && callText(t, cs, "ok", nil) == "fixed" },
			func() string { return "the fix: " + stateOf(t, rn, "Other").Problem })
	})
	t.Run("a server whose port is taken reports the problem", func(t *testing.T) {
		busy := stateOf(t, rn, "Other").URL // Other's port is in use by Other
		port := strings.TrimSuffix(strings.TrimPrefix(busy, "http://127.0.0.1:"), "/mcp")
		writeFiles(t, dir, map[string]string{"servers/Clash.yaml": "name: Clash\nport: " + port + "\n"})
		_, err := rn.Start(context.Background(), "Clash")
		if err == nil || !strings.Contains(stateOf(t, rn, "Clash").Problem, port) {
			t.Fatalf("err = %v, state = %+v", err, stateOf(t, rn, "Clash"))
		}
		if err := os.Remove(filepath.Join(dir, "servers", "Clash.yaml")); err != nil {
			t.Fatal(err)
		}
	})
}

// waitFor polls ok for up to 10 seconds; what describes the failure.
func waitFor(t *testing.T, ok func() bool, what func() string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out: %s", what())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRunnerSaysAPortIsInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"servers/Busy.yaml": "name: Busy\nport: " + port + "\n"})
	rn := newManual(t, dir, nil)
	_, err = rn.Start(context.Background(), "Busy")
	st := stateOf(t, rn, "Busy")
	if err == nil || st.Running || !strings.Contains(st.Problem, port) || !strings.Contains(err.Error(), "Busy did not start: ") {
		t.Fatalf("err = %v, state = %+v", err, st)
	}
	ln.Close()
	if st, err := rn.Start(context.Background(), "Busy"); err != nil || !st.Running || st.Problem != "" {
		t.Fatalf("once the port is free: %+v, %v", st, err)
	}
}

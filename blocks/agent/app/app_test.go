package app_test

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/blocks/agent/app"
	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const weather = `name: Weather
kind: mcp
port: 0
mcp:
  tools:
    - name: get_weather
      description: The weather
      result: "sunny in {{args.city}}"
`

const other = "name: Other\nkind: mcp\nport: 0\nmcp:\n  tools: [ { name: ok, result: fine } ]\n"

// newWorkspace writes a workspace with Weather and Other.
func newWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"Weather.yaml": weather, "Other.yaml": other} {
		p := filepath.Join(dir, "servers", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// open opens an app on opts, closed when the test ends.
func open(t *testing.T, opts app.Options) *app.App {
	t.Helper()
	log := &runtimetest.Buffer{}
	opts.Logger = slog.New(slog.NewTextHandler(log, nil))
	opts.Poll = 20 * time.Millisecond
	a, err := app.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Close(context.Background()); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("log:\n%s", log.String())
		}
	})
	return a
}

func state(t *testing.T, a *app.App, name string) agenttools.ServerState {
	t.Helper()
	for _, st := range a.States() {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no %s in %+v", name, a.States())
	return agenttools.ServerState{}
}

func TestAppStartsStopsAndRemembersServers(t *testing.T) {
	ws, data := newWorkspace(t), t.TempDir()
	a := open(t, app.Options{DataDir: data, Workspace: ws})
	if got := appSettings(t, data).Workspace; got != ws {
		t.Fatalf("settings.yaml's workspace = %q, want %q", got, ws)
	}
	if state(t, a, "Weather").Running || state(t, a, "Other").Running {
		t.Fatal("a server started that was never started")
	}
	st, err := a.Start(context.Background(), "Weather")
	if err != nil || !st.Running || st.URL == "" {
		t.Fatalf("Start = %+v, %v", st, err)
	}
	if _, err := a.Start(context.Background(), "Other"); err != nil {
		t.Fatal(err)
	}
	if err := a.Stop(context.Background(), "Other"); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Run("the started servers start again when the app opens, the workspace from settings", func(t *testing.T) {
		b := open(t, app.Options{DataDir: data})
		if state(t, b, "Weather").Running {
			t.Fatal("Open started a server before StartSaved")
		}
		b.StartSaved(context.Background())
		if b.Workspace() != ws {
			t.Fatalf("workspace = %q", b.Workspace())
		}
		if !state(t, b, "Weather").Running || state(t, b, "Other").Running {
			t.Fatalf("states = %+v", b.States())
		}
		info, err := os.Stat(filepath.Join(data, app.StartedFile))
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("started file: %v, %v", info, err)
		}
	})
}

func appSettings(t *testing.T, data string) appdata.Settings {
	t.Helper()
	s, err := appdata.LoadSettings(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOpenSaysWhichWorkspace(t *testing.T) {
	data := t.TempDir()
	first := open(t, app.Options{DataDir: data})
	if want := app.DefaultWorkspace(data); first.Workspace() != want || appSettings(t, data).Workspace != want {
		t.Fatalf("never named, the workspace is %q (settings: %q), want %q", first.Workspace(), appSettings(t, data).Workspace, want)
	}
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "main.go"), []byte("package main"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Open(context.Background(), app.Options{DataDir: data, Workspace: project}); err == nil || !strings.Contains(err.Error(), "is not a workspace") {
		t.Fatalf("err = %v", err)
	}
	fresh := filepath.Join(t.TempDir(), "mocks")
	a := open(t, app.Options{DataDir: data, Workspace: fresh})
	if _, err := os.Stat(filepath.Join(fresh, "servers")); err != nil || len(a.States()) != 0 {
		t.Fatalf("a new workspace: %v, %+v", err, a.States())
	}
}

func TestTrafficOfARealClientIsKeptAndQueried(t *testing.T) {
	a := open(t, app.Options{DataDir: t.TempDir(), Workspace: newWorkspace(t)})
	w, err := a.Start(context.Background(), "Weather")
	if err != nil {
		t.Fatal(err)
	}
	o, err := a.Start(context.Background(), "Other")
	if err != nil {
		t.Fatal(err)
	}
	cs := runtimetest.ConnectMCP(t, w.URL, nil)
	call(t, cs, "get_weather", map[string]any{"city": "Oslo"})
	before := time.Now()
	call(t, cs, "get_weather", map[string]any{"city": "Bergen"})
	call(t, runtimetest.ConnectMCP(t, o.URL, nil), "ok", nil)
	resp, err := http.Post(w.URL, "application/json", strings.NewReader("{not json"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	var calls []agenttools.TrafficEntry
	waitFor(t, func() bool {
		calls = a.Traffic(agenttools.TrafficQuery{Server: "weather", Method: "tools/call"})
		return len(calls) == 4 // two requests, two results
	}, func() string { return "tools/call entries: " + dump(calls) })
	if calls[0].Direction != "in" || calls[0].Kind != "request" || !strings.Contains(string(calls[0].Message), "Oslo") ||
		calls[3].Kind != "result" || !strings.Contains(string(calls[3].Message), "sunny in Bergen") {
		t.Fatalf("calls = %s", dump(calls))
	}
	for i := 1; i < len(calls); i++ {
		if calls[i].Seq <= calls[i-1].Seq {
			t.Fatalf("seqs not increasing: %s", dump(calls))
		}
	}
	t.Run("by session: only that session's entries, its opening first", func(t *testing.T) {
		got := a.Traffic(agenttools.TrafficQuery{Session: calls[0].Session})
		if len(got) == 0 || got[0].Kind != "session-opened" {
			t.Fatalf("session entries = %s", dump(got))
		}
		for _, e := range got {
			if e.Session != calls[0].Session || e.Server != "Weather" {
				t.Fatalf("entry of another session: %+v", e)
			}
		}
	})
	t.Run("since: the entries at or after it", func(t *testing.T) {
		got := a.Traffic(agenttools.TrafficQuery{Server: "Weather", Method: "tools/call", Since: before})
		if len(got) != 2 || !strings.Contains(string(got[0].Message), "Bergen") {
			t.Fatalf("since = %s", dump(got))
		}
	})
	t.Run("limit: the newest, oldest first", func(t *testing.T) {
		got := a.Traffic(agenttools.TrafficQuery{Server: "Weather", Method: "tools/call", Limit: 1})
		if len(got) != 1 || got[0].Seq != calls[3].Seq {
			t.Fatalf("limit 1 = %s", dump(got))
		}
	})
	t.Run("an HTTP-level rejection is kept", func(t *testing.T) {
		waitFor(t, func() bool {
			for _, e := range a.Traffic(agenttools.TrafficQuery{Server: "Weather"}) {
				if e.Kind == "rejected" && e.Status == http.StatusBadRequest && e.Code != 0 {
					return true
				}
			}
			return false
		}, func() string { return dump(a.Traffic(agenttools.TrafficQuery{Server: "Weather"})) })
	})
	t.Run("another server's traffic is apart", func(t *testing.T) {
		got := a.Traffic(agenttools.TrafficQuery{Server: "Other", Method: "tools/call"})
		if len(got) != 2 || got[0].Server != "Other" {
			t.Fatalf("Other's calls = %s", dump(got))
		}
	})
}

func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args}); err != nil {
		t.Fatalf("tools/call %s: %v", tool, err)
	}
}

func dump(es []agenttools.TrafficEntry) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString("\n  ")
		b.WriteString(e.Server + " " + e.Kind + " " + e.Method + " " + e.Summary)
	}
	return b.String()
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

func TestARunningAppFollowsSettingsEditedOutside(t *testing.T) {
	data := t.TempDir()
	a := open(t, app.Options{DataDir: data, Workspace: newWorkspace(t)})
	if a.Settings().Agents.Allow {
		t.Fatal("agents allowed before anyone allowed them")
	}
	// What `octo app --allow-agents` does while this app runs: it saves, and its own start fails.
	s := appSettings(t, data)
	s.Agents.Allow = true
	if err := appdata.SaveSettings(data, s); err != nil {
		t.Fatal(err)
	}
	if !a.Settings().Agents.Allow {
		t.Fatal("the running app did not read settings.yaml saved outside it")
	}
	if err := os.WriteFile(filepath.Join(data, appdata.SettingsFile), []byte("agents: [broken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !a.Settings().Agents.Allow {
		t.Fatal("a settings file that does not read changed the settings")
	}
}

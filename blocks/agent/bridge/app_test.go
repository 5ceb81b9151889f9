package bridge

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/agent/app"
	_ "github.com/octo-run/octo/connectors/agent"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/runtime"
)

// runApp serves the app in this process as `octo app` does: the App in the shared table and
// the app's embedded config (the agent connector, agent-tools), on the data folder dir.
func runApp(t *testing.T, dir string) *app.App {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "mocks")
	if err := appdata.SaveSettings(dir, appdata.Settings{Workspace: ws,
		Agents: appdata.Agents{Allow: true, Approve: appdata.ApproveNever}}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, err := app.Open(ctx, app.Options{DataDir: dir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	shared := runtime.NewShared()
	_, release, err := runtime.Acquire(shared, app.SharedKey(dir), func() (*app.App, error) { return a, nil })
	if err != nil {
		t.Fatal(err)
	}
	svc, err := runtime.NewService(app.Embedded(dir), runtime.Options{Shared: shared, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_ = svc.Stop(sctx)
		_ = release(sctx)
	})
	return a
}

// callThrough runs tools/call name through the bridge's server as the agent "tester" and returns the
// result as JSON text.
func callThrough(t *testing.T, srv *mcp.Server, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp := srv.Handle(ctx, &jsonrpc.Request{ID: jsonrpc.IntID(1), Method: "tools/call",
		Params: json.RawMessage(`{"name":"` + name + `","arguments":{}}`)}, &mcp.RequestContext{})
	if resp.Error != nil {
		t.Fatalf("%s answered %v", name, resp.Error)
	}
	return string(resp.Result)
}

// When the user disconnects the agent in the app (octo/disconnected), the call that was
// answered stays answered and every later call is told to stop, without reconnecting, even
// though the app still runs.
func TestADisconnectedAgentIsToldSoOnEveryLaterCall(t *testing.T) {
	dir := t.TempDir()
	a := runApp(t, dir)
	fwd := newForwarder(dir, 5*time.Second, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { _ = fwd.Close(context.Background()) })
	srv := newServer(fwd)
	if got := callThrough(t, srv, "list_servers"); strings.Contains(got, `"isError":true`) {
		t.Fatalf("list_servers through the app = %s", got)
	}
	agents := a.Agents()
	if len(agents) != 1 {
		t.Fatalf("the app sees %d agents, want 1", len(agents))
	}
	if !a.Disconnect(agents[0].ID) {
		t.Fatal("Disconnect found no agent")
	}
	want, _ := json.Marshal(mcp.ToolError(msgDisconnected))
	for i := range 3 {
		if got := callThrough(t, srv, "list_servers"); got != string(want) {
			t.Fatalf("call %d after the disconnect = %s", i+1, got)
		}
	}
	if n := len(a.Agents()); n != 0 {
		t.Fatalf("the bridge connected again: the app sees %d agents", n)
	}
}

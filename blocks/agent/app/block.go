package app

// The agent-tools block: the agent tools served as an MCP server to the agents connected
// through the `agent` connector, over the App that owns the workspace.

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/mcp/mcpmsg"
	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/cli"
)

// Type is the block's type.
const Type = "agent-tools"

// Disconnected is the notification an agent's connection gets when the user disconnects it.
const Disconnected = "octo/disconnected"

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    Type,
		Summary: "serves octo's agent tools (the workspace's mock servers, their traffic) to AI agents connected to the app",
		Doc: "The MCP server agents reach through octo mcp: get_workspace, list_servers, get_server, save_server, " +
			"delete_server, start_server, stop_server, get_traffic and call_server over the app's workspace, each call allowed and, " +
			"when it changes something, approved by the user first. One session per connection. Every agent-tools " +
			"block of a process on one data folder shares one app (octo app opens it with its terminal prompt; " +
			"otherwise the first block opens it, with nobody to ask).",
		Example:    "type: agent-tools\nsettings:\n  workspace: ./my-mocks\n",
		Transports: []string{stdiomsg.Transport},
		StreamsOn:  []string{stdiomsg.Transport},
		Build:      runtime.BlockFunc(buildBlock),
	})
}

// Settings are the agent-tools block's settings.
type Settings struct {
	DataDir string `yaml:"dataDir" doc:"The app's data folder (settings.yaml, agent.json); default: --data-dir of octo app, else OCTO_DATA_DIR, else the system's place for octo's data." example:"~/.local/share/octo"`
	// Workspace is only used when this block opens the app.
	Workspace string `yaml:"workspace" doc:"The workspace to open when the block opens the app itself, relative to the config's folder; default: the one settings.yaml names (the last one opened)." example:"./my-mocks"`
}

// SharedKey is the runtime.Shared key of the App on the data folder dir: `octo app` puts its
// App there before the config starts, and every agent-tools block on dir uses it.
func SharedKey(dir string) string { return "octo-app:" + dir }

// Block is a built agent-tools block: between Start and Stop it holds the app and serves its
// tools.
type Block struct {
	settings Settings
	dataDir  string
	shared   *runtime.Shared
	logger   func() *slog.Logger

	mu      sync.Mutex
	app     *App
	release runtime.Release
	st      *session.Front
	stdio   *mcpmsg.Stdio
}

func buildBlock(b *runtime.Build, s *Settings) (runtime.Block, error) {
	dir, err := appdata.DataDir(s.DataDir)
	if err != nil {
		return nil, b.Errorf(&s.DataDir, "%s", err.Error())
	}
	if s.Workspace != "" && !filepath.IsAbs(s.Workspace) && b.At.File != "" {
		s.Workspace = filepath.Join(filepath.Dir(b.At.File), s.Workspace)
	}
	return &Block{settings: *s, dataDir: dir, shared: b.Shared(), logger: b.Logger}, nil
}

// Start takes hold of the app on the data folder, opening it when nobody has.
func (b *Block) Start(ctx context.Context) error {
	a, release, err := runtime.Acquire(b.shared, SharedKey(b.dataDir), func() (*App, error) {
		a, err := Open(ctx, Options{DataDir: b.dataDir, Workspace: b.settings.Workspace, Logger: b.logger()})
		if err == nil {
			a.StartSaved(ctx)
		}
		return a, err
	})
	if err != nil {
		return err
	}
	srv := a.Tools().Server(cli.Version())
	srv.ShutdownCause = runtime.ErrShuttingDown
	srv.Handlers = map[string]mcp.HandlerFunc{"notifications/initialized": b.initialized}
	if err := srv.Check(); err != nil {
		_ = release(ctx)
		return err
	}
	st := session.New(srv, session.Options{AllowBatch: true})
	b.mu.Lock()
	b.app, b.release, b.st, b.stdio = a, release, st, mcpmsg.NewStdio(st)
	b.mu.Unlock()
	return nil
}

// Stop ends every agent's session and lets go of the app; the last holder closes it.
func (b *Block) Stop(ctx context.Context) error {
	b.mu.Lock()
	st, release := b.st, b.release
	b.st, b.release, b.app = nil, nil, nil
	b.mu.Unlock()
	if st == nil {
		return nil
	}
	st.Close()
	return release(ctx)
}

var errNotStarted = &runtime.Error{Kind: runtime.KindUnavailable, Msg: "the agent tools are not serving (the block is not started)"}

// Process answers one event of an agent's connection.
func (b *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	b.mu.Lock()
	stdio := b.stdio
	b.mu.Unlock()
	if stdio == nil {
		return nil, errNotStarted
	}
	if ev, ok := stdiomsg.From(m); ok {
		return stdio.Process(ctx, m, ev)
	}
	return nil, &runtime.Error{Kind: runtime.KindInvalid, Msg: "agent-tools serves agent connections (the agent connector)"}
}

// initialized records the agent once its session is ready: the user sees it and may
// disconnect it.
func (b *Block) initialized(_ context.Context, _ *jsonrpc.Request, rc *mcp.RequestContext) (any, error) {
	ss, ok := rc.Session.(*session.Session)
	b.mu.Lock()
	a := b.app
	b.mu.Unlock()
	if !ok || a == nil {
		return nil, nil
	}
	_, leave := a.Connect(ss.ClientInfo().Name, func() { disconnect(ss) })
	go func() {
		<-ss.Done()
		leave()
	}()
	return nil, nil
}

// disconnect tells the agent it was disconnected, then ends its session, which closes its
// connection.
func disconnect(ss *session.Session) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = ss.Notify(ctx, Disconnected, struct{}{}) // a connection that cannot take it is closed all the same
	ss.Close()
}

var (
	_ runtime.Block   = (*Block)(nil)
	_ runtime.Starter = (*Block)(nil)
	_ runtime.Stopper = (*Block)(nil)
)

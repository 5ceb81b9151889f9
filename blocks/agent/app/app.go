// Package app is the state of `octo app`, the long-running octo process an AI agent's bridge
// (`octo mcp`) connects to: the workspace it serves (each saved server started and stopped on
// its own, the started ones started again when the app opens), the traffic of those servers
// in a bounded store, the user's settings (settings.yaml in the data folder), the approvals
// agents' actions wait for, and the agents connected. App implements agenttools.Host; the
// `agent-tools` block serves the agent tools on it, and `octo app` runs that block behind the
// `agent` connector.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/blocks/mockkit/traffic"
	"github.com/octo-run/octo/runtime/supervisor"
)

// DefaultApprovalTimeout is how long an action waits for the user's approval.
const DefaultApprovalTimeout = 2 * time.Minute

// Options tune Open.
type Options struct {
	// DataDir is the data folder (appdata.DataDir): settings.yaml and started.json.
	DataDir string
	// Workspace is the workspace folder to open; "" opens the one settings.yaml names.
	// Opening another one remembers it there.
	Workspace string
	// Headless is the bridge's copy of the app, run when the app is not: it starts no saved
	// server by itself and refuses every action that would ask the user.
	Headless bool
	// Approver asks the user; nil when nobody can answer (no terminal, no console), in which
	// case actions that need an answer are refused.
	Approver Approver
	// Pending is the console's list of questions, when a console serves this app; Approver
	// should include it (Either).
	Pending *Pending
	// ApprovalTimeout bounds each question; 0 means DefaultApprovalTimeout.
	ApprovalTimeout time.Duration
	// TrafficEntries and TrafficBytes bound the traffic store; 0 means the defaults.
	TrafficEntries, TrafficBytes int
	Logger                       *slog.Logger
	// Poll is how often the workspace's files are checked for edits (workspace.Options.Poll).
	Poll time.Duration
	// Supervisor runs the workspace's servers, a unit each, beside the app's own units (octo
	// app's console and agents); nil gives the workspace one of its own.
	Supervisor *supervisor.Supervisor
}

// App is an open workspace with its servers, traffic, settings, approvals and agents.
type App struct {
	opts      Options
	dir       string // the workspace, absolute
	log       *slog.Logger
	servers   *workspace.Servers
	store     *Store
	tools     *agenttools.Tools // the one set of tools over this app, whoever calls
	started   *startedFile
	stopWatch context.CancelFunc
	watching  chan struct{}

	mu       sync.Mutex // guards settings and always
	settings appdata.Settings
	// settingsAt is settings.yaml's stamp when it was last read or written here.
	settingsAt settingsStamp
	always     map[string]bool // tools the user approved for good, until the app stops
	asking     sync.Mutex      // one allow-agents question at a time
	agents     agents
}

var _ agenttools.Host = (*App)(nil)

// Open opens the workspace, serving none of its servers yet (StartSaved); Close stops those
// that serve.
func Open(ctx context.Context, opts Options) (*App, error) {
	if opts.DataDir == "" {
		return nil, errors.New("no data folder")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ApprovalTimeout <= 0 {
		opts.ApprovalTimeout = DefaultApprovalTimeout
	}
	settings, err := appdata.LoadSettings(opts.DataDir)
	if err != nil {
		return nil, err
	}
	dir, err := chooseWorkspace(opts.Workspace, settings.Workspace, DefaultWorkspace(opts.DataDir))
	if err != nil {
		return nil, err
	}
	a := &App{opts: opts, dir: dir, log: opts.Logger, settings: settings, always: map[string]bool{},
		store: NewStore(opts.TrafficEntries, opts.TrafficBytes), started: &startedFile{dir: opts.DataDir}}
	a.tools = agenttools.New(a, agenttools.Options{})
	if settings.Workspace != dir && !opts.Headless {
		if err := a.UpdateSettings(func(s *appdata.Settings) { s.Workspace = dir }); err != nil {
			return nil, err
		}
	}
	a.servers, err = workspace.NewServers(dir, workspace.Options{Manual: true, Logger: opts.Logger, Poll: opts.Poll,
		Tap: &traffic.Tap{Observe: a.store.Observe}, Supervisor: opts.Supervisor})
	if err != nil {
		return nil, err
	}
	watchCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	if err := a.servers.Begin(watchCtx); err != nil {
		stop()
		return nil, err
	}
	a.stopWatch, a.watching = stop, make(chan struct{})
	go func() {
		defer close(a.watching)
		a.servers.Follow(watchCtx)
	}()
	return a, nil
}

// DefaultWorkspace is the workspace an app opens when none was ever named: a folder in its data
// folder, so that the first agent call (which starts the app) finds a workspace to build in.
func DefaultWorkspace(dataDir string) string { return filepath.Join(dataDir, "workspace") }

// chooseWorkspace is the workspace to open, absolute: the one asked for, else the last one,
// else the default one.
// A folder that does not exist yet is made (with its servers folder); an existing one must be a
// workspace or empty, so a project folder is never taken for one.
func chooseWorkspace(asked, last, fallback string) (string, error) {
	dir := asked
	if dir == "" {
		dir = last
	}
	if dir == "" {
		dir = fallback
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	case workspace.Is(dir):
		return dir, nil
	case len(entries) > 0:
		return "", fmt.Errorf("%s is not a workspace: it has neither %s nor a %s folder (name a workspace, or a new or empty folder)",
			dir, workspace.SettingsFile, workspace.ServersDir)
	}
	if err := os.MkdirAll(filepath.Join(dir, workspace.ServersDir), 0o755); err != nil {
		return "", fmt.Errorf("making the workspace: %w", err)
	}
	return dir, nil
}

// StartSaved starts the servers marked started in this workspace; a server that cannot start
// says why in States and stays marked. octo app calls it once it serves agents (so a second app
// on the same data folder stops before it takes any port); a headless copy never does.
func (a *App) StartSaved(ctx context.Context) {
	names, err := a.started.load(a.dir)
	if err != nil {
		a.log.Error("started servers not read: " + err.Error())
		return
	}
	for _, name := range names {
		if _, err := a.servers.Start(ctx, name); err != nil {
			a.log.Error("saved server not started: "+err.Error(), "server", name)
		}
	}
}

// Close stops the servers, letting their requests finish (workspace.Options.StopTimeout; ctx
// is not needed for that). It implements runtime.Resource, so the app can be shared by the
// `agent-tools` blocks of a process (see the block).
func (a *App) Close(context.Context) error {
	a.stopWatch()
	<-a.watching
	a.servers.Close()
	return nil
}

// Workspace implements agenttools.Host.
func (a *App) Workspace() string { return a.dir }

// DataDir is the data folder: settings.yaml, started.json, agent.json.
func (a *App) DataDir() string { return a.opts.DataDir }

// Headless reports whether this is the bridge's copy of the app.
func (a *App) Headless() bool { return a.opts.Headless }

// Pending is the console's list of questions; nil when the app has no console.
func (a *App) Pending() *Pending { return a.opts.Pending }

// ApprovalTimeout is how long each question waits for the user.
func (a *App) ApprovalTimeout() time.Duration { return a.opts.ApprovalTimeout }

// Tools are the agent tools over the app, shared by every caller (the agent-tools blocks, the
// console, the bridge's headless copy), so that their saves and deletes take turns.
func (a *App) Tools() *agenttools.Tools { return a.tools }

// Store is the traffic store, for the console.
func (a *App) Store() *Store { return a.store }

// States implements agenttools.Host.
func (a *App) States() []agenttools.ServerState {
	sts := a.servers.States()
	out := make([]agenttools.ServerState, len(sts))
	for i, st := range sts {
		out[i] = hostState(st)
	}
	return out
}

func hostState(st workspace.State) agenttools.ServerState {
	return agenttools.ServerState{Name: st.Name, File: st.File, Kind: st.Kind, Running: st.Running, URL: st.URL, Problem: st.Problem}
}

// Start implements agenttools.Host: the server is marked started, so the app starts it again
// when it next opens the workspace (not in a headless copy, which marks nothing).
func (a *App) Start(ctx context.Context, name string) (agenttools.ServerState, error) {
	st, err := a.servers.Start(ctx, name)
	if err != nil {
		return hostState(st), err
	}
	if !a.opts.Headless {
		if err := a.started.mark(a.dir, filepath.Base(st.File), true); err != nil {
			a.log.Error("started servers not saved: " + err.Error())
		}
	}
	return hostState(st), nil
}

// Stop implements agenttools.Host, unmarking the server.
func (a *App) Stop(ctx context.Context, name string) error {
	st, err := a.servers.Stop(ctx, name)
	if err != nil {
		return err
	}
	if !a.opts.Headless {
		if err := a.started.mark(a.dir, filepath.Base(st.File), false); err != nil {
			a.log.Error("started servers not saved: " + err.Error())
		}
	}
	return nil
}

// Traffic implements agenttools.Host (see Store.Query).
func (a *App) Traffic(q agenttools.TrafficQuery) []agenttools.TrafficEntry { return a.store.Query(q) }

// Settings returns the settings as they are now: an edit of settings.yaml made outside the app
// (`octo app --allow-agents` while the app runs, an editor) is read at the next call, so it
// needs no restart. A file that no longer reads keeps the settings as they were, said in the log.
func (a *App) Settings() appdata.Settings {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.followSettingsFile()
	return a.settings
}

// followSettingsFile rereads settings.yaml when its size or modification time changed since it
// was last read or written here; a.mu is held.
func (a *App) followSettingsFile() {
	fi, err := os.Stat(filepath.Join(a.opts.DataDir, appdata.SettingsFile))
	if err != nil {
		return
	}
	stamp := settingsStamp{fi.ModTime(), fi.Size()}
	if stamp == a.settingsAt {
		return
	}
	s, err := appdata.LoadSettings(a.opts.DataDir)
	a.settingsAt = stamp
	if err != nil {
		a.log.Error("settings.yaml not applied: " + err.Error())
		return
	}
	s.Workspace = a.settings.Workspace // the open workspace stays open
	a.settings = s
}

// settingsStamp tells an edited settings file from the one last read.
type settingsStamp struct {
	mod  time.Time
	size int64
}

// UpdateSettings changes the settings with change and saves them; when saving fails they stay
// as they were.
func (a *App) UpdateSettings(change func(*appdata.Settings)) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.settings
	change(&s)
	if s.Agents.Approve == "" {
		s.Agents.Approve = appdata.ApproveChanges
	}
	if err := appdata.SaveSettings(a.opts.DataDir, s); err != nil {
		return err
	}
	a.settings = s
	if fi, err := os.Stat(filepath.Join(a.opts.DataDir, appdata.SettingsFile)); err == nil {
		a.settingsAt = settingsStamp{fi.ModTime(), fi.Size()} // our own write is no outside edit
	}
	return nil
}

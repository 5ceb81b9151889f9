// Package console is the `console` block: the web page of `octo app` (servers, their YAML,
// traffic, agents and their approvals) and the JSON API under it, served behind an http
// connector on 127.0.0.1. The console is a client of the same API agents use: its server
// actions run the agent tools (agenttools) as the user, who needs no approval for their own
// actions, plus what only the user may do (a server file's raw YAML, rename, duplicate,
// delete with undo, the workspace's variables, clearing traffic, answering agents, settings).
//
// Every request must come from loopback, name 127.0.0.1 or localhost as its Host (DNS
// rebinding), carry no foreign Origin, and carry the session cookie the login link was traded
// for (login.go): another local user reaches the port but not the data folder that holds the
// link, and another page in the user's browser neither sees the cookie nor gets it sent.
package console

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/agent/app"
	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/runtime"
)

// Type is the block's type.
const Type = "console"

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    Type,
		Summary: "serves octo app's console: the web page and its API for servers, traffic, agents and approvals",
		Doc: "The console of the app on the data folder: a page (embedded HTML, CSS and JavaScript) and a JSON API " +
			"for the workspace's servers, their traffic (live as server-sent events) and the agents with their " +
			"pending approvals. Requests must come from loopback with Host 127.0.0.1 or localhost and carry the " +
			"session cookie a one-time login link is traded for: the link is written to console.json in the data " +
			"folder (readable by the user only) once the console serves, and printed by octo app and octo app " +
			"--print-url. octo app routes every console path (web.Paths) to it.",
		Example:         "type: console\nsettings:\n  dataDir: ./octo-data\n",
		Transports:      []string{httpmsg.Transport},
		AnswersExchange: true,
		Build:           runtime.BlockFunc(buildBlock),
	})
}

// Settings are the console block's settings.
type Settings struct {
	DataDir string `yaml:"dataDir" doc:"The app's data folder (settings.yaml, agent.json); default: --data-dir of octo app, else OCTO_DATA_DIR, else the system's place for octo's data." example:"~/.local/share/octo"`
}

// Block is a built console block: between Start and Stop it holds the app.
type Block struct {
	dataDir string
	shared  *runtime.Shared
	logger  func() *slog.Logger
	addr    func() string // where the console's connector listens, once it does

	mu      sync.Mutex
	api     *api
	release runtime.Release
}

func buildBlock(b *runtime.Build, s *Settings) (runtime.Block, error) {
	dir, err := appdata.DataDir(s.DataDir)
	if err != nil {
		return nil, b.Errorf(&s.DataDir, "%s", err.Error())
	}
	return &Block{dataDir: dir, shared: b.Shared(), logger: b.Logger, addr: b.SourceAddr()}, nil
}

// Start takes hold of the app on the data folder (opening it when nobody has).
func (b *Block) Start(ctx context.Context) error {
	a, release, err := runtime.Acquire(b.shared, app.SharedKey(b.dataDir), func() (*app.App, error) {
		return app.Open(ctx, app.Options{DataDir: b.dataDir, Logger: b.logger()})
	})
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.api, b.release = newAPI(a, &door{dir: b.dataDir}, b.logger()), release
	b.mu.Unlock()
	return nil
}

// Ready writes the first login link, now that the console's address is known.
func (b *Block) Ready(context.Context) error {
	b.mu.Lock()
	a := b.api
	b.mu.Unlock()
	addr := b.addr()
	if a == nil || addr == "" {
		return errors.New("the console block serves behind an http connector, which has no address yet")
	}
	return a.door.open(addr)
}

// Stop lets go of the app; the last holder closes it.
func (b *Block) Stop(ctx context.Context) error {
	b.mu.Lock()
	a, release := b.api, b.release
	b.api, b.release = nil, nil
	b.mu.Unlock()
	if release == nil {
		return nil
	}
	if err := a.door.close(); err != nil {
		b.logger().Warn("removing console.json failed", "dataDir", b.dataDir, "err", err)
	}
	return release(ctx)
}

var errNotStarted = &runtime.Error{Kind: runtime.KindUnavailable, Msg: "the console is not serving (the block is not started)"}

// Process answers one request: a page file or an API call.
func (b *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	ex, err := httpmsg.Need(m)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	a := b.api
	b.mu.Unlock()
	if a == nil {
		return nil, errNotStarted
	}
	a.serve(ctx, m, ex)
	return m, nil
}

var (
	_ runtime.Block   = (*Block)(nil)
	_ runtime.Starter = (*Block)(nil)
	_ runtime.Stopper = (*Block)(nil)
	_ runtime.Readier = (*Block)(nil)
)

// Package console is the `console` block: the web page of `octo app` (servers, their YAML,
// traffic, agents and their approvals) and the JSON API under it, served behind an http
// connector on 127.0.0.1. The console is a client of the same API agents use: its server
// actions run the agent tools (agenttools) as the user, who needs no approval for their own
// actions, plus what only the user may do (a server file's raw YAML, rename, duplicate,
// delete with undo, the workspace's variables, clearing traffic, answering agents, settings).
//
// Every API request must come from loopback, name 127.0.0.1 or localhost as its Host (DNS
// rebinding), carry no foreign Origin, and send the per-run token the page holds (header
// X-Octo-Token; the event stream, which browsers open without headers, as ?token=): another
// local page cannot read the token, so it cannot act.
package console

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"log/slog"
	"sync"

	"github.com/octo-run/octo/blocks/agent/app"
	"github.com/octo-run/octo/blocks/agent/appdata"
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
			"run's token, which only the page holds. octo app routes every console path (web.Paths) to it.",
		Example:    "type: console\nsettings:\n  dataDir: ./octo-data\n",
		Transports: []string{httpmsg.Transport},
		Build:      runtime.BlockFunc(buildBlock),
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

	mu      sync.Mutex
	api     *api
	release runtime.Release
}

func buildBlock(b *runtime.Build, s *Settings) (runtime.Block, error) {
	dir, err := appdata.DataDir(s.DataDir)
	if err != nil {
		b.Errorf(&s.DataDir, "%s", err.Error())
		return nil, nil
	}
	return &Block{dataDir: dir, shared: b.Shared(), logger: b.Logger}, nil
}

// Start takes hold of the app on the data folder (opening it when nobody has) and makes the
// run's token.
func (b *Block) Start(ctx context.Context) error {
	a, release, err := runtime.Acquire(b.shared, app.SharedKey(b.dataDir), func() (*app.App, error) {
		return app.Open(ctx, app.Options{DataDir: b.dataDir, Logger: b.logger()})
	})
	if err != nil {
		return err
	}
	token, err := newToken()
	if err != nil {
		_ = release(ctx)
		return err
	}
	b.mu.Lock()
	b.api, b.release = newAPI(a, token, b.logger()), release
	b.mu.Unlock()
	return nil
}

// Stop lets go of the app; the last holder closes it.
func (b *Block) Stop(ctx context.Context) error {
	b.mu.Lock()
	release := b.release
	b.api, b.release = nil, nil
	b.mu.Unlock()
	if release == nil {
		return nil
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

// newToken is the run's token: 32 random bytes, base64url.
func newToken() (string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(raw[:]), nil
}

var (
	_ runtime.Block   = (*Block)(nil)
	_ runtime.Starter = (*Block)(nil)
	_ runtime.Stopper = (*Block)(nil)
)

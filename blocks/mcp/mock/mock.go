package mock

import (
	"context"
	"errors"
	"log/slog"
	goruntime "runtime"
	"sync"
	"weak"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/blocks/mcp"
	"github.com/octo-run/octo/blocks/mcp/mock/placeholder"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "mcp-mock",
		Summary: "serves a stateful MCP server answered from settings (tools, resources, prompts), over every transport",
		Build:   build,
	})
}

// KindServer labels the block the workspace adapter makes for a saved
// server: its settings are the file's `mcp:` section, so problems are
// reported at paths like mcp.tools[0] rather than under settings.
const KindServer = "server"

// Block is one flow's handle on a mock server. One flow normally serves all
// of a server's paths (source paths: [/mcp, /sse, /messages]); blocks built
// from the same settings node (a mapping and its YAML aliases) still share
// one Server, so a session opened on /sse is found by a POST to /messages
// even when flows are split per path.
type Block struct {
	srv *Server
}

// registry maps a settings node to the Server built from it. Keys are weak:
// a config that is dropped (a failed build, a replaced edit) frees its entry.
var registry = struct {
	sync.Mutex
	m map[weak.Pointer[yaml.Node]]*Server
}{m: map[weak.Pointer[yaml.Node]]*Server{}}

func build(b *runtime.Build) (runtime.Block, error) {
	node := b.Settings()
	if node == nil {
		node = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	key := weak.Make(node)
	registry.Lock()
	srv, ok := registry.m[key]
	registry.Unlock()
	if ok {
		if srv == nil {
			return nil, nil // the first block of this server already reported why
		}
		return &Block{srv: srv}, nil
	}
	at := b.At.Field("settings")
	if b.At.Kind == KindServer {
		at = b.At
	}
	srv, ds := newServer(node, at, b.Name, b.Logger())
	if srv != nil && b.At.Kind != KindServer {
		if ds = strict(srv, node, at); len(ds) > 0 {
			srv = nil
		}
	}
	registry.Lock()
	registry.m[key] = srv
	registry.Unlock()
	goruntime.AddCleanup(node, forget, key)
	if len(ds) > 0 {
		return nil, ds
	}
	return &Block{srv: srv}, nil
}

// strict holds a flow config to its rule, nothing starts half built: an item
// a workspace would leave out stops the build, and cors belongs to the http
// connector there.
func strict(srv *Server, node *yaml.Node, at config.Where) config.Diags {
	if srv.fixed.cors {
		d := config.Diag{File: at.File, Path: at.Field("cors").Path, Kind: at.Kind, Name: at.Name,
			Msg: "cors is a setting of the http connector (cors: true) in a flow config; mcp.cors applies to saved servers"}
		if n := runtime.MappingValue(node, "cors"); n != nil {
			d.Line, d.Col = n.Line, n.Column
		}
		return config.Diags{d}
	}
	return srv.problems
}

// forget drops the entry of a settings node that is gone.
func forget(key weak.Pointer[yaml.Node]) {
	registry.Lock()
	delete(registry.m, key)
	registry.Unlock()
}

// Find returns the server built from the settings node, or nil. The
// workspace uses it to reach a running server for live edits.
func Find(settings *yaml.Node) *Server {
	registry.Lock()
	defer registry.Unlock()
	return registry.m[weak.Make(settings)]
}

// Server is a live mock server: the MCP core with sessions, and the current
// version of its settings.
type Server struct {
	name     string
	fallback string // the block's name, the default serverName
	logger   *slog.Logger
	fixed    fixedSettings // what only a restart changes
	prov     *provider
	core     *mcp.Server
	st       *mcp.Stateful
	log      *trafficLog

	mu       sync.Mutex // serialises Update, Start and Stop
	running  int
	problems config.Diags
	cat      *catalog
	stdio    *mcp.StdioSession
}

// fixedSettings are the settings a running server cannot change in place:
// they shape the initialize answer or the routes.
type fixedSettings struct {
	serverName, version, instructions, path string
	cors                                    bool
	seed                                    *int64
	limits                                  limits
}

func fixedOf(s *settings, fallbackName string) fixedSettings {
	f := fixedSettings{serverName: s.ServerName, version: s.Version, instructions: s.Instructions,
		path: s.Path, cors: s.CORS, seed: s.Seed, limits: limitsOf(&s.limitSettings)}
	if f.serverName == "" {
		f.serverName = fallbackName
	}
	if f.serverName == "" {
		f.serverName = "octo-mock"
	}
	return f
}

func newServer(node *yaml.Node, at config.Where, name string, logger *slog.Logger) (*Server, config.Diags) {
	v, ds := load(node, at)
	if len(ds) > 0 {
		return nil, ds
	}
	f := fixedOf(v.s, name)
	srv := &Server{name: f.serverName, fallback: name, logger: logger, fixed: f,
		prov: &provider{}, problems: v.problems, cat: v.cat}
	if f.seed != nil {
		srv.prov.rand = placeholder.NewRand(*f.seed, nil)
	}
	srv.prov.cat.Store(v.cat)
	srv.core = &mcp.Server{
		Info:         mcp.Implementation{Name: f.serverName, Version: f.version},
		Instructions: f.instructions,
		Versions:     mcp.MockVersions,
		Tools:        srv.prov,
		Resources:    srv.prov,
		Prompts:      srv.prov,
		UnknownTool:  mcp.UnknownToolAsError,
		Capabilities: mcp.Capabilities{ToolsListChanged: true, ResourcesListChanged: true, PromptsListChanged: true},
		// A call still running when the server must stop is answered so.
		ShutdownCause: runtime.ErrShuttingDown,
		OnPanic: func(method string, recovered any, stack []byte) {
			logger.Error("panic in MCP method", "method", mcp.LogSafe(method), "panic", recovered, "stack", string(stack))
		},
	}
	mcp.SessionFeatures{Logging: true, Subscriptions: true, Completions: true}.Apply(srv.core)
	srv.log = newTrafficLog(logger, f.serverName)
	opts := mcp.StatefulOptions{Observer: srv.log.observe, AllowBatch: true}
	f.limits.apply(srv.core, &opts)
	if err := srv.core.Check(); err != nil {
		return nil, config.Diags{{File: at.File, Path: at.Path, Kind: at.Kind, Name: at.Name, Msg: err.Error()}}
	}
	srv.st = mcp.NewStateful(srv.core, opts)
	return srv, nil
}

// Name returns the serverInfo name.
func (s *Server) Name() string { return s.name }

// Problems returns the problems that left items out of the current version.
func (s *Server) Problems() config.Diags {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append(config.Diags(nil), s.problems...)
}

// Start starts the server's traffic log on first use.
func (b *Block) Start(context.Context) error {
	s := b.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running == 0 {
		s.log.start()
		s.logProblems(s.problems)
	}
	s.running++
	return nil
}

// Stop ends every session when the last block of the server stops.
func (b *Block) Stop(context.Context) error {
	s := b.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running == 0 {
		return nil
	}
	if s.running--; s.running == 0 {
		s.st.Close()
		s.log.stop()
	}
	return nil
}

// logProblems reports the items left out of the server.
func (s *Server) logProblems(ds config.Diags) {
	for _, p := range ds {
		s.logger.Error(p.String(), "server", s.name, "problem", "left out")
	}
}

// ErrRestart says an edit changed settings a running server cannot change
// in place (serverName, version, instructions, path, cors, seed): build the
// server anew.
var ErrRestart = errors.New("these settings change only when the server is built again")

var (
	_ runtime.Block   = (*Block)(nil)
	_ runtime.Starter = (*Block)(nil)
	_ runtime.Stopper = (*Block)(nil)
)

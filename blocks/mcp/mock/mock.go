package mock

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/octo-run/octo/mcp/logsafe"
	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/mcp/tasks"

	"github.com/octo-run/octo/blocks/mcp/cluster"
	"github.com/octo-run/octo/blocks/mcp/mcpmsg"
	"github.com/octo-run/octo/blocks/mockkit/placeholder"
	"github.com/octo-run/octo/blocks/mockkit/traffic"
	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/schema"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "mcp-mock",
		Summary: "serves a stateful MCP server answered from settings (tools, resources, prompts), over every transport",
		Doc: "A complete MCP server answered from settings instead of code: sessions, Streamable " +
			"HTTP with SSE, the legacy HTTP+SSE pair and stdio, templated answers, failed and slow " +
			"calls, progress, logging, elicitation and sampling steps, subscriptions, live edits " +
			"and a traffic log. A workspace saves one server per file (its mcp: section); in a " +
			"flow it serves the paths its source routes to it.",
		Example: "type: mcp-mock\nname: Weather mock\nsettings:\n  tools:\n    - name: get_weather\n" +
			"      description: The current weather in a city\n" +
			"      inputSchema: '{\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}}'\n" +
			"      result: '{\"city\": \"{{args.city}}\", \"forecast\": \"sunny\"}'\n",
		SharedByName:    true,
		Transports:      []string{httpmsg.Transport, stdiomsg.Transport},
		AnswersExchange: true,
		StreamsOn:       []string{stdiomsg.Transport},
		Build:           runtime.BlockFunc(build),
	})
}

// KindServer labels the block the workspace adapter makes for a saved
// server: its settings are the file's `mcp:` section, so problems are
// reported at paths like mcp.tools[0] rather than under settings.
const KindServer = "server"

// Block is a mock server in a flow. One flow normally serves all of a
// server's paths (source paths: [/mcp, /sse, /messages]); when flows are
// split per path, mcp-mock blocks with the same name in one service are one
// server (runtime.BlockSpec.SharedByName: their settings must be the same),
// so a session opened on /sse is found by a POST to /messages.
type Block struct {
	srv *Server
	// url reports where clients reach a flow config's mock (runtime.Build.SourceURL), for
	// Ready; nil for a workspace's saved server, whose address octo serve and the app print.
	url    func() string
	logger *slog.Logger
}

// OwnsSpans says the mock starts its requests' spans itself (runtime.SpanOwner,
// mcpmsg.TraceRequests).
func (b *Block) OwnsSpans() {}

func build(b *runtime.Build, s *Settings) (runtime.Block, error) {
	srv, ds := newServer(s, b.Positions(), b.Name, b.Logger(), traffic.TapOf(b), b.Cluster())
	if srv != nil && b.At.Kind != KindServer {
		ds = strict(srv, s, b.Positions())
	}
	if len(ds) > 0 {
		return nil, ds
	}
	if probes := b.Probes("mcp"); probes != nil { // ops.ProbeMCP
		srv.core.Probes = func(method, tool string) mcp.Probe { return probes(method, tool) }
	}
	mcpmsg.TraceRequests(b, srv.core, mcpmsg.Known{
		Tool:   func(name string) bool { return srv.prov.current().toolByName[name] != nil },
		Prompt: func(name string) bool { return srv.prov.current().promptByName[name] != nil },
	})
	blk := &Block{srv: srv, logger: b.Logger()}
	if b.At.Kind != KindServer {
		blk.url = b.SourceURL()
	}
	return blk, nil
}

// Ready says where clients reach a flow config's mock and how to register it with one.
func (b *Block) Ready(context.Context) error {
	if b.url != nil {
		mcpmsg.Announce(b.logger, b.srv.name, b.url())
	}
	return nil
}

// Server returns the live server the block serves: the workspace reaches it
// through the service (runtime.Service.Instance) to apply edits.
func (b *Block) Server() *Server { return b.srv }

// strict holds a flow config to its rule, nothing starts half built: an item
// a workspace would leave out stops the build, and cors belongs to the http
// connector there.
func strict(srv *Server, s *Settings, pos *config.Positions) config.Diags {
	if srv.fixed.cors {
		return config.Diags{pos.Diag(&s.CORS, "cors is a setting of the http connector (cors: true) in a flow config; mcp.cors applies to saved servers")}
	}
	return srv.problems
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
	st       *session.Front
	log      *traffic.Log
	// tapProblem puts a problem of the settings in the traffic tap's store; nil without a tap.
	tapProblem func(text string)

	mu       sync.Mutex // serialises Update, Start and Stop
	running  bool
	problems config.Diags
	cat      *catalog
	stdio    *mcpmsg.Stdio // the stdio session, served from the stdio connector's events
	// clustered is the task store in the service's cluster, which Start joins, and changes the
	// bus its list and resource changes reach the other replicas on; nil without one.
	clustered *cluster.Tasks
	changes   *cluster.Changes
	leave     func() // leaves changes (session.Front.Join)
}

// fixedSettings are the settings a running server cannot change in place:
// they shape the initialize answer or the routes.
type fixedSettings struct {
	serverName, version, instructions, path string
	cors                                    bool
	seed                                    *int64
	limits                                  limits
	cache                                   mcp.CacheHints
	tasks                                   tasks.Limits
	takeover                                time.Duration // tasks.takeoverAfter, in a cluster
}

func fixedOf(s *Settings, fallbackName string) fixedSettings {
	f := fixedSettings{serverName: s.ServerName, version: s.Version, instructions: s.Instructions,
		path: s.Path, cors: s.CORS, seed: s.Seed, limits: limitsOf(&s.limitSettings), cache: s.Cache.Hints(),
		tasks: s.Tasks.Limits(), takeover: s.Tasks.Takeover()}
	if f.serverName == "" {
		f.serverName = fallbackName
	}
	if f.serverName == "" {
		f.serverName = "octo-mock"
	}
	return f
}

// newServer builds the server; tap, when not nil, gets its traffic besides its log (TrafficTap),
// and its tasks live in the cluster ref names when it is not nil.
func newServer(s *Settings, pos *config.Positions, name string, logger *slog.Logger, tap func(string, session.TrafficEvent),
	ref *runtime.ClusterRef) (*Server, config.Diags) {
	v, ds := newVersion(s, pos)
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
	var store tasks.Store = tasks.NewMemory(f.tasks)
	if ref != nil {
		srv.clustered = cluster.New(ref, f.tasks, logger, cluster.Options{AckWait: f.takeover, AtMostOnce: srv.prov.atMostOnce})
		srv.changes = cluster.NewChanges(ref, logger)
		store = srv.clustered
	}
	srv.core = &mcp.Server{
		Info:         mcp.Implementation{Name: f.serverName, Version: f.version},
		Instructions: f.instructions,
		Versions:     mcp.MockVersions,
		Tools:        srv.prov,
		Resources:    srv.prov,
		Prompts:      srv.prov,
		UnknownTool:  mcp.UnknownToolAsError,
		Cache:        f.cache,
		Tasks:        store,
		Capabilities: mcp.Capabilities{ToolsListChanged: true, ResourcesListChanged: true, PromptsListChanged: true},
		// A call still running when the server must stop is answered so.
		ShutdownCause: runtime.ErrShuttingDown,
		OnPanic: func(method string, recovered any, stack []byte) {
			logger.Error("panic in MCP method", "method", logsafe.String(method), "panic", recovered, "stack", string(stack))
		},
	}
	mcp.SessionFeatures{Logging: true, Subscriptions: true, Completions: true}.Apply(srv.core)
	srv.core.Handlers["completion/complete"] = srv.prov.complete // suggestions from settings
	srv.log = traffic.NewLog(logger, f.serverName)
	opts := session.Options{Observer: srv.log.Observe, AllowBatch: true}
	if tap != nil {
		opts.Observer = func(ev session.TrafficEvent) {
			tap(name, ev)
			srv.log.Observe(ev)
		}
		srv.tapProblem = func(text string) {
			tap(name, session.TrafficEvent{Time: time.Now(), Kind: session.TrafficProblem, Summary: text})
		}
	}
	srv.prov.observe = opts.Observer
	f.limits.apply(srv.core, &opts)
	if err := srv.core.Check(); err != nil {
		srv.core.CloseTasks()
		return nil, config.Diags{pos.Root().Diag(err.Error())}
	}
	srv.st = session.New(srv.core, opts)
	srv.stdio = mcpmsg.NewStdio(srv.st)
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

// Start starts the server's traffic log, and joins the service's cluster when its tasks live
// there.
func (b *Block) Start(ctx context.Context) error {
	s := b.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.running {
		if s.clustered != nil {
			if err := s.clustered.Start(ctx, s.core.RunWork); err != nil {
				return err
			}
			if err := s.changes.Start(ctx); err != nil {
				s.core.CloseTasks()
				return err
			}
			s.leave = s.st.Join(s.changes)
		}
		s.log.Start()
		s.logProblems(s.problems)
		s.running = true
	}
	return nil
}

// Stop ends every session and every task.
func (b *Block) Stop(context.Context) error {
	s := b.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		if s.leave != nil {
			s.leave()
			s.changes.Close()
		}
		s.st.Close()
		s.core.CloseTasks()
		s.log.Stop()
		s.running = false
	}
	return nil
}

// logProblems reports the items left out of the server.
func (s *Server) logProblems(ds config.Diags) {
	for _, p := range ds {
		s.logger.Error(p.String(), "server", s.name, "problem", "left out")
		if s.tapProblem != nil { // the app's traffic, where the console shows it as an error
			s.tapProblem(p.String() + " (left out)")
		}
	}
}

// ReadsHeaders lists the request headers an MCP client of the mock sends, those its tools
// mirror now included: a browser's preflight lets them through (runtime.HeaderReader).
func (b *Block) ReadsHeaders() []string {
	tools := b.srv.prov.current().tools
	schemas := make([]*schema.Schema, len(tools))
	for i, t := range tools {
		schemas[i] = t.input
	}
	return mcp.RequestHeaders(schemas...)
}

// Update takes a reload's settings in place (see Server.Update): on any reload of the config
// the block is in, its sessions stay open and hear what changed.
func (b *Block) Update(d runtime.Decoded) (config.Diags, error) { return b.srv.Update(d) }

var (
	_ runtime.Block        = (*Block)(nil)
	_ runtime.Starter      = (*Block)(nil)
	_ runtime.Stopper      = (*Block)(nil)
	_ runtime.Updater      = (*Block)(nil)
	_ runtime.HeaderReader = (*Block)(nil)
)

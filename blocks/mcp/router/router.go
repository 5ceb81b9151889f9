// Package router is the mcp-router block: a stateless MCP server whose tools
// are flow branches and whose resources and prompts are template resources.
// The protocol itself lives in mcp; this package only builds the
// providers from YAML and adapts runtime messages to mcp.ServeStateless.
package router

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/octo-run/octo/blocks/mcp/access"
	"github.com/octo-run/octo/blocks/mcp/cluster"
	"github.com/octo-run/octo/blocks/mcp/mcpmsg"
	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/schema"
	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/mcp/tasks"
	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "mcp-router",
		Summary: "serves a stateless MCP server: tools are flow branches, resources and prompts are templates",
		Doc: "Answers MCP over Streamable HTTP (stateless: no sessions) behind an http source, or over " +
			"stdio (one JSON-RPC message per line, the pipe its one session) behind a stdio source. " +
			"A tools/call with a progress token, over stdio or from an HTTP client that accepts " +
			"text/event-stream, hears the progress its branch reports (progress blocks, long delays) " +
			"before its result, and a client that leaves or cancels stops the branch. With logging set, " +
			"every call from a client that accepts text/event-stream (and every call over stdio) also hears its " +
			"log blocks' lines as notifications/message. A tool's ask blocks ask the client (elicitation, " +
			"sampling): on 2026-07-28 as input_required rounds, on older revisions as requests on the call's " +
			"stream (or the pipe). " +
			"Each tool is a branch of blocks run with the call's arguments as the body; resources " +
			"and prompts are template resources. Arguments are checked against the tool's " +
			"inputSchema before its branch runs, results against its outputSchema.",
		Example: "type: mcp-router\nname: weather\ntools:\n  - name: forecast\n    description: The forecast for a city\n" +
			"    inputSchema: '{\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}'\n" +
			"    process:\n      - type: set-payload\n        settings: { value: '{\"city\": body.city, \"summary\": \"Sunny\"}' }\n",
		Composite:       true,
		Transports:      []string{httpmsg.Transport, stdiomsg.Transport},
		AnswersExchange: true,
		StreamsOn:       []string{stdiomsg.Transport},
		Build:           runtime.BlockFunc(build),
	})
}

// Block is a built mcp-router.
type Block struct {
	server *mcp.Server
	// Over stdio the pipe is one session of the same server: initialize first, then calls run
	// at once, and notifications/cancelled reaches them.
	st    *session.Front
	stdio *mcpmsg.Stdio
	// url reports where clients reach the flow (runtime.Build.SourceURL); Ready prints it.
	url    func() string
	logger *slog.Logger
	// headers are the request headers its clients send (ReadsHeaders), fixed at build.
	headers []string
	// clustered is the task store in the service's cluster, which Start joins; nil without one.
	clustered *cluster.Tasks
	// guards: a tool has an access rule or a rate limit, so a call may be refused with a
	// status of its own.
	guards bool
}

func build(b *runtime.Build, f *Settings) (runtime.Block, error) {
	if len(f.Tools)+len(f.Resources)+len(f.Prompts) == 0 {
		return nil, b.Errorf(nil, "an mcp-router needs at least one tool, resource or prompt")
	}
	name := f.ServerName
	if name == "" {
		name = b.Name
	}
	if name == "" {
		name = "octo-mcp"
	}
	s := &mcp.Server{
		Info:        mcp.Implementation{Name: name, Version: "1.0.0"},
		Versions:    routerVersions(f.InitializeUpTo),
		Cache:       f.Cache.Hints(),
		UnknownTool: mcp.UnknownToolAsResult,
		CacheLists:  true,
		// A call still running when the server must stop is answered so.
		ShutdownCause: runtime.ErrShuttingDown,
		OnPanic: func(method string, recovered any, stack []byte) {
			b.Logger().Error("panic in MCP method", "method", method, "panic", recovered, "stack", string(stack))
		},
	}
	if probes := b.Probes("mcp"); probes != nil { // ops.ProbeMCP
		s.Probes = func(method, tool string) mcp.Probe { return probes(method, tool) }
	}
	if f.MaxBatch != nil {
		s.MaxBatch = *f.MaxBatch
	}
	if f.MaxResponseBytes != nil {
		s.MaxResponseBytes = *f.MaxResponseBytes
	}
	if f.PageSize != nil {
		s.PageSize = *f.PageSize
	}
	var schemas []*schema.Schema // of the tools' arguments, some mirrored in Mcp-Param headers
	var clustered *cluster.Tasks
	guards := false
	if len(f.Tools) > 0 {
		ts := buildTools(b, f.Tools)
		guards = ts.guards
		if ts.rules != nil { // the tools a caller sees depend on who asks: no list is shared
			s.CacheLists = false
		}
		for _, t := range ts.list {
			schemas = append(schemas, ts.byName[t.Name].input)
		}
		if ts.tasks() { // declared only then: server/discover reports what the block serves
			if ref := b.Cluster(); ref != nil {
				clustered = cluster.New(ref, f.Tasks.Limits(), b.Logger(), cluster.Options{AtMostOnce: ts.atMostOnce, AckWait: f.Tasks.Takeover()})
				s.Tasks = clustered
			} else {
				s.Tasks = tasks.NewMemory(f.Tasks.Limits())
			}
		}
		if f.Logging != nil {
			ts.logFloor = mcp.LogLevel(f.Logging.Level)
		}
		// A tool that asks its client does so on its call's stream on older revisions.
		s.StreamCalls = ts.asks()
		s.Tools = ts
	}
	if f.Logging != nil { // declared only when asked: initialize reports what the block serves
		s.Handlers = map[string]mcp.HandlerFunc{"logging/setLevel": mcp.HandleSetLevelAnywhere}
		s.Capabilities.Logging, s.StreamCalls = true, true // its tools send logs: a call that can take a stream hears them
	}
	comps := &completions{}
	if len(f.Resources) > 0 {
		rs := buildResources(b, f.Resources)
		s.Resources, comps.templates = rs, rs.complete
	}
	if len(f.Prompts) > 0 {
		ps := buildPrompts(b, f.Prompts)
		s.Prompts, comps.prompts = ps, ps.complete
	}
	if len(comps.prompts)+len(comps.templates) > 0 { // declared only when there is something to suggest
		if s.Handlers == nil {
			s.Handlers = map[string]mcp.HandlerFunc{}
		}
		s.Handlers["completion/complete"] = comps.handle
		s.Capabilities.Completions = true
	}
	var known mcpmsg.Known
	if ts, ok := s.Tools.(*tools); ok {
		known.Tool = func(name string) bool { return ts.byName[name] != nil }
	}
	if ps, ok := s.Prompts.(*prompts); ok {
		known.Prompt = func(name string) bool { return ps.byName[name] != nil }
	}
	mcpmsg.TraceRequests(b, s, known)
	if err := b.Err(); err != nil {
		s.CloseTasks()
		return nil, err
	}
	if err := s.Check(); err != nil {
		s.CloseTasks()
		return nil, err
	}
	st := session.New(s, session.Options{AllowBatch: true})
	return &Block{server: s, st: st, stdio: mcpmsg.NewStdio(st), url: b.SourceURL(), logger: b.Logger(),
		headers: mcp.RequestHeaders(schemas...), clustered: clustered, guards: guards}, nil
}

// OwnsSpans says the router starts its requests' spans itself (runtime.SpanOwner,
// mcpmsg.TraceRequests).
func (r *Block) OwnsSpans() {}

// Start joins the service's cluster, when the router keeps its tasks there: from then on this
// replica takes its share of the tasks' work.
func (r *Block) Start(ctx context.Context) error {
	if r.clustered == nil {
		return nil
	}
	return r.clustered.Start(ctx, r.server.RunWork)
}

// ReadsHeaders lists the request headers an MCP client of the router sends, those its tools
// mirror included: a browser's preflight lets them through (runtime.HeaderReader).
func (r *Block) ReadsHeaders() []string { return r.headers }

// Ready says, once the service serves, where clients reach the server and how to register
// it with one: the line a new user looks for first.
func (r *Block) Ready(context.Context) error {
	mcpmsg.Announce(r.logger, r.server.Info.Name, r.url())
	return nil
}

// routerVersions is the router's version policy, initialize agreeing on revisions up to upTo.
func routerVersions(upTo string) mcp.Versions {
	v := mcp.RouterVersions
	if upTo == mcp.Version20251125 {
		v.Supported = append([]string{mcp.Version20251125}, v.Supported...)
		v.Unknown = mcp.Version20251125
	}
	return v
}

// parentOf is the message being served, which the router hands its providers as the request's
// Caller: tool branches and templates start from it, seeing its attributes and variables.
func parentOf(rc *mcp.RequestContext) *runtime.Message {
	if m, ok := rc.Caller.(*runtime.Message); ok {
		return m
	}
	// A task's work taken from the cluster (mcp.Server.RunWork): the call as its tasks.Work kept
	// it, the headers and the vars the flow's blocks before the router set.
	m := runtime.NewMessage(nil)
	if rc.Header != nil {
		m.Attrs = runtime.Attributes(rc.Header)
	}
	for k, v := range rc.Vars {
		m.SetVar(k, v)
	}
	return m
}

// Process answers the MCP request in the message's body, or an event of a stdio session.
func (r *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	ex, ok := httpmsg.From(m)
	if !ok {
		if ev, ok := stdiomsg.From(m); ok {
			return r.stdio.Process(ctx, m, ev)
		}
		return nil, httpmsg.ErrNotHTTP
	}
	body := m.Raw()
	if !m.IsRaw() {
		v, err := m.Body()
		if err != nil {
			return nil, err
		}
		if body, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	var refused *refusalNote
	if r.guards { // a refused call answers with its own status: 403, 429
		refused = &refusalNote{}
		ctx = context.WithValue(ctx, refusalKey{}, refused)
	}
	resp := r.server.ServeStateless(ctx, mcp.HTTPRequest{
		Method: ex.Method,
		Header: ex.Header,
		Body:   body,
		Vars:   m.Vars,
		Caller: m,
		Detach: detached,
	})
	ex.Status, ex.ContentType = resp.Status, resp.ContentType
	if ex.ReplyHeader == nil {
		ex.ReplyHeader, resp.Header = resp.Header, nil // fresh per response (or nil): take it
	}
	for k, v := range resp.Header {
		ex.ReplyHeader[k] = v
	}
	if refused != nil && refused.r != nil && resp.Stream == nil && resp.Status == http.StatusOK && len(resp.Body) > 0 && resp.Body[0] == '{' {
		// One call, answered as one JSON body: the refusal is the HTTP answer's too, so a
		// client can step up its authorization or wait as the status and headers say.
		ex.Status = refused.r.Status
		if ex.ReplyHeader == nil {
			ex.ReplyHeader = http.Header{}
		}
		for k, v := range refused.r.Header {
			ex.ReplyHeader[k] = v
		}
	}
	switch {
	case resp.Stream != nil:
		m.SetStream(mcpmsg.Stream{S: resp.Stream})
	case len(resp.Body) == 0:
		m.ClearBody()
	default:
		m.SetRaw(resp.Body)
	}
	return m, nil
}

// refusalNote is where a call refused before it ran (access, rate limit) leaves its refusal
// for the HTTP answer.
type refusalNote struct{ r *access.Refusal }

type refusalKey struct{}

// noteRefusal records r for the HTTP answer of the request ctx serves, if it keeps one.
func noteRefusal(ctx context.Context, r *access.Refusal) {
	if n, ok := ctx.Value(refusalKey{}).(*refusalNote); ok {
		n.r = r
	}
}

// detached is what a tool's branch answered as a stream starts from: a message with the
// request's attributes, variables and exchange, whose reply is its own, so the branch runs
// beside the connector writing the stream without sharing what it writes.
func detached(caller any) any {
	m := caller.(*runtime.Message)
	ex, _ := httpmsg.From(m)
	c := *ex
	c.Status, c.ContentType, c.ReplyHeader = 0, "", nil
	d, _ := httpmsg.NewMessage(nil, c)
	d.Attrs = m.Attrs
	for k, v := range m.Vars { // its own map: the branch runs beside the request's
		d.SetVar(k, v)
	}
	return d
}

// Stop ends the stdio session, if one is open, cancelling the calls still running, and the
// tasks.
func (r *Block) Stop(context.Context) error {
	r.st.Close()
	r.server.CloseTasks()
	return nil
}

var (
	_ runtime.Block   = (*Block)(nil)
	_ runtime.Starter = (*Block)(nil)
	_ runtime.Stopper = (*Block)(nil)
)

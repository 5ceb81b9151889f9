// Package proxy is the mcp-proxy block: an MCP gateway. It serves, behind one endpoint, the
// tools, resources and prompts of several upstream MCP servers (over HTTP or a command's
// standard streams), names prefixed so they cannot clash and tools filtered by allow and deny
// lists. Calls go to the upstream that offers the tool, with their progress, cancellation and
// the upstream's questions (elicitation, sampling, roots) passed between the caller and it. An
// upstream that goes down drops out of the lists, with a log line, and comes back by itself;
// the others never notice. Upstream list changes reach the gateway's clients.
package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"sync"
	"time"

	"github.com/octo-run/octo/blocks/mcp/access"
	"github.com/octo-run/octo/blocks/mcp/mcpmsg"
	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/client"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "mcp-proxy",
		Summary: "an MCP gateway: serves several upstream MCP servers (HTTP or stdio) behind one endpoint",
		Doc: "Serves the tools, resources and prompts of its upstream MCP servers as one stateful MCP " +
			"server, over Streamable HTTP behind an http source or over stdio. Tool and prompt names " +
			"get each upstream's prefix; allow and deny lists pick its tools. A call goes to its " +
			"upstream with its progress and cancellation, and the upstream's questions (elicitation, " +
			"sampling, roots) go to the caller and back. An upstream that is down drops out of the " +
			"lists and is dialed again until it answers; list changes reach the clients.",
		Example: "type: mcp-proxy\nname: gateway\nsettings:\n  upstreams:\n" +
			"    - { name: weather, url: \"http://127.0.0.1:3004/mcp\", tools: { deny: [slow_*] } }\n" +
			"    - { name: notes, command: [node, notes-server.js] }\n",
		Transports:      []string{httpmsg.Transport, stdiomsg.Transport},
		AnswersExchange: true,
		StreamsOn:       []string{stdiomsg.Transport},
		Build:           runtime.BlockFunc(build),
	})
}

// Block is a built mcp-proxy.
type Block struct {
	core      *mcp.Server
	st        *session.Front
	stdio     *mcpmsg.Stdio
	upstreams []*upstream
	retry     time.Duration
	ping      time.Duration
	name      string
	url       func() string
	logger    *slog.Logger

	mu   sync.Mutex
	stop context.CancelFunc
	done sync.WaitGroup
}

// OwnsSpans says the gateway starts its requests' spans itself (runtime.SpanOwner,
// mcpmsg.TraceRequests), each with the client spans of what it asks its upstreams.
func (b *Block) OwnsSpans() {}

func build(b *runtime.Build, s *Settings) (runtime.Block, error) {
	names := map[string]bool{}
	prefixes := map[string]string{}
	for i := range s.Upstreams {
		u := &s.Upstreams[i]
		if mcp.ToolNameProblem(u.Name) != "" {
			b.Errorf(&u.Name, "upstream name %q: it starts its tools' names, so use only A-Z a-z 0-9 _ - . (no spaces)", u.Name)
		}
		if names[u.Name] {
			b.Errorf(&u.Name, "another upstream has the name %q", u.Name)
		}
		names[u.Name] = true
		switch {
		case u.URL == "" && len(u.Command) == 0:
			b.Errorf(u, "upstream %q needs url (an MCP server over HTTP) or command (one over stdio)", u.Name)
		case u.URL != "" && len(u.Command) > 0:
			b.Errorf(&u.Command, "upstream %q: set url or command, not both", u.Name)
		case len(u.Command) > 0 && len(u.Headers) > 0:
			b.Errorf(&u.Headers, "upstream %q: headers go with url; a command gets env", u.Name)
		case u.URL != "" && len(u.Env) > 0:
			b.Errorf(&u.Env, "upstream %q: env goes with command; a url gets headers", u.Name)
		}
		if u.Prefix != nil && *u.Prefix != "" && mcp.ToolNameProblem(*u.Prefix) != "" {
			b.Errorf(u.Prefix, "prefix %q: it starts tool names, so use only A-Z a-z 0-9 _ - . (no spaces)", *u.Prefix)
		}
		if other, dup := prefixes[u.prefix()]; dup {
			b.Errorf(u, "upstreams %q and %q both prefix their names with %q: their tools could clash; give one a prefix of its own", other, u.Name, u.prefix())
		}
		prefixes[u.prefix()] = u.Name
		for _, list := range [][]string{u.Tools.Allow, u.Tools.Deny} {
			for j, p := range list {
				if _, err := path.Match(p, ""); err != nil {
					b.Errorf(&list[j], "pattern %q: %v", p, err)
				}
			}
		}
	}
	if err := b.Err(); err != nil {
		return nil, err
	}
	name := s.ServerName
	if name == "" {
		name = b.Name
	}
	if name == "" {
		name = "octo-gateway"
	}
	blk := &Block{name: name, logger: b.Logger(), url: b.SourceURL()}
	p := &providers{blk: blk}
	blk.core = &mcp.Server{
		Info:         mcp.Implementation{Name: name, Version: "1"},
		Instructions: s.Instructions,
		Versions:     mcp.MockVersions,
		Tools:        p,
		Resources:    p,
		Prompts:      p,
		UnknownTool:  mcp.UnknownToolAsError,
		Capabilities: mcp.Capabilities{ToolsListChanged: true, ResourcesListChanged: true, PromptsListChanged: true},
	}
	mcpmsg.TraceRequests(b, blk.core, mcpmsg.Known{
		Tool:   func(name string) bool { u, _, _ := p.toolOwner(name); return u != nil },
		Prompt: p.hasPrompt,
	})
	if err := blk.core.Check(); err != nil {
		return nil, err
	}
	blk.st = session.New(blk.core, session.Options{AllowBatch: true})
	blk.stdio = mcpmsg.NewStdio(blk.st)
	for i := range s.Upstreams {
		blk.upstreams = append(blk.upstreams, &upstream{set: &s.Upstreams[i], logger: b.Logger(), changed: blk.changed,
			rule: access.Compile(b, s.Upstreams[i].Access), limit: access.CompileLimit(b, s.Upstreams[i].RateLimit),
			suspect: make(chan struct{}, 1), tried: make(chan struct{})})
	}
	blk.retry, blk.ping = s.Retry, s.Ping
	if err := b.Err(); err != nil {
		return nil, err
	}
	return blk, nil
}

// changed tells the gateway's sessions that lists changed.
func (b *Block) changed(kinds ...string) {
	for _, k := range kinds {
		b.st.Changed(session.Change{Kind: k})
	}
}

// Start dials every upstream, each kept by a goroutine of its own until Stop; it does not wait
// for them: one that is slow or down only leaves its tools out for now.
func (b *Block) Start(context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stop != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.stop = cancel
	for _, u := range b.upstreams {
		b.done.Add(1)
		go func() {
			defer b.done.Done()
			u.keep(ctx, b.retry, b.ping)
		}()
	}
	// The first clients see every upstream that answers at once: Start waits for each one's
	// first dial, up to firstWait; one that is down or slow only starts out of the lists.
	deadline := time.After(firstWait)
	for _, u := range b.upstreams {
		select {
		case <-u.tried:
		case <-deadline:
			return nil
		}
	}
	return nil
}

// firstWait bounds how long Start waits for the upstreams' first dials.
const firstWait = 10 * time.Second

// Ready says where clients reach the gateway.
func (b *Block) Ready(context.Context) error {
	if b.url != nil {
		mcpmsg.Announce(b.logger, b.name, b.url())
	}
	return nil
}

// Stop ends the sessions and the upstreams' sessions.
func (b *Block) Stop(context.Context) error {
	b.mu.Lock()
	stop := b.stop
	b.stop = nil
	b.mu.Unlock()
	b.st.Close()
	if stop != nil {
		stop()
		b.done.Wait()
	}
	return nil
}

// Process answers an HTTP request (Streamable HTTP) or a stdio line.
func (b *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	if ev, ok := stdiomsg.From(m); ok {
		return b.stdio.Process(ctx, m, ev)
	}
	ex, err := httpmsg.Need(m)
	if err != nil {
		return nil, err
	}
	body := m.Raw()
	if !m.IsRaw() {
		v, err := m.Body()
		if err != nil {
			return nil, err
		}
		if v != nil {
			if body, err = json.Marshal(v); err != nil {
				return nil, err
			}
		}
	}
	r := b.st.ServeStreamable(ctx, mcp.HTTPRequest{Method: ex.Method, Header: ex.Header, Body: body, Vars: m.Vars, Query: ex.Query()})
	ex.Status = r.Status
	for k, v := range r.Header {
		if ex.ReplyHeader == nil {
			ex.ReplyHeader = make(http.Header, len(r.Header))
		}
		ex.ReplyHeader[k] = v
	}
	switch {
	case r.Stream != nil:
		m.SetStream(mcpmsg.Stream{S: r.Stream})
	case r.Body == nil && r.Status == http.StatusOK:
		m.SetRaw([]byte{})
	case r.Body == nil:
		m.ClearBody()
	default:
		m.SetRaw(r.Body)
	}
	return m, nil
}

// providers serve the merged lists and route each call, read and get to its upstream.
type providers struct{ blk *Block }

// ListTools lists the tools of the upstreams that are up, those the caller may see.
func (p *providers) ListTools(_ context.Context, rc *mcp.RequestContext, _ string) ([]mcp.Tool, string, error) {
	var out []mcp.Tool
	var m *runtime.Message
	for _, u := range p.blk.upstreams {
		if u.rule != nil {
			if m == nil {
				m = callerOf(rc)
			}
			if !u.rule.Allows(m) {
				continue
			}
		}
		u.mu.Lock()
		out = append(out, u.tools...)
		u.mu.Unlock()
	}
	return out, "", nil
}

// callerOf is the request as access rules see it: its vars (vars.jwt) and headers.
func callerOf(rc *mcp.RequestContext) *runtime.Message {
	m := runtime.NewMessage(nil)
	if rc.Header != nil {
		m.Attrs = runtime.Attributes(rc.Header)
	}
	for k, v := range rc.Vars {
		m.SetVar(k, v)
	}
	return m
}

// CallTool calls the tool on its upstream, passing on the caller's progress, cancellation (the
// call's context) and the upstream's questions.
func (p *providers) CallTool(ctx context.Context, rc *mcp.RequestContext, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	u, orig, c := p.toolOwner(name)
	if u == nil {
		return nil, mcp.ErrUnknownTool
	}
	if u.rule != nil || u.limit != nil {
		m := callerOf(rc)
		if r := u.rule.Check(m, name); r != nil {
			return nil, r
		}
		if r := u.limit.Check(m, name, time.Now()); r != nil {
			return nil, r
		}
	}
	if c == nil {
		return mcp.ToolError(fmt.Sprintf("tool %q is on upstream %q, which is down; try again when it is back", name, u.set.Name)), nil
	}
	opts := client.CallOptions{
		OnRequest: func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
			return rc.Request(ctx, method, params)
		},
	}
	if len(rc.ProgressToken) > 0 {
		opts.Progress = func(pr client.Progress) { _ = rc.Progress(ctx, pr.Progress, pr.Total, pr.Message) }
	}
	if runtime.Tracing() { // the upstream continues the caller's trace, from params._meta
		var span runtime.Span
		ctx, span = runtime.StartSpan(ctx, "tools/call "+orig, runtime.SpanClient,
			runtime.Attr{Key: "mcp.method.name", Value: "tools/call"}, runtime.Attr{Key: "gen_ai.tool.name", Value: orig},
			runtime.Attr{Key: "octo.upstream", Value: u.set.Name})
		defer span.End(nil)
		opts.Meta = map[string]string{}
		runtime.InjectTrace(ctx, func(k, v string) { opts.Meta[k] = v })
	}
	res, err := c.CallTool(ctx, orig, args, opts)
	if err == nil {
		return res, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) { // the upstream's own answer, as it gave it
		return nil, rpc
	}
	u.doubt()
	return mcp.ToolError(fmt.Sprintf("upstream %q did not answer tool %q: %v", u.set.Name, orig, err)), nil
}

// toolOwner finds the upstream serving name, the tool's name there, and its session.
func (p *providers) toolOwner(name string) (*upstream, string, *client.Client) {
	for _, u := range p.blk.upstreams {
		u.mu.Lock()
		orig, ok := u.toolNames[name]
		c := u.client
		u.mu.Unlock()
		if ok {
			return u, orig, c
		}
	}
	return nil, "", nil
}

// merged is one list of every upstream's, in the upstreams' order.
func merged[T any](ups []*upstream, list func(*upstream) []T) []T {
	var out []T
	for _, u := range ups {
		u.mu.Lock()
		out = append(out, list(u)...)
		u.mu.Unlock()
	}
	return out
}

func (p *providers) ListResources(context.Context, *mcp.RequestContext, string) ([]mcp.Resource, string, error) {
	return merged(p.blk.upstreams, func(u *upstream) []mcp.Resource { return u.resources }), "", nil
}

func (p *providers) ListResourceTemplates(context.Context, *mcp.RequestContext, string) ([]mcp.ResourceTemplate, string, error) {
	return merged(p.blk.upstreams, func(u *upstream) []mcp.ResourceTemplate { return u.templates }), "", nil
}

// ReadResource reads uri from the upstream that lists it, else from each upstream with
// templates in turn until one has it.
func (p *providers) ReadResource(ctx context.Context, _ *mcp.RequestContext, uri string) ([]mcp.ResourceContents, error) {
	var templated []*client.Client
	for _, u := range p.blk.upstreams {
		u.mu.Lock()
		c, listed := u.client, false
		for _, r := range u.resources {
			if r.URI == uri {
				listed = true
				break
			}
		}
		if c != nil && !listed && len(u.templates) > 0 {
			templated = append(templated, c)
		}
		u.mu.Unlock()
		if listed && c != nil {
			return c.ReadResource(ctx, uri)
		}
	}
	for _, c := range templated {
		contents, err := c.ReadResource(ctx, uri)
		var rpc *jsonrpc.Error
		if err == nil || !errors.As(err, &rpc) || (rpc.Code != -32002 && rpc.Code != jsonrpc.CodeInvalidParams) {
			return contents, err
		}
	}
	return nil, mcp.ErrResourceNotFound
}

func (p *providers) ListPrompts(context.Context, *mcp.RequestContext, string) ([]mcp.Prompt, string, error) {
	return merged(p.blk.upstreams, func(u *upstream) []mcp.Prompt { return u.prompts }), "", nil
}

// hasPrompt reports whether an upstream has the prompt name now.
func (p *providers) hasPrompt(name string) bool {
	for _, u := range p.blk.upstreams {
		u.mu.Lock()
		_, ok := u.promptOf[name]
		u.mu.Unlock()
		if ok {
			return true
		}
	}
	return false
}

func (p *providers) GetPrompt(ctx context.Context, _ *mcp.RequestContext, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	for _, u := range p.blk.upstreams {
		u.mu.Lock()
		orig, ok := u.promptOf[name]
		c := u.client
		u.mu.Unlock()
		if ok && c != nil {
			return c.GetPrompt(ctx, orig, args)
		}
	}
	return nil, mcp.ErrUnknownPrompt
}

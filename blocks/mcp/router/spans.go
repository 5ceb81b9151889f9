package router

import (
	"context"
	"strconv"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/runtime"
)

// The router traces itself (runtime.SpanOwner): a span per MCP request, named and described as
// the MCP semantic conventions say ("tools/call forecast", "tools/list"; mcp.method.name,
// gen_ai.tool.name, mcp.resource.uri, jsonrpc.request.id, mcp.protocol.version, mcp.session.id), with the block's
// place in the config, its tool branches' spans under it. The runtime's own block span would
// only say the same again around it.

// OwnsSpans says the router starts its requests' spans itself (runtime.SpanOwner).
func (r *Block) OwnsSpans() {}

// spans are the types of the router's request spans, made at build: one per tool and prompt,
// one per method it serves, and one for methods it does not (their names are the client's
// choice, and span names must stay few).
type spans struct {
	byTool, byPrompt, byMethod map[string]*runtime.SpanType
	other                      *runtime.SpanType
}

// methods are those a router may serve; the core answers others with an error.
var methods = []string{"initialize", "server/discover", "ping", "tools/list", "tools/call", "resources/list",
	"resources/templates/list", "resources/read", "prompts/list", "prompts/get", "completion/complete", "logging/setLevel",
	"tasks/get", "tasks/result", "tasks/list", "tasks/cancel"}

func newSpans(b *runtime.Build, tools []mcp.Tool, prompts []mcp.Prompt) *spans {
	block := b.SpanAttrs()
	with := func(attrs ...runtime.Attr) []runtime.Attr { return append(attrs, block...) }
	sp := &spans{byTool: map[string]*runtime.SpanType{}, byPrompt: map[string]*runtime.SpanType{}, byMethod: map[string]*runtime.SpanType{},
		other: runtime.NewSpanType("unknown method", runtime.SpanServer, block...)}
	for _, m := range methods {
		sp.byMethod[m] = runtime.NewSpanType(m, runtime.SpanServer, with(runtime.Attr{Key: "mcp.method.name", Value: m})...)
	}
	for _, t := range tools {
		sp.byTool[t.Name] = runtime.NewSpanType("tools/call "+t.Name, runtime.SpanServer, with(runtime.Attr{Key: "mcp.method.name", Value: "tools/call"},
			runtime.Attr{Key: "gen_ai.tool.name", Value: t.Name}, runtime.Attr{Key: "gen_ai.operation.name", Value: "execute_tool"})...)
	}
	for _, p := range prompts {
		sp.byPrompt[p.Name] = runtime.NewSpanType("prompts/get "+p.Name, runtime.SpanServer, with(runtime.Attr{Key: "mcp.method.name", Value: "prompts/get"},
			runtime.Attr{Key: "gen_ai.prompt.name", Value: p.Name})...)
	}
	return sp
}

// start starts the span of a request (mcp.Server.Span).
func (sp *spans) start(ctx context.Context, method, target string, rc *mcp.RequestContext) (context.Context, func(jsonrpc.Response, bool)) {
	if !runtime.Records(ctx) { // a trace left out: not even its attributes are made
		return ctx, endNothing
	}
	typ := sp.byMethod[method]
	switch {
	case method == "tools/call" && sp.byTool[target] != nil:
		typ = sp.byTool[target]
	case method == "prompts/get" && sp.byPrompt[target] != nil:
		typ = sp.byPrompt[target]
	case typ == nil:
		typ = sp.other
	}
	attrs := make([]runtime.Attr, 0, 4)
	attrs = append(attrs, runtime.Attr{Key: "jsonrpc.request.id", Value: rc.RequestID.String()})
	switch {
	case typ == sp.other:
		attrs = append(attrs, runtime.Attr{Key: "mcp.method.name", Value: method})
	case method == "resources/read" && target != "": // in an attribute: URIs are too many for span names
		attrs = append(attrs, runtime.Attr{Key: "mcp.resource.uri", Value: target})
	}
	if rc.Version != "" {
		attrs = append(attrs, runtime.Attr{Key: "mcp.protocol.version", Value: rc.Version})
	}
	if rc.Session != nil {
		attrs = append(attrs, runtime.Attr{Key: "mcp.session.id", Value: rc.Session.ID()})
	}
	ctx, span := typ.Start(ctx, attrs...)
	return ctx, func(resp jsonrpc.Response, toolError bool) {
		var err error
		switch {
		case resp.Error != nil:
			span.SetAttributes(runtime.Attr{Key: "error.type", Value: strconv.Itoa(resp.Error.Code)})
			err = resp.Error
		case toolError:
			span.SetAttributes(runtime.Attr{Key: "error.type", Value: "tool_error"})
		}
		span.End(err)
	}
}

func endNothing(jsonrpc.Response, bool) {}

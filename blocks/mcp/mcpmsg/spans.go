package mcpmsg

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/runtime"
)

// Spans are an MCP block's spans of the requests it serves (the block is a runtime.SpanOwner),
// named and described as the MCP semantic conventions say: "tools/call forecast",
// "prompts/get assist", "tools/list"; mcp.method.name, gen_ai.tool.name, gen_ai.prompt.name,
// mcp.resource.uri, jsonrpc.request.id, mcp.protocol.version, mcp.session.id and error.type,
// with the block's place in the config. The runtime's own block span would only say the same
// again around them.
type Spans struct {
	block    []runtime.Attr
	byMethod map[string]*runtime.SpanType
	other    *runtime.SpanType // a method the server does not serve: its name is the client's
	tools    named
	prompts  named
}

// maxNamed bounds the span types a server keeps per tool or prompt name: names beyond it (a
// mock edited live again and again, a gateway over a huge upstream) share their method's type
// and carry the name in an attribute only, so that span names stay few.
const maxNamed = 1000

// methods are those an MCP block may serve; the core answers others with an error.
var methods = []string{"initialize", "server/discover", "ping", "tools/list", "tools/call", "resources/list",
	"resources/templates/list", "resources/read", "resources/subscribe", "resources/unsubscribe", "prompts/list",
	"prompts/get", "completion/complete", "logging/setLevel", "tasks/get", "tasks/result", "tasks/list", "tasks/cancel"}

// Known says which tool and prompt names a server has now (nil: none): a call of one of them
// has a span named by it, a call of a name the client made up does not (span names must stay
// few), its name in an attribute only.
type Known struct {
	Tool, Prompt func(name string) bool
}

// TraceRequests gives s a span per request when a tracer is installed as b is built (a block
// built then traces; one built before never does), and reads the trace context requests carry
// in params._meta.
func TraceRequests(b *runtime.Build, s *mcp.Server, known Known) {
	if !runtime.Tracing() {
		return
	}
	block := b.SpanAttrs()
	sp := &Spans{block: block, byMethod: make(map[string]*runtime.SpanType, len(methods)),
		other: runtime.NewSpanType("unknown method", runtime.SpanServer, block...)}
	for _, m := range methods {
		sp.byMethod[m] = runtime.NewSpanType(m, runtime.SpanServer, sp.with(runtime.Attr{Key: "mcp.method.name", Value: m})...)
	}
	sp.tools.known, sp.prompts.known = known.Tool, known.Prompt
	sp.tools.make = func(name string) *runtime.SpanType {
		return runtime.NewSpanType("tools/call "+name, runtime.SpanServer, sp.with(runtime.Attr{Key: "mcp.method.name", Value: "tools/call"},
			runtime.Attr{Key: "gen_ai.tool.name", Value: name}, runtime.Attr{Key: "gen_ai.operation.name", Value: "execute_tool"})...)
	}
	sp.prompts.make = func(name string) *runtime.SpanType {
		return runtime.NewSpanType("prompts/get "+name, runtime.SpanServer, sp.with(runtime.Attr{Key: "mcp.method.name", Value: "prompts/get"},
			runtime.Attr{Key: "gen_ai.prompt.name", Value: name})...)
	}
	s.TraceContext = runtime.ExtractTrace
	s.Span = sp.start
}

// with is attrs and the block's.
func (sp *Spans) with(attrs ...runtime.Attr) []runtime.Attr { return append(attrs, sp.block...) }

// start starts the span of a request (mcp.Server.Span).
func (sp *Spans) start(ctx context.Context, method, target string, rc *mcp.RequestContext) (context.Context, func(jsonrpc.Response, bool)) {
	if !runtime.Records(ctx) { // a trace left out: not even its attributes are made
		return ctx, endNothing
	}
	attrs := make([]runtime.Attr, 0, 5)
	attrs = append(attrs, runtime.Attr{Key: "jsonrpc.request.id", Value: rc.RequestID.String()})
	typ := sp.byMethod[method]
	switch {
	case typ == nil:
		typ = sp.other
		attrs = append(attrs, runtime.Attr{Key: "mcp.method.name", Value: method})
	case method == "tools/call" && target != "":
		if t := sp.tools.of(target); t != nil {
			typ = t
		} else {
			attrs = append(attrs, runtime.Attr{Key: "gen_ai.tool.name", Value: target})
		}
	case method == "prompts/get" && target != "":
		if t := sp.prompts.of(target); t != nil {
			typ = t
		} else {
			attrs = append(attrs, runtime.Attr{Key: "gen_ai.prompt.name", Value: target})
		}
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

// named are span types by tool or prompt name, made on a name's first request: a lookup
// without a lock, a copy of the map to add one, at most maxNamed.
type named struct {
	types atomic.Pointer[map[string]*runtime.SpanType]
	mu    sync.Mutex
	known func(name string) bool
	make  func(name string) *runtime.SpanType
}

// of is name's span type; nil for a name the server does not have, or when maxNamed are made
// already.
func (n *named) of(name string) *runtime.SpanType {
	if n.known == nil || !n.known(name) {
		return nil
	}
	if m := n.types.Load(); m != nil {
		if t, ok := (*m)[name]; ok {
			return t
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	old := map[string]*runtime.SpanType{}
	if m := n.types.Load(); m != nil {
		old = *m
	}
	if t, ok := old[name]; ok {
		return t
	}
	if len(old) >= maxNamed {
		return nil
	}
	next := make(map[string]*runtime.SpanType, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	next[name] = n.make(name)
	n.types.Store(&next)
	return next[name]
}

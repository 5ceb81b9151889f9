package runtime

import (
	"context"
	"sync/atomic"
)

// Tracing: the runtime starts a span for each flow and block run, connectors and blocks for the
// requests they serve and make, and trace context is read from requests and passed on to what
// they call. The runtime never imports a tracing library: ops implements Tracer with
// OpenTelemetry and installs it (SetTracer) when the OTEL_* variables ask for traces. Without
// one, StartSpan is a check of a pointer: tracing off costs nothing on the hot path.

// SpanKind says what a span stands for, as OpenTelemetry names it.
type SpanKind int

// The kinds of span.
const (
	SpanInternal SpanKind = iota
	SpanServer            // a request served (an HTTP request, a stdio message)
	SpanClient            // a request made (http-request, mcp-client)
)

// Attr is a span attribute: a string, an int, an int64, a float64 or a bool.
type Attr struct {
	Key   string
	Value any
}

// Tracer starts spans and carries trace context in and out of requests.
type Tracer interface {
	// Prepare makes spans of a name, kind and fixed attributes: turned once into what the
	// tracer starts a span from (a SpanType's), or for one span (StartSpan).
	Prepare(name string, kind SpanKind, attrs ...Attr) PreparedSpan
	// Extract returns ctx with the trace context that get reads from a request's headers
	// (traceparent, tracestate), when it holds one.
	Extract(ctx context.Context, get func(key string) string) context.Context
	// Inject writes the trace context of ctx into an outgoing request's headers with set.
	Inject(ctx context.Context, set func(key, value string))
	// IDs are the trace and span ids of the span in ctx, for logs; ok false without one.
	IDs(ctx context.Context) (trace, span string, ok bool)
	// Records reports whether a span started under ctx may be recorded: false when it is
	// certain not to be (its parent was not sampled, and the sampler follows the parent), so
	// that a trace not sampled costs its spans nothing.
	Records(ctx context.Context) bool
}

// Span is a started span; the zero Span (tracing off) does nothing. It is a value, not an
// interface a tracer implements, so that starting one costs no allocation of its own: a tracer
// puts its span in v and names, in impl, the one value that acts on its spans.
type Span struct {
	impl SpanImpl
	v    any
}

// SpanImpl acts on the spans of a tracer, each the value v its Start put in the Span.
type SpanImpl interface {
	SetAttributes(v any, attrs ...Attr)
	// End ends the span; err, when not nil, marks it failed.
	End(v any, err error)
}

// NewSpan is the span v of a tracer whose spans impl acts on.
func NewSpan(impl SpanImpl, v any) Span { return Span{impl: impl, v: v} }

// SetAttributes adds attributes to the span.
func (s Span) SetAttributes(attrs ...Attr) {
	if s.impl != nil {
		s.impl.SetAttributes(s.v, attrs...)
	}
}

// End ends the span; err, when not nil, marks it failed.
func (s Span) End(err error) {
	if s.impl != nil {
		s.impl.End(s.v, err)
	}
}

var tracer atomic.Pointer[Tracer]

// SetTracer installs t for the process (nil: tracing off).
func SetTracer(t Tracer) {
	if t == nil {
		tracer.Store(nil)
		return
	}
	tracer.Store(&t)
}

// Tracing reports whether a tracer is installed: a caller that would build attributes first can
// skip the work.
func Tracing() bool { return tracer.Load() != nil }

// StartSpan starts a span with the installed tracer, or returns ctx and a span that does
// nothing.
func StartSpan(ctx context.Context, name string, kind SpanKind, attrs ...Attr) (context.Context, Span) {
	t := tracer.Load()
	if t == nil || !(*t).Records(ctx) {
		return ctx, Span{}
	}
	return (*t).Prepare(name, kind, attrs...).Start(ctx)
}

// Records reports whether a span started under ctx may be recorded (Tracer.Records): a caller
// that builds attributes first can skip the work when it would not.
func Records(ctx context.Context) bool {
	t := tracer.Load()
	return t != nil && (*t).Records(ctx)
}

// ExtractTrace returns ctx with the trace context of a request's headers, read with get.
func ExtractTrace(ctx context.Context, get func(key string) string) context.Context {
	if t := tracer.Load(); t != nil {
		return (*t).Extract(ctx, get)
	}
	return ctx
}

// InjectTrace writes the trace context of ctx into an outgoing request's headers.
func InjectTrace(ctx context.Context, set func(key, value string)) {
	if t := tracer.Load(); t != nil {
		(*t).Inject(ctx, set)
	}
}

// TraceIDs are the trace and span ids of the span in ctx, for logs.
func TraceIDs(ctx context.Context) (trace, span string, ok bool) {
	if t := tracer.Load(); t != nil {
		return (*t).IDs(ctx)
	}
	return "", "", false
}

// PreparedSpan starts spans of a name, kind and fixed attributes a tracer prepared.
type PreparedSpan interface {
	// Start starts one, a child of the span in ctx (if any), with attrs beside the fixed ones.
	Start(ctx context.Context, attrs ...Attr) (context.Context, Span)
}

// SpanType is a span a block or connector starts again and again under one name (a flow's, a
// block's): its name, kind and fixed attributes are prepared once for the installed tracer, not
// on every start, and again when another tracer is installed (a reload that changes tracing).
type SpanType struct {
	name     string
	kind     SpanKind
	attrs    []Attr
	prepared atomic.Pointer[preparedFor]
}

type preparedFor struct {
	tracer *Tracer
	span   PreparedSpan
}

// NewSpanType describes spans named name, of kind, with attrs.
func NewSpanType(name string, kind SpanKind, attrs ...Attr) *SpanType {
	return &SpanType{name: name, kind: kind, attrs: attrs}
}

// Start starts a span of the type with the installed tracer, attrs beside the fixed ones, or
// returns ctx and a span that does nothing (also for a nil type).
func (st *SpanType) Start(ctx context.Context, attrs ...Attr) (context.Context, Span) {
	t := tracer.Load()
	if t == nil || st == nil {
		return ctx, Span{}
	}
	p := st.prepared.Load()
	if p == nil || p.tracer != t {
		p = &preparedFor{tracer: t, span: (*t).Prepare(st.name, st.kind, st.attrs...)}
		st.prepared.Store(p)
	}
	return p.span.Start(ctx, attrs...)
}

// traced runs a block in a span of its own, named by its type (and name), with its config
// address and place in the config as attributes. It wraps a block only when a tracer was
// installed when the flow was built, and not a SpanOwner.
type traced struct {
	Block
	span *SpanType
}

func (t traced) Process(ctx context.Context, m *Message) (*Message, error) {
	ctx, span := t.span.Start(ctx)
	out, err := t.Block.Process(ctx, m)
	span.End(err)
	return out, err
}

// SpanOwner is a block that starts the spans of what it serves itself, named for what it does
// (the mcp-router: a span per MCP request, named by its method and tool, as the MCP semantic
// conventions say), with its SpanAttrs: the runtime starts no span of its own around it, which
// would only say the same again.
type SpanOwner interface {
	Block
	OwnsSpans()
}

// SpanAttrs are the attributes of the block's spans: where it is in the config (its address,
// its file:line:col) and the tool whose branch it is in, if any.
func (b *Build) SpanAttrs() []Attr {
	attrs := []Attr{{"octo.block.address", b.addr}, {"code.location", positionOf(b.cb)}}
	if b.bd.tool != "" {
		attrs = append(attrs, Attr{"octo.tool", b.bd.tool})
	}
	return attrs
}

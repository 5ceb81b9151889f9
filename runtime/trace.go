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
	// Start starts a span named name, a child of the span in ctx (if any).
	Start(ctx context.Context, name string, kind SpanKind, attrs ...Attr) (context.Context, Span)
	// Extract returns ctx with the trace context that get reads from a request's headers
	// (traceparent, tracestate), when it holds one.
	Extract(ctx context.Context, get func(key string) string) context.Context
	// Inject writes the trace context of ctx into an outgoing request's headers with set.
	Inject(ctx context.Context, set func(key, value string))
	// IDs are the trace and span ids of the span in ctx, for logs; ok false without one.
	IDs(ctx context.Context) (trace, span string, ok bool)
}

// Span is a started span.
type Span interface {
	SetAttributes(attrs ...Attr)
	// End ends the span; err, when not nil, marks it failed.
	End(err error)
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
	if t == nil {
		return ctx, noSpan{}
	}
	return (*t).Start(ctx, name, kind, attrs...)
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

type noSpan struct{}

func (noSpan) SetAttributes(...Attr) {}
func (noSpan) End(error)             {}

// traced runs a block in a span of its own, named by its type (and name), with its config
// address and place in the config as attributes. It wraps a block only when a tracer was
// installed when the flow was built.
type traced struct {
	Block
	name  string
	attrs []Attr
}

func (t traced) Process(ctx context.Context, m *Message) (*Message, error) {
	ctx, span := StartSpan(ctx, t.name, SpanInternal, t.attrs...)
	out, err := t.Block.Process(ctx, m)
	span.End(err)
	return out, err
}

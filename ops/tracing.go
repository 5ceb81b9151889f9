package ops

import (
	"context"
	"fmt"
	"log/slog"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/cli"
)

// Traces are OpenTelemetry's: this package gives the runtime its Tracer (runtime.SetTracer)
// when the standard OTEL_* variables ask for traces, and exports them over OTLP/HTTP.
func init() { cli.RegisterTracing(startTracing) }

// tracingWanted reports whether the environment asks for traces: an OTLP endpoint is named
// (or the otlp exporter chosen), and neither the SDK nor the trace exporter is turned off.
func tracingWanted(lookup func(string) (string, bool)) (bool, error) {
	get := func(k string) string { v, _ := lookup(k); return v }
	if get("OTEL_SDK_DISABLED") == "true" || get("OTEL_TRACES_EXPORTER") == "none" {
		return false, nil
	}
	switch e := get("OTEL_TRACES_EXPORTER"); e {
	case "", "otlp":
	default:
		return false, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: octo exports traces over OTLP only (otlp, or none)", e)
	}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := get(k); p != "" && p != "http/protobuf" {
			return false, fmt.Errorf("%s=%s: octo sends OTLP over HTTP: set it to http/protobuf (the collector's port 4318)", k, p)
		}
	}
	return get("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" ||
		get("OTEL_TRACES_EXPORTER") == "otlp", nil
}

// startTracing installs an OpenTelemetry tracer provider that exports in batches, configured by
// the OTEL_* variables (endpoint, headers, timeout, service name and resource attributes,
// sampler), when they ask for traces; stop flushes what is left and uninstalls it.
func startTracing(ctx context.Context, lookup func(string) (string, bool), version string, logger *slog.Logger) (func(context.Context) error, error) {
	on, err := tracingWanted(lookup)
	if err != nil || !on {
		return nil, err
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "octo"), attribute.String("service.version", version)),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
		resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	runtime.SetTracer(NewTracer(tp))
	logger.Info("tracing: exporting spans over OTLP/HTTP, as the OTEL_* variables say")
	return func(ctx context.Context) error {
		runtime.SetTracer(nil)
		return tp.Shutdown(ctx)
	}, nil
}

// NewTracer is runtime.Tracer over an OpenTelemetry tracer provider, with the W3C trace context
// and baggage propagators.
func NewTracer(tp trace.TracerProvider) runtime.Tracer {
	return &otelTracer{t: tp.Tracer("github.com/octo-run/octo"), prop: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})}
}

// otelTracer is runtime.Tracer over an OpenTelemetry tracer and the W3C propagators.
type otelTracer struct {
	t    trace.Tracer
	prop propagation.TextMapPropagator
}

var kinds = [...]trace.SpanKind{runtime.SpanInternal: trace.SpanKindInternal, runtime.SpanServer: trace.SpanKindServer, runtime.SpanClient: trace.SpanKindClient}

func (o *otelTracer) Start(ctx context.Context, name string, kind runtime.SpanKind, attrs ...runtime.Attr) (context.Context, runtime.Span) {
	ctx, s := o.t.Start(ctx, name, trace.WithSpanKind(kinds[kind]), trace.WithAttributes(otelAttrs(attrs)...))
	return ctx, otelSpan{s}
}

func (o *otelTracer) Extract(ctx context.Context, get func(string) string) context.Context {
	return o.prop.Extract(ctx, carrier{get: get})
}

func (o *otelTracer) Inject(ctx context.Context, set func(string, string)) {
	o.prop.Inject(ctx, carrier{set: set})
}

func (o *otelTracer) IDs(ctx context.Context) (string, string, bool) {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return "", "", false
	}
	return sc.TraceID().String(), sc.SpanID().String(), true
}

// carrier reads or writes a request's headers for a propagator.
type carrier struct {
	get func(string) string
	set func(string, string)
}

func (c carrier) Get(k string) string {
	if c.get == nil {
		return ""
	}
	return c.get(k)
}

func (c carrier) Set(k, v string) {
	if c.set != nil {
		c.set(k, v)
	}
}

func (c carrier) Keys() []string { return nil }

type otelSpan struct{ s trace.Span }

func (s otelSpan) SetAttributes(attrs ...runtime.Attr) { s.s.SetAttributes(otelAttrs(attrs)...) }

func (s otelSpan) End(err error) {
	if err != nil {
		s.s.RecordError(err)
		s.s.SetStatus(codes.Error, err.Error())
	}
	s.s.End()
}

func otelAttrs(attrs []runtime.Attr) []attribute.KeyValue {
	out := make([]attribute.KeyValue, 0, len(attrs))
	for _, a := range attrs {
		switch v := a.Value.(type) {
		case string:
			out = append(out, attribute.String(a.Key, v))
		case int:
			out = append(out, attribute.Int(a.Key, v))
		case int64:
			out = append(out, attribute.Int64(a.Key, v))
		case float64:
			out = append(out, attribute.Float64(a.Key, v))
		case bool:
			out = append(out, attribute.Bool(a.Key, v))
		default:
			out = append(out, attribute.String(a.Key, fmt.Sprint(v)))
		}
	}
	return out
}

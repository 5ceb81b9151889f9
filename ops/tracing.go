package ops

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/cli"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/lograte"
)

// Traces are OpenTelemetry's: this package gives the runtime its Tracer (runtime.SetTracer)
// when the standard OTEL_* variables ask for traces, and exports them over OTLP/HTTP.
func init() { cli.RegisterTracing(startTracing) }

// tracingWanted reports whether tracing is asked for: by the config's service.tracing, or by the
// environment naming an OTLP endpoint (or choosing the otlp exporter); OTEL_SDK_DISABLED=true
// and OTEL_TRACES_EXPORTER=none turn it off either way.
func tracingWanted(lookup func(string) (string, bool), settings *config.TracingKeys) (bool, error) {
	get := func(k string) string { v, _ := lookup(k); return v }
	if get("OTEL_SDK_DISABLED") == "true" || get("OTEL_TRACES_EXPORTER") == "none" {
		return false, nil
	}
	if settings != nil { // the file names an OTLP/HTTP endpoint: the variables that say otherwise give way
		return true, nil
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
// the config's service.tracing and the OTEL_* variables (endpoint, headers, timeout, service
// name and resource attributes, sampler), when they ask for traces; stop flushes what is left
// and uninstalls it.
func startTracing(ctx context.Context, setup cli.TracingSetup) (func(context.Context) error, error) {
	on, err := tracingWanted(setup.Lookup, setup.Settings)
	if err != nil || !on {
		return nil, err
	}
	var opts []otlptracehttp.Option
	from := "as the OTEL_* variables say"
	if s := setup.Settings; s != nil {
		opts = append(opts, otlptracehttp.WithEndpointURL(tracesURL(s.Endpoint)))
		if len(s.Headers) > 0 {
			opts = append(opts, otlptracehttp.WithHeaders(s.Headers))
		}
		from = "to " + tracesURL(s.Endpoint) + ", as service.tracing says"
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	name := cmp.Or(setup.Service, "octo")
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", name), attribute.String("service.version", setup.Version)),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
		resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	tpOpts := []sdktrace.TracerProviderOption{sdktrace.WithBatcher(exp), sdktrace.WithResource(res)}
	// The SDK's sampler follows the parent unless OTEL_TRACES_SAMPLER names one that does not.
	sampler, _ := setup.Lookup("OTEL_TRACES_SAMPLER")
	followsParent := sampler == "" || strings.HasPrefix(sampler, "parentbased_")
	if s := setup.Settings; s != nil && s.SampleRatio != nil {
		tpOpts = append(tpOpts, sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(*s.SampleRatio))))
		followsParent = true
	}
	tp := sdktrace.NewTracerProvider(tpOpts...)
	// The SDK reports what goes wrong (a collector that cannot be reached) to a global
	// handler that prints with the standard log package: it goes to the service's log instead,
	// in its format, at most every 10 s.
	limit := lograte.New(10 * time.Second)
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		if ok, skipped := limit.Allow(); ok {
			setup.Logger.Warn("tracing: spans were not sent", "err", err.Error(), "alsoFailedSinceLastLine", skipped)
		}
	}))
	runtime.SetTracer(NewTracer(tp, followsParent))
	setup.Logger.Info("tracing: exporting spans over OTLP/HTTP " + from)
	return func(ctx context.Context) error {
		runtime.SetTracer(nil)
		return tp.Shutdown(ctx)
	}, nil
}

// tracesURL is where spans are posted for an OTLP/HTTP base address: its path /v1/traces, as
// OTEL_EXPORTER_OTLP_ENDPOINT is read.
func tracesURL(endpoint string) string {
	return strings.TrimRight(endpoint, "/") + "/v1/traces"
}

// NewTracer is runtime.Tracer over an OpenTelemetry tracer provider, with the W3C trace context
// and baggage propagators. followsParent says the provider's sampler is parent-based (the SDK's
// default, and service.tracing's sampleRatio): a span whose parent was not sampled is then not
// started at all, which makes the traces a ratio leaves out cost next to nothing.
func NewTracer(tp trace.TracerProvider, followsParent bool) runtime.Tracer {
	return &otelTracer{t: tp.Tracer("github.com/octo-run/octo"), followsParent: followsParent,
		prop: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})}
}

// otelTracer is runtime.Tracer over an OpenTelemetry tracer and the W3C propagators.
type otelTracer struct {
	t             trace.Tracer
	prop          propagation.TextMapPropagator
	followsParent bool
}

func (o *otelTracer) Records(ctx context.Context) bool {
	if !o.followsParent {
		return true
	}
	sc := trace.SpanContextFromContext(ctx)
	return !sc.IsValid() || sc.IsSampled()
}

var kinds = [...]trace.SpanKind{runtime.SpanInternal: trace.SpanKindInternal, runtime.SpanServer: trace.SpanKindServer, runtime.SpanClient: trace.SpanKindClient}

func (o *otelTracer) Prepare(name string, kind runtime.SpanKind, attrs ...runtime.Attr) runtime.PreparedSpan {
	kvs := otelAttrs(attrs)
	return &preparedSpan{o: o, name: name, kind: trace.WithSpanKind(kinds[kind]), attrs: kvs[:len(kvs):len(kvs)]}
}

// preparedSpan starts spans of one name, kind and fixed attributes, made once. The attributes
// are set on the span once it is started rather than passed as a start option, which the SDK
// would copy once more; the sampler has no use for them.
type preparedSpan struct {
	o     *otelTracer
	name  string
	kind  trace.SpanStartOption
	attrs []attribute.KeyValue // full: an append for a start's own attributes copies
}

func (p *preparedSpan) Start(ctx context.Context, attrs ...runtime.Attr) (context.Context, runtime.Span) {
	if !p.o.Records(ctx) {
		return ctx, runtime.Span{}
	}
	ctx, s := p.o.t.Start(ctx, p.name, p.kind)
	if s.IsRecording() {
		all := p.attrs
		if len(attrs) > 0 {
			all = appendAttrs(p.attrs, attrs)
		}
		s.SetAttributes(all...)
	}
	return ctx, runtime.NewSpan(otelSpans{}, s)
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

// otelSpans acts on the OpenTelemetry spans in runtime.Spans.
type otelSpans struct{}

func (otelSpans) SetAttributes(v any, attrs ...runtime.Attr) {
	v.(trace.Span).SetAttributes(otelAttrs(attrs)...)
}

func (otelSpans) End(v any, err error) {
	s := v.(trace.Span)
	if err != nil {
		s.RecordError(err)
		s.SetStatus(codes.Error, err.Error())
	}
	s.End()
}

func otelAttrs(attrs []runtime.Attr) []attribute.KeyValue {
	return appendAttrs(make([]attribute.KeyValue, 0, len(attrs)), attrs)
}

// appendAttrs is kvs with attrs after them.
func appendAttrs(kvs []attribute.KeyValue, attrs []runtime.Attr) []attribute.KeyValue {
	for _, a := range attrs {
		switch v := a.Value.(type) {
		case string:
			kvs = append(kvs, attribute.String(a.Key, v))
		case int:
			kvs = append(kvs, attribute.Int(a.Key, v))
		case int64:
			kvs = append(kvs, attribute.Int64(a.Key, v))
		case float64:
			kvs = append(kvs, attribute.Float64(a.Key, v))
		case bool:
			kvs = append(kvs, attribute.Bool(a.Key, v))
		default:
			kvs = append(kvs, attribute.String(a.Key, fmt.Sprint(v)))
		}
	}
	return kvs
}

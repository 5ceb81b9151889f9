package router_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	octohttp "github.com/octo-run/octo/connectors/http"
	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/ops"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// benchConnector takes the place of the sample's http connector so the
// benchmark can hold the built flow and drive it without a socket.
type benchConnector struct{ flows map[string]*runtime.Flow }

func (c *benchConnector) Attach(_ *runtime.SourceBuild, f *runtime.Flow) error {
	c.flows[f.Name] = f
	return nil
}
func (c *benchConnector) Start(context.Context) error { return nil }
func (c *benchConnector) Stop(context.Context) error  { return nil }

var captured = &benchConnector{flows: map[string]*runtime.Flow{}}

func init() {
	runtime.RegisterConnector(runtime.ConnectorSpec{
		Type:    "bench-capture",
		Summary: "test: keeps attached flows for benchmarks",
		// It stands in for the sample's http connector: any settings go.
		Build:  runtime.ConnectorFunc(func(*runtime.ConnectorBuild, *map[string]any) (runtime.Connector, error) { return captured, nil }),
		Source: runtime.SettingsTypeOf[map[string]any](),
	})
}

const (
	forecastCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Lisbon"}}}`
	forecastWant = `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"city\":\"Lisbon\",\"summary\":\"Sunny, 24C\"}"}],"structuredContent":{"city":"Lisbon","summary":"Sunny, 24C"}}}`
	toolsList    = `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`
)

// sampleFlow builds samples/mcp-router as octo run would, with its http
// connector swapped for bench-capture, and returns the flow holding the
// router block.
func sampleFlow(tb testing.TB) *runtime.Flow { return observedFlow(tb, nil) }

// observedFlow is sampleFlow measured by obs, as octo run --admin measures it (nil: not).
func observedFlow(tb testing.TB, obs runtime.Observer) *runtime.Flow {
	tb.Helper()
	cfg := loadSample(tb, "")
	for _, c := range cfg.Connectors {
		c.Type = "bench-capture"
	}
	for _, f := range cfg.Flows {
		f.Source.Type = ""
	}
	if _, err := runtime.NewService(cfg, runtime.Options{Observer: obs}); err != nil {
		tb.Fatal(err)
	}
	f := captured.flows["mcp"]
	if f == nil {
		tb.Fatal("the sample has no flow named mcp")
	}
	return f
}

// loadSample loads samples/mcp-router with HTTP_PORT set to port ("" for
// its default).
func loadSample(tb testing.TB, port string) *config.Config {
	tb.Helper()
	cfg, err := config.Load("../../../samples/mcp-router", func(name string) (string, bool) {
		return port, name == "HTTP_PORT" && port != ""
	})
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}

// headers are what a 2025-06-18 client sends with every POST.
var headers = http.Header{
	"Content-Type":         {"application/json"},
	"Accept":               {"application/json, text/event-stream"},
	"Mcp-Protocol-Version": {"2025-06-18"},
}

// serve runs one POST through the flow as the http connector would: a fresh
// message per request carrying the request's metadata and raw body.
func serve(ctx context.Context, f *runtime.Flow, body []byte) (*runtime.Message, error) {
	m, _ := httpmsg.NewMessage(body, httpmsg.Exchange{Method: http.MethodPost, Path: "/mcp", Host: "127.0.0.1", RemoteAddr: "127.0.0.1:50000", Header: headers})
	return f.Run(ctx, m)
}

func benchmarkCall(b *testing.B, body string, check func([]byte) bool) {
	benchmarkFlow(b, sampleFlow(b), body, check)
}

func benchmarkFlow(b *testing.B, f *runtime.Flow, body string, check func([]byte) bool) {
	ctx := context.Background()
	in := []byte(body)
	out, err := serve(ctx, f, in)
	if err != nil {
		b.Fatal(err)
	}
	if ex, _ := httpmsg.From(out); ex.Status != http.StatusOK || !check(out.Raw()) {
		b.Fatalf("got %d %s", ex.Status, out.Raw())
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := serve(ctx, f, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolsCallForecast is one tools/call of the sample's forecast tool
// through the built router: JSON-RPC decode, input schema, the set-payload
// branch, output schema and the encoded answer.
func BenchmarkToolsCallForecast(b *testing.B) {
	benchmarkCall(b, forecastCall, func(got []byte) bool { return string(got) == forecastWant })
}

// BenchmarkToolsCallForecastObserved is BenchmarkToolsCallForecast with the metrics octo run
// --admin keeps: the flow, both blocks, the tools/call of forecast.
func BenchmarkToolsCallForecastObserved(b *testing.B) {
	benchmarkFlow(b, observedFlow(b, ops.NewMetrics("bench")), forecastCall, func(got []byte) bool { return string(got) == forecastWant })
}

// BenchmarkToolsCallForecastTraced is BenchmarkToolsCallForecast with tracing on, every call
// sampled: the spans of the flow, its blocks and the tools/call, exported in batches (to an
// exporter that drops them). What tracing costs a call is the difference.
func BenchmarkToolsCallForecastTraced(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	runtime.SetTracer(ops.NewTracer(tp, false))
	defer runtime.SetTracer(nil)
	benchmarkCall(b, forecastCall, func(got []byte) bool { return string(got) == forecastWant })
}

// BenchmarkToolsCallForecastExported is BenchmarkToolsCallForecastTraced with the spans sent
// as octo run sends them: batched, over OTLP/HTTP, to a collector on loopback that reads and
// drops them. Its CPU time (not its ns/op: the export runs beside the calls) is what tracing
// every call costs in all.
func BenchmarkToolsCallForecastExported(b *testing.B) {
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) }))
	defer collector.Close()
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(collector.URL+"/v1/traces"))
	if err != nil {
		b.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithBatcher(exp))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	runtime.SetTracer(ops.NewTracer(tp, false))
	defer runtime.SetTracer(nil)
	benchmarkCall(b, forecastCall, func(got []byte) bool { return string(got) == forecastWant })
}

// BenchmarkToolsCallForecastUnsampled is a call whose trace the sampler leaves out, as most are
// with a sampleRatio below 1: the flow's span is decided once, and the spans under it are not
// started at all.
func BenchmarkToolsCallForecastUnsampled(b *testing.B) {
	defer unsampled()()
	benchmarkCall(b, forecastCall, func(got []byte) bool { return string(got) == forecastWant })
}

// unsampled installs a tracer whose sampler records no trace (sampleRatio 0); the func it
// returns uninstalls it.
func unsampled() func() {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0))))
	runtime.SetTracer(ops.NewTracer(tp, true))
	return func() {
		runtime.SetTracer(nil)
		_ = tp.Shutdown(context.Background())
	}
}

// BenchmarkToolsList is one tools/list, whose answer is encoded once and
// then served from the cache.
func BenchmarkToolsList(b *testing.B) {
	benchmarkCall(b, toolsList, func(got []byte) bool {
		return bytes.HasPrefix(got, []byte(`{"jsonrpc":"2.0","id":8,"result":{"tools":[{"name":"forecast",`))
	})
}

// BenchmarkToolsCallOverHTTP serves the unmodified sample with its http
// connector on a loopback port and posts the forecast call from parallel
// keep-alive clients in this process: the whole server path, for
// -cpuprofile (the client's share shows apart under net/http.(*Transport)).
func BenchmarkToolsCallOverHTTP(b *testing.B) {
	cfg := loadSample(b, "0") // the sample listens on loopback (HTTP_HOST's default)
	svc, err := runtime.NewService(cfg, runtime.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = svc.Stop(context.Background()) })
	benchmarkOverHTTP(b, "http://"+svc.Connector("api").(*octohttp.Connector).Addr()+"/mcp")
}

// BenchmarkRawOverHTTP is the baseline of BenchmarkToolsCallOverHTTP: a hand-written net/http
// handler giving the same answer (samples/e2e/load's), on loopback, driven by the same client
// in the same process. The two ns/op compare what the router's generality costs per request.
func BenchmarkRawOverHTTP(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(rawForecast), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close() })
	benchmarkOverHTTP(b, "http://"+ln.Addr().String()+"/mcp")
}

// rawForecast answers the forecast call as a hand-written server would: encoding/json in and
// out, the text block the structured result as JSON.
func rawForecast(w http.ResponseWriter, r *http.Request) {
	var req struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  struct {
			Name      string `json:"name"`
			Arguments struct {
				City *string `json:"city"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<20)).Decode(&req); err != nil || req.Params.Arguments.City == nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	type forecast struct {
		City    string `json:"city"`
		Summary string `json:"summary"`
	}
	out := forecast{City: *req.Params.Arguments.City, Summary: "Sunny, 24C"}
	text, _ := json.Marshal(out)
	var resp struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent forecast `json:"structuredContent"`
		} `json:"result"`
	}
	resp.JSONRPC, resp.ID = "2.0", req.ID
	resp.Result.Content = append(resp.Result.Content, struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{"text", string(text)})
	resp.Result.StructuredContent = out
	body, _ := json.Marshal(resp)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}

// benchmarkOverHTTP posts the forecast call to url from 32 keep-alive clients, checking every
// answer.
func benchmarkOverHTTP(b *testing.B, url string) {
	tr := &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}
	b.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	post := func(buf *bytes.Buffer) error {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(forecastCall))
		if err != nil {
			return err
		}
		req.Header = headers.Clone()
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		buf.Reset()
		if _, err := buf.ReadFrom(resp.Body); err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK || buf.String() != forecastWant {
			return io.ErrUnexpectedEOF
		}
		return nil
	}
	var first bytes.Buffer
	if err := post(&first); err != nil {
		b.Fatalf("%v: %s", err, first.Bytes())
	}
	b.ReportAllocs()
	b.SetParallelism(16) // 32 clients on 2 CPUs, as samples/e2e/load does
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var buf bytes.Buffer
		for pb.Next() {
			if err := post(&buf); err != nil {
				b.Errorf("%v: %s", err, buf.Bytes())
				return
			}
		}
	})
}

// BenchmarkToolsCallWithNumbers is the forecast call with numeric arguments
// as well, which take the number rule (jsonv.Decode).
func BenchmarkToolsCallWithNumbers(b *testing.B) {
	const call = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Lisbon","days":3,"id":9007199254740993,"lat":38.72}}}`
	benchmarkCall(b, call, func(got []byte) bool { return string(got) == forecastWant })
}

// maxForecastAllocs is what one forecast tools/call allocates since the
// parent message rides in the request instead of a context, the result is
// encoded without reflection and the answer needs no header map (20; 35
// before): the common call, whose arguments hold no number, must not pay for
// exactness either.
const maxForecastAllocs = 20

// maxTracedForecastAllocs is the forecast tools/call with every call traced: three spans (69,
// with four, before spans were prepared at build, returned without boxing and the router's block span
// folded into its request's).
const maxTracedForecastAllocs = 41

// maxUnsampledForecastAllocs is the forecast tools/call with tracing on and its trace not
// sampled: the flow's span, decided not to record, and nothing under it (38 before the spans
// under an unsampled one were skipped).
const maxUnsampledForecastAllocs = 24

func TestToolsCallAllocationsDoNotGrow(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector adds allocations of its own")
	}
	for _, tc := range []struct {
		name string
		obs  runtime.Observer
	}{
		{"without metrics", nil},
		{"with the metrics octo run --admin keeps", ops.NewMetrics("test")},
		{"traced", nil},
		{"traced, not sampled", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := maxForecastAllocs
			switch tc.name {
			case "traced, not sampled":
				defer unsampled()()
				want = maxUnsampledForecastAllocs
			case "traced":
				// The spans of the flow, the tools/call and the branch's block: what the
				// OpenTelemetry SDK allocates for each (span, snapshot, context, attributes),
				// and nothing of octo's own but the call's attributes.
				tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithBatcher(tracetest.NewNoopExporter()))
				defer func() { _ = tp.Shutdown(context.Background()) }()
				runtime.SetTracer(ops.NewTracer(tp, false))
				defer runtime.SetTracer(nil)
				want = maxTracedForecastAllocs
			}
			f := observedFlow(t, tc.obs)
			ctx := context.Background()
			in := []byte(forecastCall)
			got := testing.AllocsPerRun(200, func() {
				if _, err := serve(ctx, f, in); err != nil {
					t.Fatal(err)
				}
			})
			if got > float64(want) {
				t.Fatalf("one forecast tools/call allocates %.0f times, want at most %d", got, want)
			}
		})
	}
}

// BenchmarkToolsCallHugeArgument is the forecast tool with a 4 MiB city: what one request costs
// in memory, from the decoded argument to the answer (text and structuredContent both echo it).
func BenchmarkToolsCallHugeArgument(b *testing.B) {
	city := strings.Repeat("a", 4<<20)
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"` + city + `"}}}`
	benchmarkCall(b, body, func(got []byte) bool { return bytes.Contains(got, []byte(`"structuredContent":{"city":"aaaa`)) })
}

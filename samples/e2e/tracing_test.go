package e2e

import (
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// receiver is a local OTLP/HTTP endpoint that keeps the spans it is sent.
type receiver struct {
	mu       sync.Mutex
	spans    []*tracepb.Span
	attrs    map[string]map[string]string // by span name: its string attributes
	services map[string]bool              // the resources' service.name
	header   http.Header                  // of the last export
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req coltrace.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "not OTLP traces", http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	rc.header = r.Header.Clone()
	for _, rs := range req.ResourceSpans {
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.Key == "service.name" && rc.services != nil {
				rc.services[kv.Value.GetStringValue()] = true
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				rc.spans = append(rc.spans, s)
				a := map[string]string{}
				for _, kv := range s.Attributes {
					a[kv.Key] = kv.Value.GetStringValue()
				}
				rc.attrs[s.Name] = a
			}
		}
	}
	rc.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write([]byte{})
}

// traces are the ids of the traces spans were sent for, sorted.
func (rc *receiver) traces() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []string
	for _, s := range rc.spans {
		if id := hex.EncodeToString(s.TraceId); !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// names are the names of the spans of trace id, sorted.
func (rc *receiver) names(id string) []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []string
	for _, s := range rc.spans {
		if hex.EncodeToString(s.TraceId) == id {
			out = append(out, s.Name)
		}
	}
	slices.Sort(out)
	return out
}

// One tools/call that carries a traceparent (a header, or params._meta) yields, under that trace, the request's server
// span, the flow's, the tool's (with the MCP attributes) and its blocks', and the http-request's
// client span; the backend it calls gets a traceparent of the same trace and the request's id.
func TestATraceFollowsAToolCallThroughItsBlocksToTheBackend(t *testing.T) {
	rc := &receiver{attrs: map[string]map[string]string{}}
	collector := httptest.NewServer(rc)
	defer collector.Close()
	var (
		mu                sync.Mutex
		parent, requestID string
	)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		parent, requestID = r.Header.Get("traceparent"), r.Header.Get("X-Request-Id")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"summary": "Sunny"}`))
	}))
	defer backend.Close()
	// An upstream MCP server, traced to the same collector, that a tool calls with mcp-client.
	upPort := strconv.Itoa(freePort(t))
	upCfg := filepath.Join(t.TempDir(), "upstream.yaml")
	if err := os.WriteFile(upCfg, []byte(`service: { name: upstream }
connectors: [ { name: api, type: http, settings: { port: `+upPort+` } } ]
flows:
  - name: up
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        name: stations
        tools:
          - name: station
            process: [ { type: set-payload, settings: { value: '"Station 7"' } } ]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	otel := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + collector.URL, "OTEL_BSP_SCHEDULE_DELAY=50"}
	startOcto(t, append(otel, "OTEL_SERVICE_NAME=octo-upstream"), "run", "--config", upCfg)
	port := strconv.Itoa(freePort(t))
	cfg := filepath.Join(t.TempDir(), "traced.yaml")
	if err := os.WriteFile(cfg, []byte(`service: { name: traced }
connectors: [ { name: api, type: http, settings: { port: `+port+` } } ]
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        name: weather
        tools:
          - name: forecast
            process:
              - type: http-request
                name: weather-api
                settings: { url: "`+backend.URL+`/forecast" }
              - type: set-payload
                settings: { value: 'body.summary' }
          - name: relay
            process:
              - type: mcp-client
                name: stations
                settings: { server: { url: "http://127.0.0.1:`+upPort+`/mcp" }, tool: station }
        resources:
          - uri: docs://stations
            name: stations
            process: [ { type: set-payload, name: notes, settings: { value: '"Station notes"' } } ]
  - name: mock
    source: { connector: api, settings: { path: /mock } }
    process:
      - type: mcp-mock
        name: Weather mock
        settings: { tools: [ { name: get_weather, result: sunny } ] }
  - name: gateway
    source: { connector: api, settings: { path: /gateway } }
    process:
      - type: mcp-proxy
        name: front
        settings: { upstreams: [ { name: up, url: "http://127.0.0.1:`+upPort+`/mcp" } ] }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	startOcto(t, append(otel, "OTEL_SERVICE_NAME=octo-e2e"), "run", "--config", cfg)
	traceID, spanID := "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	a := do(t, "POST", "http://127.0.0.1:"+port+"/mcp", "application/json",
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"forecast","arguments":{}}}`,
		"traceparent", "00-"+traceID+"-"+spanID+"-01", "MCP-Protocol-Version", "2025-06-18")
	if a.status != 200 || !strings.Contains(a.body, "Sunny") {
		t.Fatalf("the call: %d %s", a.status, a.body)
	}
	mu.Lock()
	gotParent, gotID := parent, requestID
	mu.Unlock()
	if !strings.HasPrefix(gotParent, "00-"+traceID+"-") || strings.Contains(gotParent, spanID) || gotID == "" {
		t.Errorf("the backend got traceparent %q and X-Request-Id %q", gotParent, gotID)
	}
	// The router's span is the MCP request's: no block span of its own says the same again.
	want := []string{"GET " + strings.TrimPrefix(backend.URL, "http://"), "POST /mcp", "flow mcp", "http-request weather-api",
		"set-payload", "tools/call forecast"}
	slices.Sort(want)
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Equal(rc.names(traceID), want) {
		if time.Now().After(deadline) {
			t.Fatalf("spans of the trace: %v\nwant %v", rc.names(traceID), want)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Over stdio, or from a client that puts it there, the trace context comes in params._meta.
	metaTrace := "5bf92f3577b34da6a3ce929d0e0e4737"
	a = do(t, "POST", "http://127.0.0.1:"+port+"/mcp", "application/json",
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"forecast","arguments":{},"_meta":{"traceparent":"00-`+metaTrace+`-`+spanID+`-01"}}}`,
		"MCP-Protocol-Version", "2025-06-18")
	if a.status != 200 {
		t.Fatalf("the call with _meta: %d %s", a.status, a.body)
	}
	for !slices.Contains(rc.names(metaTrace), "tools/call forecast") {
		if time.Now().After(deadline) {
			t.Fatalf("spans of the _meta trace: %v", rc.names(metaTrace))
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Every MCP request has its span, named by its method (and tool): an unknown tool's call
	// is marked a tool error.
	listTrace := "9bf92f3577b34da6a3ce929d0e0e4741"
	for _, body := range []string{`{"jsonrpc":"2.0","id":10,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":12,"method":"resources/read","params":{"uri":"docs://stations"}}`} {
		if a := do(t, "POST", "http://127.0.0.1:"+port+"/mcp", "application/json", body,
			"traceparent", "00-"+listTrace+"-"+spanID+"-01", "MCP-Protocol-Version", "2025-06-18"); a.status != 200 {
			t.Fatalf("%s: %d %s", body, a.status, a.body)
		}
	}
	for names := rc.names(listTrace); !slices.Contains(names, "tools/list") || !slices.Contains(names, "tools/call") ||
		!slices.Contains(names, "resources/read") || !slices.Contains(names, "set-payload notes"); names = rc.names(listTrace) {
		if time.Now().After(deadline) {
			t.Fatalf("spans of the list trace: %v", names)
		}
		time.Sleep(50 * time.Millisecond)
	}
	rc.mu.Lock()
	unknown, read := rc.attrs["tools/call"], rc.attrs["resources/read"]
	rc.mu.Unlock()
	if unknown["error.type"] != "tool_error" || unknown["mcp.method.name"] != "tools/call" {
		t.Errorf("the unknown tool's span: %v", unknown)
	}
	if read["mcp.resource.uri"] != "docs://stations" || read["mcp.method.name"] != "resources/read" {
		t.Errorf("the resource read's span: %v", read)
	}
	// The mock and the gateway name their requests' spans as the router does; the gateway's
	// upstream continues the trace.
	mockTrace, gatewayTrace := "abf92f3577b34da6a3ce929d0e0e4742", "bbf92f3577b34da6a3ce929d0e0e4743"
	for _, c := range []struct{ path, tool, trace string }{{"/mock", "get_weather", mockTrace}, {"/gateway", "up_station", gatewayTrace}} {
		url := "http://127.0.0.1:" + port + c.path
		init := do(t, "POST", url, "application/json",
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		session := init.header.Get("Mcp-Session-Id")
		if init.status != 200 || session == "" {
			t.Fatalf("initialize %s: %d %s", c.path, init.status, init.body)
		}
		do(t, "POST", url, "application/json", `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			"Mcp-Session-Id", session, "MCP-Protocol-Version", "2025-06-18")
		a := do(t, "POST", url, "application/json",
			`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"`+c.tool+`","arguments":{}}}`,
			"traceparent", "00-"+c.trace+"-"+spanID+"-01", "MCP-Protocol-Version", "2025-06-18", "Mcp-Session-Id", session)
		if a.status != 200 || strings.Contains(a.body, `"isError":true`) {
			t.Fatalf("%s %s: %d %s", c.path, c.tool, a.status, a.body)
		}
	}
	for !slices.Contains(rc.names(mockTrace), "tools/call get_weather") || !slices.Contains(rc.names(gatewayTrace), "tools/call up_station") ||
		!slices.Contains(rc.names(gatewayTrace), "tools/call station") {
		if time.Now().After(deadline) {
			t.Fatalf("spans of the mock's trace: %v; of the gateway's: %v", rc.names(mockTrace), rc.names(gatewayTrace))
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, n := range append(rc.names(mockTrace), rc.names(gatewayTrace)...) {
		if strings.HasPrefix(n, "mcp-mock") || strings.HasPrefix(n, "mcp-proxy") {
			t.Errorf("a block span around the MCP request's: %q", n)
		}
	}
	// mcp-client passes the trace to the MCP server it calls, in params._meta: the upstream's
	// spans join the caller's trace.
	relayTrace := "6bf92f3577b34da6a3ce929d0e0e4738"
	a = do(t, "POST", "http://127.0.0.1:"+port+"/mcp", "application/json",
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"relay","arguments":{}}}`,
		"traceparent", "00-"+relayTrace+"-"+spanID+"-01", "MCP-Protocol-Version", "2025-06-18")
	if a.status != 200 || !strings.Contains(a.body, "Station 7") {
		t.Fatalf("the relay call: %d %s", a.status, a.body)
	}
	// The caller's client span and the upstream's tool span, with the upstream tool's block.
	joined := func() bool {
		names := rc.names(relayTrace)
		n := 0
		for _, name := range names {
			if name == "tools/call station" {
				n++
			}
		}
		posts := 0
		for _, name := range names {
			if name == "POST /mcp" {
				posts++
			}
		}
		// The upstream's server span and flow join too: the POST carries the trace's
		// traceparent header as well as params._meta.
		return n == 2 && posts == 2 && slices.Contains(names, "flow up") && slices.Contains(names, "set-payload") && slices.Contains(names, "mcp-client stations")
	}
	for !joined() {
		if time.Now().After(deadline.Add(10 * time.Second)) {
			t.Fatalf("spans of the relayed trace: %v", rc.names(relayTrace))
		}
		time.Sleep(50 * time.Millisecond)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if tool := rc.attrs["tools/call forecast"]; tool["mcp.method.name"] != "tools/call" || tool["gen_ai.tool.name"] != "forecast" || tool["mcp.protocol.version"] != "2025-06-18" ||
		tool["jsonrpc.request.id"] != "8" || tool["octo.block.address"] == "" || !strings.Contains(tool["code.location"], "traced.yaml:") {
		t.Errorf("the tool's span: %v", tool)
	}
	if blk := rc.attrs["http-request weather-api"]; blk["octo.block.address"] == "" || !strings.Contains(blk["code.location"], "traced.yaml:") || blk["octo.tool"] != "forecast" {
		t.Errorf("the block's span: %v", blk)
	}
}

// service.tracing in the config turns tracing on without any OTEL_* variable: its endpoint,
// headers and sample ratio are used, the service's name names the traces, and a --watch edit
// that points it at another collector moves the spans there.
func TestTracingIsSetInTheConfigAndFollowsAReload(t *testing.T) {
	first := &receiver{attrs: map[string]map[string]string{}, services: map[string]bool{}}
	c1 := httptest.NewServer(first)
	defer c1.Close()
	second := &receiver{attrs: map[string]map[string]string{}, services: map[string]bool{}}
	c2 := httptest.NewServer(second)
	defer c2.Close()
	port := strconv.Itoa(freePort(t))
	cfg := filepath.Join(t.TempDir(), "traced.yaml")
	config := func(collector string) string {
		return `service:
  name: file-traced
  tracing: { endpoint: "` + collector + `/", headers: { x-collector-key: "${COLLECTOR_KEY}" }, sampleRatio: 0 }
env: [ { name: COLLECTOR_KEY } ]
` + oneToolRouter(port, "forecast", "Sunny")
	}
	if err := os.WriteFile(cfg, []byte(config(c1.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	// No OTEL_* variable but the batch delay, which only makes the test quick.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OTEL_") {
			env = append(env, kv)
		}
	}
	p := startOctoUntil(t, append(env, "OTEL_BSP_SCHEDULE_DELAY=50", "COLLECTOR_KEY=k-123"), func(line string) bool { return strings.Contains(line, "service started") },
		"run", "--watch", "--config", cfg)
	if !strings.Contains(p.Log(), "exporting spans over OTLP/HTTP to "+c1.URL+"/v1/traces, as service.tracing says") {
		t.Errorf("the log does not say where spans go:\n%s", p.Log())
	}
	call := func(traceparent string) {
		t.Helper()
		headers := []string{"MCP-Protocol-Version", "2025-06-18"}
		if traceparent != "" {
			headers = append(headers, "traceparent", traceparent)
		}
		a := do(t, "POST", "http://127.0.0.1:"+port+"/mcp", "application/json",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","arguments":{}}}`, headers...)
		if a.status != 200 || !strings.Contains(a.body, "Sunny") {
			t.Fatalf("the call: %d %s", a.status, a.body)
		}
	}
	waitTrace := func(rc *receiver, id string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !slices.Contains(rc.names(id), "tools/call forecast"); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no spans of trace %s: %v", id, rc.traces())
			}
		}
	}
	// sampleRatio 0: a call that starts its own trace is not recorded; one whose caller sampled
	// its trace is.
	call("")
	sampled := "7bf92f3577b34da6a3ce929d0e0e4739"
	call("00-" + sampled + "-00f067aa0ba902b7-01")
	waitTrace(first, sampled)
	if got := first.traces(); !slices.Equal(got, []string{sampled}) {
		t.Errorf("traces sent: %v, want only the caller's sampled %s", got, sampled)
	}
	first.mu.Lock()
	key, services := first.header.Get("X-Collector-Key"), first.services
	first.mu.Unlock()
	if key != "k-123" || !services["file-traced"] {
		t.Errorf("the export carried x-collector-key %q and service names %v", key, services)
	}
	// A reload that names another collector: the next call's spans go there.
	if err := os.WriteFile(cfg, []byte(config(c2.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	p.waitCount(t, "reloaded", 1)
	moved := "8bf92f3577b34da6a3ce929d0e0e4740"
	call("00-" + moved + "-00f067aa0ba902b7-01")
	waitTrace(second, moved)
	if slices.Contains(first.traces(), moved) {
		t.Errorf("the first collector got spans after the reload moved tracing away")
	}
}

// The guide's service.tracing section is valid as written.
func TestTheTracingGuidesSectionValidates(t *testing.T) {
	_, traces, _ := strings.Cut(readGuide(t, "health-and-metrics.md"), "## Traces")
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(traces)
	if m == nil {
		t.Fatal("the guide's Traces section has no yaml block")
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "service.yaml"), m[1])
	cmd := exec.Command(octoBin, "validate", "--config", dir)
	cmd.Env = append(os.Environ(), "COLLECTOR_KEY=k")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(m[1], "tracing:") {
		t.Errorf("octo validate of the guide's section: %v\n%s", err, out)
	}
}

// A collector that cannot be reached is told in the service's log, in its format, not by the
// SDK's own printing to standard error.
func TestACollectorThatCannotBeReachedIsToldInTheLog(t *testing.T) {
	down := freePort(t) // nothing listens there
	port := strconv.Itoa(freePort(t))
	cfg := filepath.Join(t.TempDir(), "traced.yaml")
	writeFile(t, cfg, `service: { name: s, tracing: { endpoint: "http://127.0.0.1:`+strconv.Itoa(down)+`" } }
`+oneToolRouter(port, "hello", "hi"))
	p := startOctoUntil(t, []string{"OTEL_BSP_SCHEDULE_DELAY=50", "OTEL_EXPORTER_OTLP_TIMEOUT=500"}, func(line string) bool { return strings.Contains(line, "service started") },
		"run", "--log-format", "json", "--config", cfg)
	if a := do(t, "POST", "http://127.0.0.1:"+port+"/mcp", "application/json",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello"}}`, "MCP-Protocol-Version", "2025-06-18"); a.status != 200 {
		t.Fatalf("the call: %d %s", a.status, a.body)
	}
	p.waitCount(t, `"msg":"tracing: spans were not sent"`, 1)
	for _, line := range strings.Split(strings.TrimSpace(p.Log()), "\n") {
		if !strings.HasPrefix(line, "{") {
			t.Errorf("a log line that is not JSON: %q", line)
		}
	}
}

// oneToolRouter is the connectors and flows of a config serving, on port at /mcp, a router with
// one tool that answers text.
func oneToolRouter(port, tool, text string) string {
	return `connectors: [ { name: api, type: http, settings: { port: ` + port + ` } } ]
flows:
  - { name: mcp, source: { connector: api, settings: { path: /mcp } }, process: [ { type: mcp-router, name: weather,
      tools: [ { name: ` + tool + `, process: [ { type: set-payload, settings: { value: '"` + text + `"' } } ] } ] } ] }
`
}

// With tracing on, clients that close at once after their request, or never read the answer,
// still have their requests' spans ended and sent, octo's memory stays bounded, and a client
// that behaves is answered and traced.
func TestTracedRequestsOfClientsThatLeaveOrNeverReadEndTheirSpans(t *testing.T) {
	rc := &receiver{attrs: map[string]map[string]string{}}
	collector := httptest.NewServer(rc)
	defer collector.Close()
	port := strconv.Itoa(freePort(t))
	cfg := filepath.Join(t.TempDir(), "traced.yaml")
	writeFile(t, cfg, `service: { name: s, tracing: { endpoint: "`+collector.URL+`" } }
`+oneToolRouter(port, "hello", "hi"))
	p := startOctoUntil(t, []string{"OTEL_BSP_SCHEDULE_DELAY=50"}, func(line string) bool { return strings.Contains(line, "service started") },
		"run", "--config", cfg)
	const leaving, silent = 200, 50
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","arguments":{}}}`
	request := func(trace string) []byte {
		return []byte("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\n" +
			"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n" +
			"traceparent: 00-" + trace + "-00f067aa0ba902b7-01\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	}
	traceOf := func(i int) string { return fmt.Sprintf("%032x", 0xc0ffee000+i) }
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := range leaving + silent {
		conn, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Write(request(traceOf(i))); err != nil {
			t.Fatal(err)
		}
		if i < leaving {
			conn.Close() // gone before the answer
		} else {
			held = append(held, conn) // never reads it
		}
	}
	if a := do(t, "POST", "http://127.0.0.1:"+port+"/mcp", "application/json", body,
		"traceparent", "00-"+traceOf(leaving+silent)+"-00f067aa0ba902b7-01", "MCP-Protocol-Version", "2025-06-18"); a.status != 200 || !strings.Contains(a.body, "hi") {
		t.Fatalf("a client that behaves: %d %s", a.status, a.body)
	}
	// Every request that reached the router has its server span ended and sent; one whose client
	// left before it was read may never have reached it.
	deadline := time.Now().Add(15 * time.Second)
	for {
		served := 0
		for i := range leaving + silent + 1 {
			if slices.Contains(rc.names(traceOf(i)), "tools/call hello") {
				if !slices.Contains(rc.names(traceOf(i)), "POST /mcp") {
					t.Fatalf("trace %d has the tool's span without its server span: %v", i, rc.names(traceOf(i)))
				}
				served++
			}
		}
		if served >= silent+1 && slices.Contains(rc.names(traceOf(leaving+silent)), "POST /mcp") {
			t.Logf("%d of %d requests were served and traced", served, leaving+silent+1)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d requests' spans arrived; want at least the %d whose clients stayed", served, silent+1)
		}
		time.Sleep(100 * time.Millisecond)
	}
	assertPeakRSSUnder(t, p, 100)
}

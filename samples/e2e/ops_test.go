package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// opsConfig is a service with a router (a tool that logs and echoes, a tool that calls a
// backend) and a plain flow calling the same backend, its http connector writing an access log.
const opsConfig = `service: { name: shop }
env:
  - { name: HTTP_PORT }
  - { name: BACKEND }
connectors:
  - name: api
    type: http
    settings: { port: "${HTTP_PORT}", accessLog: true }
flows:
  - name: mcp
    source: { connector: api, type: http, settings: { path: /mcp } }
    process:
      - type: mcp-router
        name: tools
        tools:
          - name: echo
            description: Says the text back
            process:
              - type: log
                settings: { message: 'echo {{ body.text }}' }
              - type: set-payload
                settings: { value: 'body.text' }
          - name: price
            description: The price, from the backend
            process:
              - type: http-request
                settings: { url: '${BACKEND}/price' }
  - name: plain
    source: { connector: api, type: http, settings: { path: /price } }
    process:
      - type: http-request
        settings: { url: '${BACKEND}/price' }
  - name: slow
    source: { connector: api, type: http, settings: { path: /slow } }
    process:
      - type: log
        settings: { message: 'slow request began' }
      - type: delay
        settings: { duration: 5s }
`

// failingBackend answers every request 500, so http-request fails as upstream.
func failingBackend(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "the price list is down", http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// startOps runs opsConfig from a temporary folder with --admin; it returns the service's and
// the admin listener's base URLs, and the config file.
func startOps(t *testing.T) (base, admin, file string, p *proc) {
	t.Helper()
	dir := t.TempDir()
	file = filepath.Join(dir, "shop.yaml")
	if err := os.WriteFile(file, []byte(opsConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	port, adminPort := freePort(t), freePort(t)
	p = startOcto(t, []string{"HTTP_PORT=" + strconv.Itoa(port), "BACKEND=" + failingBackend(t)},
		"run", "--config", dir, "--admin", "127.0.0.1:"+strconv.Itoa(adminPort))
	return "http://127.0.0.1:" + strconv.Itoa(port), "http://127.0.0.1:" + strconv.Itoa(adminPort), file, p
}

// scrape reads /metrics into a map from each series, as the text format writes it
// (name{labels sorted by name}), to its value.
func scrape(t *testing.T, admin string) map[string]float64 {
	t.Helper()
	a := do(t, http.MethodGet, admin+"/metrics", "", "")
	if a.status != http.StatusOK || !strings.HasPrefix(a.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %d %s", a.status, a.header.Get("Content-Type"))
	}
	got, err := runtimetest.Metrics(a.body)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// series writes a series as the text format does: labels sorted by name.
func series(name string, labels ...string) string {
	var pairs []string
	for i := 0; i+1 < len(labels); i += 2 {
		pairs = append(pairs, labels[i]+"="+strconv.Quote(labels[i+1]))
	}
	slices.Sort(pairs)
	return name + "{" + strings.Join(pairs, ",") + "}"
}

// expectMetrics checks each series' value exactly.
func expectMetrics(t *testing.T, got map[string]float64, want map[string]float64) {
	t.Helper()
	for s, v := range want {
		if g, ok := got[s]; !ok || g != v {
			t.Errorf("%s = %v (present: %v), want %v", s, g, ok, v)
		}
	}
}

func callTool(t *testing.T, url, name string, args map[string]any, header ...string) *mcp.CallToolResult {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "ops-e2e", Version: "1"}, nil)
	hc := &http.Client{Transport: headerTransport(header)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true}, sessionRevision)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// headerTransport adds header pairs to every request.
func headerTransport(header []string) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		return http.DefaultTransport.RoundTrip(r)
	})
}

func TestMetricsCountRouterToolsAndPlainFlowsExactly(t *testing.T) {
	base, admin, _, p := startOps(t)
	for range 2 {
		if res := callTool(t, base+"/mcp", "echo", map[string]any{"text": "hi"}); res.IsError {
			t.Fatalf("echo failed: %+v", res.Content)
		}
	}
	if res := callTool(t, base+"/mcp", "price", map[string]any{}); !res.IsError {
		t.Fatalf("price did not fail: %+v", res.Content)
	}
	if a := do(t, http.MethodGet, base+"/price", "", ""); a.status != http.StatusBadGateway {
		t.Fatalf("/price: %d %s", a.status, a.body)
	}
	// Each access line is logged once its request has ended, in-flight count included: the
	// Go SDK client, asking for the session revision, POSTs initialize,
	// notifications/initialized and tools/call; then comes the plain request.
	p.waitCount(t, "msg=access", 3*3+1)

	svc, tools := []string{"service", "shop"}, []string{"service", "shop", "flow", "mcp", "block", "flows.mcp.process[0]"}
	tool := func(name string, more ...string) []string {
		return append(append(slices.Clone(tools), "method", "tools/call", "tool", name), more...)
	}
	block := func(flow, addr, typ, tool string, more ...string) []string {
		return append(append(slices.Clone(svc), "flow", flow, "block", addr, "type", typ, "name", "", "tool", tool), more...)
	}
	got := scrape(t, admin)
	expectMetrics(t, got, map[string]float64{
		// Each of the three clients initialized, then called: 3 initialize, 3 tools/call.
		series("octo_mcp_requests_total", tool("echo")...):                                                    2,
		series("octo_mcp_requests_total", tool("price")...):                                                   1,
		series("octo_mcp_errors_total", tool("price", "kind", "tool error")...):                               1,
		series("octo_mcp_requests_total", append(slices.Clone(tools), "method", "initialize", "tool", "")...): 3,
		series("octo_mcp_request_duration_seconds_count", tool("echo")...):                                    2,
		// Each client's three POSTs ran the flow.
		series("octo_flow_runs_total", "service", "shop", "flow", "mcp"):                                                                            9,
		series("octo_flow_runs_total", "service", "shop", "flow", "plain"):                                                                          1,
		series("octo_flow_errors_total", "service", "shop", "flow", "plain", "kind", "upstream"):                                                    1,
		series("octo_flow_duration_seconds_count", "service", "shop", "flow", "plain"):                                                              1,
		series("octo_block_runs_total", block("mcp", "flows.mcp.process[0].tools[0].process[1]", "set-payload", "echo")...):                         2,
		series("octo_block_runs_total", block("mcp", "flows.mcp.process[0].tools[1].process[0]", "http-request", "price")...):                       1,
		series("octo_block_errors_total", block("mcp", "flows.mcp.process[0].tools[1].process[0]", "http-request", "price", "kind", "upstream")...): 1,
		series("octo_block_errors_total", block("plain", "flows.plain.process[0]", "http-request", "", "kind", "upstream")...):                      1,
		series("octo_http_in_flight_requests", "service", "shop", "connector", "api"):                                                               0,
		series("octo_http_rejected_total", "service", "shop", "connector", "api", "reason", "overloaded"):                                           0,
		"octo_reloads_total{result=\"ok\"}":     0,
		"octo_reloads_total{result=\"failed\"}": 0,
	})
	if _, ok := got[series("octo_mcp_errors_total", tool("echo", "kind", "tool error")...)]; ok {
		t.Error("echo succeeded, yet has a tool error series")
	}
	if !strings.Contains(fmt.Sprint(got), "octo_build_info{goversion=") {
		t.Error("no octo_build_info")
	}
}

func TestRequestIDsAreEchoedAndOnEveryLogLineOfTheirRequest(t *testing.T) {
	base, _, _, p := startOps(t)
	const id = "e2e-req-42"
	res := callTool(t, base+"/mcp", "echo", map[string]any{"text": "hello"}, "X-Request-Id", id)
	if res.IsError {
		t.Fatalf("echo failed: %+v", res.Content)
	}
	p.waitCount(t, "msg=access", 3) // logged once each request has ended
	lines := strings.Split(p.Log(), "\n")
	var echo, access int
	for _, l := range lines {
		switch {
		case strings.Contains(l, `msg="echo hello"`):
			echo++
			if !strings.Contains(l, "request_id="+id) {
				t.Errorf("the log block's line lacks the request id: %s", l)
			}
		case strings.Contains(l, "msg=access") && strings.Contains(l, "request_id="+id):
			access++
			for _, want := range []string{"method=POST", "path=/mcp", "status=", "bytes=", "duration=", "remote=127.0.0.1:"} {
				if !strings.Contains(l, want) {
					t.Errorf("access line lacks %s: %s", want, l)
				}
			}
			if strings.Contains(l, "Mcp-Protocol-Version") || strings.Contains(l, "hello") {
				t.Errorf("access line shows headers or the body: %s", l)
			}
		}
	}
	if echo != 1 || access != 3 { // initialize, notifications/initialized, tools/call
		t.Fatalf("%d echo lines and %d access lines carry the id; want 1 and 3:\n%s", echo, access, p.Log())
	}

	t.Run("an answer says its request id", func(t *testing.T) {
		a := do(t, http.MethodGet, base+"/price", "", "", "X-Request-Id", "abc.DEF_123")
		if got := a.header.Get("X-Request-Id"); got != "abc.DEF_123" {
			t.Fatalf("X-Request-Id %q", got)
		}
		p.waitCount(t, "request_id=abc.DEF_123", 2) // the flow's failure and the access line
	})
	t.Run("an id too long or with spaces is replaced by a new one", func(t *testing.T) {
		for _, bad := range []string{strings.Repeat("x", 129), "two words"} {
			a := do(t, http.MethodGet, base+"/price", "", "", "X-Request-Id", bad)
			if got := a.header.Get("X-Request-Id"); !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(got) {
				t.Fatalf("for %q the answer's id is %q", bad, got)
			}
		}
	})
}

func TestReadyzFollowsABrokenReloadAndTheStop(t *testing.T) {
	base, admin, file, p := startOps(t)
	if a := do(t, http.MethodGet, admin+"/healthz", "", ""); a.status != 200 || a.body != "ok\n" {
		t.Fatalf("/healthz: %d %q", a.status, a.body)
	}
	if a := do(t, http.MethodGet, admin+"/readyz", "", ""); a.status != 200 || a.body != "{\"status\":\"ready\"}\n" {
		t.Fatalf("/readyz: %d %q", a.status, a.body)
	}
	callTool(t, base+"/mcp", "echo", map[string]any{"text": "before"})

	if err := os.WriteFile(file, []byte(strings.Replace(opsConfig, "type: set-payload", "type: set-paylod", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Process.Signal(syscall.SIGHUP)
	p.waitCount(t, "not reloaded", 1)
	a := do(t, http.MethodGet, admin+"/readyz", "", "")
	if a.status != http.StatusOK || !strings.Contains(a.body, `"status":"ready"`) || !strings.Contains(a.body, `"ok":false`) ||
		!strings.Contains(a.body, "the previous config keeps serving") {
		t.Fatalf("/readyz after a broken reload: %d %s", a.status, a.body)
	}
	got := scrape(t, admin)
	expectMetrics(t, got, map[string]float64{
		`octo_reloads_total{result="failed"}`: 1,
		`octo_config_last_reload_successful`:  0,
	})

	if err := os.WriteFile(file, []byte(opsConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Process.Signal(syscall.SIGHUP)
	p.waitCount(t, "msg=reloaded", 1)
	callTool(t, base+"/mcp", "echo", map[string]any{"text": "after"})
	got = scrape(t, admin)
	expectMetrics(t, got, map[string]float64{
		`octo_reloads_total{result="ok"}`:    1,
		`octo_config_last_reload_successful`: 1,
		// The new build counts on in the same series.
		series("octo_mcp_requests_total", "service", "shop", "flow", "mcp", "block", "flows.mcp.process[0]", "method", "tools/call", "tool", "echo"): 2,
	})
	if a := do(t, http.MethodGet, admin+"/readyz", "", ""); a.status != 200 || !strings.Contains(a.body, `"ok":true`) {
		t.Fatalf("/readyz after a good reload: %d %s", a.status, a.body)
	}

	t.Run("stopping: 503 while requests finish", func(t *testing.T) {
		go func() {
			resp, err := http.Get(base + "/slow")
			if err == nil {
				resp.Body.Close()
			}
		}()
		p.waitCount(t, "slow request began", 1)
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		p.waitCount(t, "shutting down", 1)
		a := do(t, http.MethodGet, admin+"/readyz", "", "")
		if a.status != http.StatusServiceUnavailable || !strings.Contains(a.body, `"status":"stopping"`) {
			t.Fatalf("/readyz while stopping: %d %s", a.status, a.body)
		}
		if a := do(t, http.MethodGet, admin+"/healthz", "", ""); a.status != 200 {
			t.Fatalf("/healthz while stopping: %d", a.status)
		}
	})
}

func TestReadyzSaysStartingUntilTheServiceServes(t *testing.T) {
	jwks, err := os.ReadFile(filepath.Join(repoRoot(), "samples/mcp-oauth/dev-jwks.json"))
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	asked := make(chan struct{}, 1)
	keys := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case asked <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(jwks)
	}))
	defer keys.Close()
	var once bool
	unblock := func() {
		if !once {
			once = true
			close(release)
		}
	}
	defer unblock()

	dir := t.TempDir()
	cfg := `connectors:
  - { name: api, type: http, settings: { port: ` + strconv.Itoa(freePort(t)) + ` } }
flows:
  - name: guarded
    source: { connector: api, settings: { path: /x } }
    process:
      - type: jwt-validate
        settings: { jwksUrl: "` + keys.URL + `/jwks.json", audience: "http://127.0.0.1/x" }
`
	if err := os.WriteFile(filepath.Join(dir, "guarded.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	admin := "http://127.0.0.1:" + strconv.Itoa(freePort(t))
	p := startOctoUntil(t, nil, func(line string) bool { return strings.Contains(line, "admin listening") },
		"run", "--config", dir, "--admin", strings.TrimPrefix(admin, "http://"))
	select { // the service is starting: its jwt-validate waits for the keys
	case <-asked:
	case <-p.done:
		t.Fatalf("octo ended: %v\n%s", p.err, p.Log())
	case <-time.After(20 * time.Second):
		t.Fatalf("the keys were never asked for:\n%s", p.Log())
	}
	a := do(t, http.MethodGet, admin+"/readyz", "", "")
	if a.status != http.StatusServiceUnavailable || a.body != "{\"status\":\"starting\"}\n" {
		t.Fatalf("/readyz while starting: %d %q", a.status, a.body)
	}
	if a := do(t, http.MethodGet, admin+"/healthz", "", ""); a.status != 200 {
		t.Fatalf("/healthz while starting: %d", a.status)
	}
	unblock()
	p.waitCount(t, "service started", 1)
	if a := do(t, http.MethodGet, admin+"/readyz", "", ""); a.status != 200 {
		t.Fatalf("/readyz once started: %d %s", a.status, a.body)
	}
}

func TestTheAdminListenerNeverSharesTheServicePort(t *testing.T) {
	port := strconv.Itoa(freePort(t))
	code, out := runOctoEnv(t, []string{"HTTP_PORT=" + port}, "run", "--config", "samples/mcp-router", "--admin", "127.0.0.1:"+port)
	if code == 0 || !strings.Contains(out, "is in use by another program") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// runOctoEnv runs octo with env to its end (at most 20s) and returns its exit code and output.
func runOctoEnv(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, octoBin, args...)
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), env...)
	out, _ := cmd.CombinedOutput()
	return cmd.ProcessState.ExitCode(), string(out)
}

// The health guide's lines, run against the sample it names: each curl line's
// printed answer comes back (a grep of /metrics: exactly the lines printed).
func TestReadmeHealthAndMetricsLinesAnswerAsPrinted(t *testing.T) {
	section := docSection(t, "Health, metrics and traces")
	if !strings.Contains(section, "HTTP_PORT=8080 bin/octo run --config samples/mcp-router --admin 127.0.0.1:9090") {
		t.Fatal("the section no longer runs the router sample with --admin 127.0.0.1:9090")
	}
	port, adminPort := strconv.Itoa(freePort(t)), strconv.Itoa(freePort(t))
	startOcto(t, []string{"HTTP_PORT=" + port}, "run", "--config", "samples/mcp-router", "--admin", "127.0.0.1:"+adminPort)
	local := strings.NewReplacer("localhost:8080", "127.0.0.1:"+port, "localhost:9090", "127.0.0.1:"+adminPort)
	curl := regexp.MustCompile(`^curl -s (localhost:\d+/\S*)(?: -H '([^:]+): ([^']*)')?(?: -d '(.*)')?(?: \| grep '(.*)')?$`)
	lines := strings.Split(section, "\n")
	ran := 0
	for i, line := range lines {
		if !strings.HasPrefix(line, "curl ") {
			continue
		}
		m := curl.FindStringSubmatch(line)
		if m == nil || i+1 == len(lines) || !strings.HasPrefix(lines[i+1], "# ") {
			t.Fatalf("README line %q is not a curl line this test reads, followed by a `# answer` line", line)
		}
		url, header, value, body, grep := "http://"+local.Replace(m[1]), m[2], m[3], m[4], m[5]
		want := strings.TrimPrefix(lines[i+1], "# ")
		var a answer
		var headers []string
		if header != "" {
			headers = []string{header, value}
		}
		if body != "" {
			a = do(t, http.MethodPost, url, "application/x-www-form-urlencoded", body, headers...)
		} else {
			a = do(t, http.MethodGet, url, "", "", headers...)
		}
		got := strings.TrimSuffix(a.body, "\n")
		if grep != "" {
			var kept []string
			for _, l := range strings.Split(a.body, "\n") {
				if regexp.MustCompile(grep).MatchString(l) {
					kept = append(kept, l)
				}
			}
			got = strings.Join(kept, "\n")
		}
		if got != want {
			t.Errorf("%s\ngot %d\n%s\nREADME prints\n%s", line, a.status, got, want)
		}
		if header == "X-Request-Id" && a.header.Get("X-Request-Id") != value {
			t.Errorf("%s: the answer's X-Request-Id is %q", line, a.header.Get("X-Request-Id"))
		}
		ran++
	}
	if ran < 4 {
		t.Fatalf("ran %d curl lines of the section, want 4", ran)
	}
}

// mcp-mock's requests are counted by the same core as the router's: by method and tool.
func TestMetricsCountMockToolCalls(t *testing.T) {
	dir := t.TempDir()
	cfg := `service: { name: mocks }
env:
  - { name: HTTP_PORT }
connectors:
  - { name: api, type: http, settings: { port: "${HTTP_PORT}" } }
flows:
  - name: mock
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-mock
        name: Weather mock
        settings:
          tools:
            - name: get_weather
              description: The current weather in a city
              result: '{"city": "{{args.city}}", "forecast": "sunny"}'
`
	if err := os.WriteFile(filepath.Join(dir, "mock.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	port, adminPort := strconv.Itoa(freePort(t)), strconv.Itoa(freePort(t))
	startOcto(t, []string{"HTTP_PORT=" + port}, "run", "--config", dir, "--admin", "127.0.0.1:"+adminPort)
	base := "http://127.0.0.1:" + port
	for range 2 {
		if res := callTool(t, base+"/mcp", "get_weather", map[string]any{"city": "Oslo"}); res.IsError {
			t.Fatalf("get_weather failed: %+v", res.Content)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := runtimetest.ConnectMCP(t, base+"/mcp", nil).CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Fatal("an unknown tool was called")
	}
	labels := []string{"service", "mocks", "flow", "mock", "block", "flows.mock.process[0]", "method", "tools/call"}
	expectMetrics(t, scrape(t, "http://127.0.0.1:"+adminPort), map[string]float64{
		series("octo_mcp_requests_total", append(labels, "tool", "get_weather")...):                                                                 2,
		series("octo_mcp_requests_total", append(labels, "tool", "")...):                                                                            1,
		series("octo_mcp_errors_total", append(labels, "tool", "", "kind", "invalid params")...):                                                    1,
		series("octo_mcp_requests_total", "service", "mocks", "flow", "mock", "block", "flows.mock.process[0]", "method", "initialize", "tool", ""): 3,
	})
}

// weatherWorkspace copies samples/weather-mock to a new folder with its server on a free port,
// and returns the folder, the server's file, the file's text and the port.
func weatherWorkspace(t *testing.T) (dir, file, text, port string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "ws")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(repoRoot(), "samples", "weather-mock"))); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(dir, "servers", "Weather mock.yaml")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	port = strconv.Itoa(freePort(t))
	text = strings.Replace(string(src), "port: 3004", "port: "+port, 1)
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, file, text, port
}

// A workspace run with --admin: ready once its servers serve, each server's calls counted under
// its service's name.
func TestAWorkspaceRunWithAdminIsMeasured(t *testing.T) {
	dir, _, _, port := weatherWorkspace(t)
	adminPort := strconv.Itoa(freePort(t))
	admin := "http://127.0.0.1:" + adminPort
	p := startOcto(t, nil, "run", "--config", dir, "--admin", "127.0.0.1:"+adminPort)
	p.waitCount(t, "readiness state=ready", 1)
	if a := do(t, http.MethodGet, admin+"/readyz", "", ""); a.status != 200 || a.body != "{\"status\":\"ready\"}\n" {
		t.Fatalf("/readyz: %d %q", a.status, a.body)
	}
	if res := callTool(t, "http://127.0.0.1:"+port+"/mcp", "get_weather", map[string]any{"city": "Oslo"}); res.IsError {
		t.Fatalf("get_weather failed: %+v", res.Content)
	}
	expectMetrics(t, scrape(t, admin), map[string]float64{
		series("octo_mcp_requests_total", "service", "Weather mock", "flow", "mcp", "block", "flows.mcp.process[0]", "method", "tools/call", "tool", "get_weather"): 1,
	})
}

// Edits of a workspace's files while it runs are reloads like a config's: each one applied or
// refused is counted in octo_reloads_total, and /readyz tells the last one's outcome.
func TestWorkspaceEditsAreCountedAsReloads(t *testing.T) {
	dir, file, good, port := weatherWorkspace(t)
	adminPort := strconv.Itoa(freePort(t))
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	admin := "http://127.0.0.1:" + adminPort
	p := startOcto(t, nil, "run", "--config", dir, "--admin", "127.0.0.1:"+adminPort)
	p.waitCount(t, "readiness state=ready", 1)
	expectMetrics(t, scrape(t, admin), map[string]float64{`octo_reloads_total{result="ok"}`: 0, `octo_reloads_total{result="failed"}`: 0})

	// waitReloads waits for the counts to reach ok and failed.
	waitReloads := func(ok, failed float64) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			got := scrape(t, admin)
			if got[`octo_reloads_total{result="ok"}`] == ok && got[`octo_reloads_total{result="failed"}`] == failed {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("reloads ok %v, failed %v; want %v and %v\n%s", got[`octo_reloads_total{result="ok"}`],
					got[`octo_reloads_total{result="failed"}`], ok, failed, p.Log())
			}
		}
	}
	edited := strings.Replace(good, "The current weather in a city.", "The weather in a city, now.", 1)
	write(edited)
	waitReloads(1, 0)
	expectMetrics(t, scrape(t, admin), map[string]float64{`octo_config_last_reload_successful`: 1})

	write(strings.Replace(good, "kind: mcp", "kind: mcp\nunknownKey: 1", 1))
	waitReloads(1, 1)
	expectMetrics(t, scrape(t, admin), map[string]float64{`octo_config_last_reload_successful`: 0})
	if a := do(t, http.MethodGet, admin+"/readyz", "", ""); a.status != 200 || !strings.Contains(a.body, `"ok":false`) {
		t.Fatalf("/readyz after a refused edit: %d %s", a.status, a.body)
	}
	if res := callTool(t, "http://127.0.0.1:"+port+"/mcp", "get_weather", map[string]any{"city": "Oslo"}); res.IsError {
		t.Fatalf("the last good version does not serve: %+v", res.Content)
	}

	write(edited) // the refused edit undone: the version serving is the file's again
	waitReloads(2, 1)
	expectMetrics(t, scrape(t, admin), map[string]float64{`octo_config_last_reload_successful`: 1})
}

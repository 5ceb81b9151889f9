package octotest_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/octotest"
)

// Every case's service, port and client are gone once its run returns.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// write lays out a config folder: the config, and tests/cases.yaml.
func write(t *testing.T, config, cases string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"flow.yaml": config, "tests/cases.yaml": cases} {
		file := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// api starts a config whose flows are on one http connector.
const api = `
connectors:
  - { name: api, type: http, settings: { port: 0 } }
flows:
`

// reports fails t unless the report out holds each of wants.
func reports(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}

// run runs the cases of dir and returns the summary and the report.
func run(t *testing.T, dir string, env map[string]string) (octotest.Summary, string) {
	t.Helper()
	var out bytes.Buffer
	sum, err := octotest.Run(context.Background(), dir, octotest.Options{Out: &out, LookupEnv: func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return sum, out.String()
}

// backend is a real local HTTP server that counts the requests it gets: a case with stubs must
// never reach it, though the config names its URL.
func backend(t *testing.T) (string, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"temperature": 99}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &hits
}

const weatherFlow = `
env:
  - { name: API, default: "http://127.0.0.1:1" }
  - { name: API_KEY, default: k1 }
connectors:
  - { name: api, type: http, settings: { port: 0 } }
flows:
  - name: weather
    source: { connector: api, settings: { path: /weather, methods: [POST] } }
    process:
      - type: http-request
        settings:
          url: "${API}/v1/current"
          query: { city: "{{ body.city }}" }
          timeout: 300ms
          headers: { X-Api-Key: "${API_KEY}" }
          tls: { serverName: api.example.com } # its own pool: the stubs stand in for every one
      - type: set-payload
        settings: { value: '{"city": "Lisbon", "celsius": body.temperature}' }
`

// Stubs answer http-request in place of the network: the block's own code runs (query
// encoding, the answer into the body and vars.http), the backend named in the config gets
// nothing, a call no stub matches fails the case naming its URL, and a stub slower than the
// block's timeout fails the call as a slow backend would.
func TestStubsAnswerHTTPRequestInPlaceOfTheNetwork(t *testing.T) {
	url, hits := backend(t)
	dir := write(t, weatherFlow, `cases:
  - name: a stubbed backend answers
    request: { flow: weather, body: { city: Lisbon } }
    stubs:
      - method: GET
        url: "`+url+`/v1/current?city=Lisbon"
        body: { temperature: 21 }
        expect: { headers: { X-Api-Key: k1, Authorization: "" } }
    expect:
      body: { city: Lisbon, celsius: 21 }
      vars: { http: { status: 200, headers: { Content-Type: application/json } } }
  - name: a pattern matches any city
    request: { flow: weather, body: { city: Porto } }
    stubs:
      - { urlPattern: '^http://.*/v1/current\?city=[A-Za-z]+$', status: 200, body: { temperature: 25 } }
    expect:
      paths: { celsius: 25 }
  - name: a failing backend is a bad gateway
    request: { flow: weather, body: { city: Lisbon } }
    stubs:
      - { urlPattern: '.*', status: 500, text: boom }
    expect: { status: 502 }
  - name: a slow backend is a timeout
    request: { flow: weather, body: { city: Lisbon } }
    stubs:
      - { urlPattern: '.*', delay: 5s, body: {} }
    expect: { status: 504 }
  - name: a call that carries what its stub does not expect fails the case
    request: { flow: weather, body: { city: Lisbon } }
    stubs:
      - { urlPattern: '.*', body: { temperature: 21 }, expect: { headers: { X-Api-Key: k2 } } }
  - name: a call no stub matches fails the case
    request: { flow: weather, body: { city: Oslo } }
    stubs:
      - { url: "`+url+`/v1/current?city=Lisbon", body: { temperature: 21 } }
`)
	sum, out := run(t, dir, map[string]string{"API": url})
	if sum.Passed != 4 || sum.Failed != 2 {
		t.Fatalf("summary %+v\n%s", sum, out)
	}
	reports(t, out, "no stub with calls left matches the call GET "+url+"/v1/current?city=Oslo",
		"stubs[0] (GET "+url+`/v1/current?city=Lisbon): headers.X-Api-Key: expected "k2", got "k1"`)
	if hits.Load() != 0 {
		t.Errorf("the backend got %d requests", hits.Load())
	}
}

// A case's env wins over the process environment and the config's default.
func TestACasesEnvWins(t *testing.T) {
	dir := write(t, `
env:
  - { name: GREETING, default: Hello }
connectors:
  - { name: api, type: http, settings: { port: 0 } }
flows:
  - name: greet
    source: { connector: api, settings: { path: /greet } }
    process:
      - type: set-payload
        settings: { value: '{"text": env.GREETING + ", " + body.name}' }
`, `cases:
  - name: the process environment's value
    request: { flow: greet, body: { name: Ada } }
    expect: { body: { text: "Hi, Ada" } }
  - name: the case's value
    env: { GREETING: Bonjour }
    request: { flow: greet, body: { name: Ada } }
    expect: { text: '{"text":"Bonjour, Ada"}' }
`)
	if sum, out := run(t, dir, map[string]string{"GREETING": "Hi"}); sum.Passed != 2 {
		t.Fatalf("summary %+v\n%s", sum, out)
	}
}

// MCP cases reach an mcp-mock flow (stateful: the handshake's session is kept) and an
// mcp-router flow side by side; a wrong expectation on a result names the path that differs.
func TestMCPCasesTalkToEitherServer(t *testing.T) {
	dir := write(t, api+`  - name: router
    source: { connector: api, settings: { path: /router } }
    process:
      - type: mcp-router
        name: r
        tools:
          - name: add
            inputSchema: '{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}'
            outputSchema: '{"type":"object","properties":{"sum":{"type":"number"}}}'
            process:
              - type: set-payload
                settings: { value: '{"sum": body.a + body.b}' }
  - name: mock
    source: { connector: api, settings: { path: /mock } }
    process:
      - type: mcp-mock
        name: m
        settings:
          tools:
            - { name: hello, result: "Hello, {{args.name}}" }
`, `cases:
  - name: the router adds
    mcp: { flow: router, tool: add, arguments: { a: 2, b: 3 } }
    expect: { paths: { structuredContent.sum: 5 } }
  - name: the mock says hello
    mcp: { flow: mock, tool: hello, arguments: { name: Ada } }
    expect: { text: "Hello, Ada" }
  - name: a wrong sum
    mcp: { flow: router, tool: add, arguments: { a: 2, b: 2 } }
    expect: { bodyContains: { structuredContent: { sum: 5 } } }
  - name: an MCP case needs the flow named when two serve MCP
    mcp: { tool: add }
`)
	sum, out := run(t, dir, nil)
	if sum.Passed != 2 || sum.Failed != 2 {
		t.Fatalf("summary %+v\n%s", sum, out)
	}
	reports(t, out, "body.structuredContent.sum: expected 5, got 4",
		"mcp.flow: name the flow serving MCP; the config has 2 flows running mcp-router, mcp-mock or mcp-proxy: router, mock")
}

// A config that does not build is reported as octo validate reports it, with the test files'
// problems, before any case runs.
func TestABrokenConfigRunsNoCase(t *testing.T) {
	dir := write(t, api+`  - name: greet
    source: { connector: api, settings: { path: /greet } }
    process:
      - type: set-payload
        settings: { value: 'body.' }
`, `cases:
  - { name: never runs, request: { flow: greet } }
  - { name: a mistake, request: { flow: greet }, expect: { status: 99 } }
`)
	_, err := octotest.Run(context.Background(), dir, octotest.Options{})
	if err == nil || !strings.Contains(err.Error(), "flow.yaml:9:") || !strings.Contains(err.Error(), "cases.yaml:3:") {
		t.Fatalf("the config's and the test file's problems together: %v", err)
	}
}

// A case that outlives its timeout fails saying so, and the run goes on to the next case.
func TestACaseEndsAtItsTimeout(t *testing.T) {
	dir := write(t, api+`  - name: slow
    source: { connector: api, settings: { path: /slow } }
    process:
      - type: delay
        settings: { duration: 1m }
  - name: fast
    source: { connector: api, settings: { path: /fast } }
    process:
      - type: set-payload
        settings: { value: '{"ok": true}' }
`, `cases:
  - name: too slow
    timeout: 200ms
    request: { flow: slow }
  - name: fast enough
    request: { flow: fast }
    expect: { body: { ok: true } }
`)
	sum, out := run(t, dir, nil)
	if sum.Passed != 1 || sum.Failed != 1 || !strings.Contains(out, "the case took longer than its timeout, 200ms") {
		t.Fatalf("summary %+v\n%s", sum, out)
	}
}

// -v shows what a passing case got; a header written empty must be absent.
func TestVerboseShowsWhatPassingCasesGot(t *testing.T) {
	dir := write(t, api+`
  - name: greet
    source: { connector: api, settings: { path: /greet } }
    process:
      - type: set-payload
        settings: { value: '{"hello": body.name}' }
`, `cases:
  - name: says hello
    request: { flow: greet, body: { name: Ada } }
    expect: { headers: { Content-Type: application/json, WWW-Authenticate: "" } }
  - name: a header that is there is not absent
    request: { flow: greet, body: { name: Ada } }
    expect: { headers: { Content-Type: "" } }
`)
	var out bytes.Buffer
	sum, err := octotest.Run(context.Background(), dir, octotest.Options{Out: &out, Verbose: true})
	if err != nil || sum.Passed != 1 || sum.Failed != 1 {
		t.Fatalf("summary %+v, %v\n%s", sum, err, out.String())
	}
	reports(t, out.String(), `got: {"hello":"Ada"}`, `headers.Content-Type: expected "", got "application/json"`)
}

// expect.within fails a case whose answer took longer than it says, naming both; a slower bound
// passes the same flow.
func TestWithinBoundsTheAnswersTime(t *testing.T) {
	dir := write(t, api+`  - name: slow
    source: { connector: api, settings: { path: /slow } }
    process:
      - { type: delay, settings: { duration: 150ms } }
      - { type: set-payload, settings: { value: '"done"' } }
`, `cases:
  - name: too slow
    request: { flow: slow }
    expect: { body: done, within: 20ms }
  - name: in time
    request: { flow: slow }
    expect: { body: done, within: 10s }
`)
	sum, out := run(t, dir, nil)
	if sum.Passed != 1 || sum.Failed != 1 {
		t.Fatalf("summary %+v:\n%s", sum, out)
	}
	reports(t, out, "FAIL", "too slow", "within: expected the answer within 20ms, it took 1", "ok  ", "in time")
}

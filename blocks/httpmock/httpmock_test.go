package httpmock_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// flowYAML serves the settings on every path of a connector on a free port.
func flowYAML(settings string) string {
	var b strings.Builder
	b.WriteString(`service: { name: http-mock-test }
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1 } }
flows:
  - name: api
    source: { connector: api, settings: { prefix: / } }
    process:
      - type: http-mock
        name: Billing API
        settings:
`)
	for _, line := range strings.Split(strings.TrimRight(settings, "\n"), "\n") {
		b.WriteString("          " + line + "\n")
	}
	return b.String()
}

func build(t *testing.T, settings string) (*runtime.Service, *runtimetest.Buffer, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(flowYAML(settings)), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir, func(string) (string, bool) { return "", false })
	if err != nil {
		return nil, nil, err
	}
	log := &runtimetest.Buffer{}
	svc, err := runtime.NewService(cfg, runtime.Options{Logger: slog.New(slog.NewJSONHandler(log, nil))})
	return svc, log, err
}

// served is a running mock: its base URL and log.
type served struct {
	base string
	log  *runtimetest.Buffer
}

func serve(t *testing.T, settings string) *served {
	t.Helper()
	svc, log, err := build(t, settings)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := svc.Stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return &served{base: "http://" + svc.Connector("api").(interface{ Addr() string }).Addr(), log: log}
}

// do sends a request and returns the status, the headers and the body.
func (s *served) do(t *testing.T, method, path, contentType, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("X-Tenant", "blue")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func (s *served) waitForLog(t *testing.T, text string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(s.log.String(), text); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the log never showed %s:\n%s", text, s.log.String())
		}
	}
}

const billing = `
seed: 3
variables: { currency: EUR }
routes:
  - path: /invoices/{id}
    body: '{"id": "{{params.id}}", "total": 12.5, "currency": "{{currency}}", "tenant": "{{headers.x-tenant}}"}'
    answers:
      - when: params.id == "0"
        status: 404
        body: '{"error": "no invoice {{params.id}}"}'
  - method: post
    path: /invoices
    status: 201
    headers: { Location: '/invoices/{{body.number}}', Cache-Control: no-store }
    body: '{"number": {{body.number}}, "customer": "{{body.customer}}"}'
  - method: GET
    path: /search
    body: 'found {{query.q}} on page {{query.page}}'
  - method: DELETE
    path: /invoices/{id}
    status: 204
  - method: GET
    path: /jobs/{id}
    answerOrder: sequence
    answers:
      - body: '{"state": "queued"}'
      - body: '{"state": "running"}'
      - body: '{"state": "done"}'
  - method: GET
    path: /flaky
    body: ok
    failureRate: 1
  - method: GET
    path: /slow
    body: done
    delayMs: 50
`

// A route answers with its status, headers and body rendered from the request: path
// parameters, query, headers, a JSON or form body, variables; text that is not JSON goes as text.
func TestRoutesAnswerFromTheRequest(t *testing.T) {
	s := serve(t, billing)
	for _, tt := range []struct {
		name, method, path, contentType, body string
		status                                int
		want, header, headerValue, mediaType  string
	}{
		{"path parameters, variables and headers", "GET", "/invoices/7", "", "", 200,
			`{"id": "7", "total": 12.5, "currency": "EUR", "tenant": "blue"}`, "", "", "application/json"},
		{"an answer whose when holds", "GET", "/invoices/0", "", "", 404, `{"error": "no invoice 0"}`, "", "", "application/json"},
		{"a JSON body", "POST", "/invoices", "application/json", `{"number": 42, "customer": "ACME"}`, 201,
			`{"number": 42, "customer": "ACME"}`, "Location", "/invoices/42", "application/json"},
		{"a form body", "POST", "/invoices", "application/x-www-form-urlencoded", `number=43&customer=Bob`, 201,
			`{"number": "43", "customer": "Bob"}`, "Cache-Control", "no-store", "application/json"},
		{"the query, as text", "GET", "/search?q=rent&page=2", "", "", 200, "found rent on page 2", "", "", "text/plain; charset=utf-8"},
		{"no body", "DELETE", "/invoices/7", "", "", 204, "", "", "", ""},
		{"HEAD takes a GET route", "HEAD", "/invoices/7", "", "", 200, "", "", "", "application/json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, h, body := s.do(t, tt.method, tt.path, tt.contentType, tt.body)
			if status != tt.status || body != tt.want {
				t.Fatalf("got %d %q, want %d %q", status, body, tt.status, tt.want)
			}
			if tt.header != "" && h.Get(tt.header) != tt.headerValue {
				t.Fatalf("%s = %q, want %q", tt.header, h.Get(tt.header), tt.headerValue)
			}
			if h.Get("Content-Type") != tt.mediaType {
				t.Fatalf("Content-Type = %q, want %q", h.Get("Content-Type"), tt.mediaType)
			}
		})
	}
	s.waitForLog(t, `"msg":"GET /invoices/7","flow":"api","block":"http-mock","name":"Billing API","server":"Billing API","session":"","transport":"http","kind":"request","direction":"in","message":{"headers":{"accept-encoding":"gzip","user-agent":"Go-http-client/1.1","x-tenant":"blue"},"method":"GET","path":"/invoices/7"}}`)
	s.waitForLog(t, `"msg":"404 for GET /invoices/0: answer 1 (when params.id == \"0\")"`)
	s.waitForLog(t, `"msg":"200 for GET /invoices/7: the route's own answer"`)
}

// A path no route has is 404, and one only other methods take 405 with Allow; both say which
// routes there are.
func TestRequestsNoRouteTakesAreTold(t *testing.T) {
	s := serve(t, billing)
	status, _, body := s.do(t, "GET", "/customers/1", "", "")
	if status != 404 || !strings.Contains(body, `no route for GET /customers/1; routes: GET /invoices/{id}, POST /invoices, GET /search`) {
		t.Fatalf("404: %d %s", status, body)
	}
	status, h, body := s.do(t, "PUT", "/invoices/7", "", "")
	if status != 405 || h.Get("Allow") != "GET, DELETE" || !strings.Contains(body, "method PUT is not allowed on /invoices/7; it takes GET, DELETE") {
		t.Fatalf("405: %d %s %v", status, body, h)
	}
	if status, _, body := s.do(t, "GET", "/invoices/7/extra", "", ""); status != 404 {
		t.Fatalf("a longer path: %d %s", status, body)
	}
}

// Answers come in turn, a failure rate fails requests (500 saying so), and a delay holds the
// answer back.
func TestAnswersThatVary(t *testing.T) {
	s := serve(t, billing)
	var states []string
	for range 4 {
		_, _, body := s.do(t, "GET", "/jobs/1", "", "")
		states = append(states, body)
	}
	if got := strings.Join(states, ","); got != `{"state": "queued"},{"state": "running"},{"state": "done"},{"state": "done"}` {
		t.Fatalf("sequence: %s", got)
	}
	status, _, body := s.do(t, "GET", "/flaky", "", "")
	if status != 500 || body != `{"error": "Simulated failure of GET /flaky (failureRate 1)"}` {
		t.Fatalf("failure: %d %s", status, body)
	}
	start := time.Now()
	if _, _, body := s.do(t, "GET", "/slow", "", ""); body != "done" || time.Since(start) < 50*time.Millisecond {
		t.Fatalf("slow: %q after %v", body, time.Since(start))
	}
	s.waitForLog(t, `500 for GET /flaky: failure (failureRate 1)`)
}

// Settings that cannot serve are named at their line.
func TestRoutesThatCannotServe(t *testing.T) {
	for _, tt := range []struct{ name, routes, want string }{
		{"a path without /", `- { path: invoices }`, `path "invoices" must start with /`},
		{"half a parameter", `- { path: "/invoices/{id" }`, `path segment "{id": a parameter is a whole segment, {name}`},
		{"a parameter inside a segment", `- { path: "/invoices/x{id}" }`, `a parameter is a whole segment`},
		{"a parameter the path lacks", `- { path: "/invoices/{id}", body: "{{params.number}}" }`, `{{params.number}}: the path /invoices/{id} has no {number} (it has {id})`},
		{"an MCP tag", `- { path: /a, body: "{{args.x}}" }`, `{{args…}} are an MCP tool's arguments`},
		{"a bad when", `- { path: /a, answers: [ { when: "param.id == 1", body: x } ] }`, `when: unknown name param`},
		{"a when in a sequence", `- { path: /a, answerOrder: cycle, answers: [ { when: "call > 1", body: x } ] }`, `when picks an answer in answerOrder match`},
		{"a sequence of nothing", `- { path: /a, answerOrder: sequence }`, `answerOrder sequence takes the route's answers in turn, and it has none`},
		{"an unknown method", `- { path: /a, method: FETCH }`, `FETCH`},
		{"a header the connector owns", `- { path: /a, headers: { Content-Length: "3" } }`, `header Content-Length is the http connector's own`},
		{"a failure without a rate", `- { path: /a, failure: { status: 503 } }`, `failure answers a share of the requests: set failureRate (0 to 1)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := build(t, "routes:\n  "+tt.routes+"\n")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant one containing %q", err, tt.want)
			}
		})
	}
}

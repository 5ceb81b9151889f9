package record_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	_ "github.com/octo-run/octo/blocks/all"
	"github.com/octo-run/octo/blocks/mcp/mock/record"
	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	_ "github.com/octo-run/octo/connectors/all"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// serve serves the workspace's one server (named) on a free port and returns its URL.
func serve(t *testing.T, dir, name string) string {
	t.Helper()
	ready := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- workspace.Run(ctx, dir, workspace.Options{Servers: []string{name}, Port: freePort(t),
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Ready: func(_, url string) { ready <- url }})
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case url := <-ready:
		return url
	case err := <-done:
		t.Fatalf("%s did not serve: %v", name, err)
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not serve", name)
	}
	return ""
}

// recording records the server at upstream into ws as name until stop is called, which
// returns Record's error.
func recording(t *testing.T, ws, name, upstream string) (url string, stop func() error) {
	t.Helper()
	ready := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- record.Record(ctx, record.Options{Workspace: ws, Name: name, Upstream: upstream, Port: freePort(t),
			Ready: func(url, _ string) { ready <- url }})
	}()
	select {
	case url = <-ready:
	case err := <-done:
		t.Fatalf("record: %v", err)
	}
	return url, func() error { cancel(); return <-done }
}

func connect(t *testing.T, url string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "record-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// session is what one client saw of a server: its lists and each answer, as JSON.
func session(t *testing.T, cs *sdk.ClientSession) map[string]string {
	t.Helper()
	ctx := context.Background()
	seen := map[string]string{}
	show := func(what string, v any, err error) {
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		b, _ := json.Marshal(v)
		seen[what] = string(b)
	}
	tools, err := cs.ListTools(ctx, nil)
	show("tools/list", tools.Tools, err)
	res, err := cs.ListResources(ctx, nil)
	show("resources/list", res.Resources, err)
	prompts, err := cs.ListPrompts(ctx, nil)
	show("prompts/list", prompts.Prompts, err)
	for _, city := range []string{"Oslo", "Paris", "São Paulo \"{{x}}\""} {
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": city}})
		show("get_weather "+city, r, err)
	}
	read, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://readme"})
	show("read docs://readme", read, err)
	got, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "plan_trip", Arguments: map[string]string{"city": "Oslo"}})
	show("plan_trip", got, err)
	return seen
}

// A recording of samples/weather-mock, replayed by octo serve, answers call by call as the
// server did while it was recorded: the same lists, the same answers to the same arguments.
func TestARecordingReplaysWhatWasRecorded(t *testing.T) {
	upstream := t.TempDir()
	copyDir(t, filepath.Join("..", "..", "..", "..", "samples", "weather-mock"), upstream)
	ws := t.TempDir()
	url, stop := recording(t, ws, "Weather replay", serve(t, upstream, "Weather mock"))
	recorded := session(t, connect(t, url))
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(ws, "servers", "Weather replay.yaml")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kind: mcp", "serverName: Weather mock", `when: len(args) == 1 && args["city"] == "Oslo"`} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the recording lacks %q:\n%s", want, text)
		}
	}
	replayed := session(t, connect(t, serve(t, ws, "Weather replay")))
	for what, want := range recorded {
		if replayed[what] != want {
			t.Errorf("%s\nrecorded %s\nreplayed %s", what, want, replayed[what])
		}
	}
	// Arguments never recorded get the last recorded answer.
	cs := connect(t, serve(t, ws, "Weather replay"))
	r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Lima"}})
	if err != nil || r.Content[0].(*sdk.TextContent).Text != `{"city": "São Paulo \"{{x}}\"", "forecast": "sunny", "temperatureC": 21}` {
		t.Fatalf("an unrecorded call: %v %+v", err, r)
	}
}

// A resource read by a client that never listed resources (it knew the URI) is recorded all
// the same, so the replay answers the read as the server did.
func TestARecordingKeepsAReadOfAnUnlistedResource(t *testing.T) {
	upstream := t.TempDir()
	copyDir(t, filepath.Join("..", "..", "..", "..", "samples", "weather-mock"), upstream)
	ws := t.TempDir()
	url, stop := recording(t, ws, "Weather reads", serve(t, upstream, "Weather mock"))
	ctx := context.Background()
	read := func(cs *sdk.ClientSession) string {
		t.Helper()
		r, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://readme"})
		if err != nil {
			t.Fatalf("read docs://readme: %v", err)
		}
		b, _ := json.Marshal(r)
		return string(b)
	}
	recorded := read(connect(t, url))
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if replayed := read(connect(t, serve(t, ws, "Weather reads"))); replayed != recorded {
		t.Fatalf("the read\nrecorded %s\nreplayed %s", recorded, replayed)
	}
}

// What the server says is saved without the workspace's secrets: a secret variable's value
// becomes its tag, which the replay fills in again.
func TestARecordingKeepsNoSecret(t *testing.T) {
	upstream := t.TempDir()
	writeFile(t, filepath.Join(upstream, "servers", "Keys.yaml"), `name: Keys
kind: mcp
port: 0
mcp:
  tools:
    - name: get_weather
      result: 'token=tok-s3cret-42 for {{args.city}}'
`)
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "workspace.yaml"), "variables: { apiToken: tok-s3cret-42 }\nsecrets: [apiToken]\n")
	url, stop := recording(t, ws, "Keys", serve(t, upstream, "Keys"))
	cs := connect(t, url)
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Oslo"}}); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(filepath.Join(ws, "servers", "Keys.yaml"))
	if strings.Contains(string(text), "tok-s3cret-42") || !strings.Contains(string(text), "token={{apiToken}} for Oslo") {
		t.Fatalf("the recording:\n%s", text)
	}
}

// A recording is not written over a saved server without --force, and names its mistakes.
func TestRecordRefusesWhatItCannotDo(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "servers", "Taken.yaml"), "name: Taken\nport: 0\n")
	err := record.Record(context.Background(), record.Options{Workspace: ws, Name: "Taken", Upstream: "http://127.0.0.1:1/mcp"})
	if err == nil || !strings.Contains(err.Error(), "Taken.yaml exists: pass --force to record over it") {
		t.Fatalf("err = %v", err)
	}
	if err := record.Record(context.Background(), record.Options{Workspace: ws, Name: "a/b", Upstream: "http://x"}); err == nil {
		t.Fatal("a name with a slash was taken")
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

// An HTTP API recorded (--http) into an HTTP mock replays each request's answer: by method and
// path, and by the query and body that got it.
func TestAnHTTPAPIRecordingReplays(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "GET" && r.URL.Path == "/v1/invoices/7":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"id": "7", "total": 12.5}`)
		case r.Method == "GET" && r.URL.Path == "/v1/invoices":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"page": "`+r.URL.Query().Get("page")+`"}`)
		case r.Method == "POST" && r.URL.Path == "/v1/invoices":
			b, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(201)
			_, _ = w.Write(b)
		default:
			http.Error(w, "no such thing", 404)
		}
	}))
	defer api.Close()
	ws := t.TempDir()
	ready := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- record.Record(ctx, record.Options{Workspace: ws, Name: "Billing", Upstream: api.URL + "/v1", HTTP: true,
			Port: freePort(t), Ready: func(url, _ string) { ready <- url }})
	}()
	base := <-ready
	requests := []struct{ method, path, body string }{
		{"GET", "/invoices/7", ""},
		{"GET", "/invoices?page=1", ""},
		{"GET", "/invoices?page=2", ""},
		{"POST", "/invoices", `{"customer": "ACME"}`},
		{"POST", "/invoices", `{"customer": "Bob"}`},
		{"GET", "/missing", ""},
	}
	ask := func(base string) []string {
		var got []string
		for _, r := range requests {
			req, _ := http.NewRequest(r.method, strings.TrimSuffix(base, "/")+r.path, strings.NewReader(r.body))
			if r.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got = append(got, fmt.Sprintf("%d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), strings.TrimSpace(string(b))))
		}
		return got
	}
	recorded := ask(base)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	replayed := ask(serve(t, ws, "Billing"))
	for i := range recorded {
		if replayed[i] != recorded[i] {
			t.Errorf("%s %s\nrecorded %s\nreplayed %s", requests[i].method, requests[i].path, recorded[i], replayed[i])
		}
	}
}

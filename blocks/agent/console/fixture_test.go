package console_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/agent/app"
	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// weather is a saved server on any free port.
const weather = `name: Weather
kind: mcp
port: 0
mcp:
  tools:
    - name: get_weather
      description: The weather
      result: "sunny in {{args.city}}"
`

// fixture is octo app's embedded config (agent endpoint and console) over an app on a fresh
// data folder and workspace, served on real sockets.
type fixture struct {
	t       *testing.T
	app     *app.App
	pending *app.Pending
	dir, ws string
	url     string       // the console, ending in /
	login   string       // the login link console.json held at start
	cookie  string       // the session cookie's name=value, for raw requests
	client  *http.Client // logged in: its jar holds the session cookie
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	f := &fixture{t: t, dir: t.TempDir(), ws: filepath.Join(t.TempDir(), "mocks"), client: &http.Client{Timeout: 20 * time.Second, Jar: jar}}
	if err := os.MkdirAll(filepath.Join(f.ws, "servers"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.ws, "servers", "Weather.yaml"), []byte(weather), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := appdata.SaveSettings(f.dir, appdata.Settings{Workspace: f.ws, Agents: appdata.Agents{Approve: appdata.ApproveChanges}}); err != nil {
		t.Fatal(err)
	}
	log := &runtimetest.Buffer{}
	logger := slog.New(slog.NewTextHandler(log, nil))
	ctx := context.Background()
	f.pending = app.NewPending()
	a, err := app.Open(ctx, app.Options{DataDir: f.dir, Approver: f.pending, Pending: f.pending,
		ApprovalTimeout: 10 * time.Second, Logger: logger, Poll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	f.app = a
	shared := runtime.NewShared()
	_, release, err := runtime.Acquire(shared, app.SharedKey(f.dir), func() (*app.App, error) { return a, nil })
	if err != nil {
		t.Fatal(err)
	}
	svc, err := runtime.NewService(app.EmbeddedWithConsole(f.dir, app.Ports{}), runtime.Options{Shared: shared, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.client.CloseIdleConnections()
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_ = svc.Stop(sctx)
		_ = release(sctx)
		if t.Failed() {
			t.Logf("log:\n%s", log.String())
		}
	})
	addr := svc.Connector("console").(interface{ Addr() string }).Addr()
	f.url = "http://" + addr + "/"
	f.logIn()
	return f
}

// logIn opens the login link console.json holds, as a browser opening what octo app printed:
// the client's jar keeps the session cookie, and the page follows.
func (f *fixture) logIn() {
	f.t.Helper()
	c, err := appdata.ReadConsole(f.dir)
	if err != nil {
		f.t.Fatal(err)
	}
	if c.URL != f.url || !strings.HasPrefix(c.Login, f.url+"login?secret=") {
		f.t.Fatalf("console.json = %+v, the console serves %s", c, f.url)
	}
	f.login = c.Login
	resp, err := f.client.Get(c.Login)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Request.URL.String() != f.url {
		f.t.Fatalf("the login link led to %s, %d:\n%s", resp.Request.URL, resp.StatusCode, body)
	}
	u, _ := url.Parse(f.url)
	for _, ck := range f.client.Jar.Cookies(u) {
		f.cookie = ck.Name + "=" + ck.Value
	}
}

// do sends a request to the API with the token and returns the status and body.
func (f *fixture) do(method, path string, body any) (int, []byte) {
	f.t.Helper()
	var rd io.Reader
	ct := ""
	switch b := body.(type) {
	case nil:
	case string: // raw text (YAML)
		rd, ct = strings.NewReader(b), "text/plain"
	default:
		data, err := json.Marshal(b)
		if err != nil {
			f.t.Fatal(err)
		}
		rd, ct = bytes.NewReader(data), "application/json"
	}
	req, err := http.NewRequest(method, f.url+strings.TrimPrefix(path, "/"), rd)
	if err != nil {
		f.t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// must is do expecting status want, decoding the answer into out (when not nil).
func (f *fixture) must(want int, method, path string, body, out any) {
	f.t.Helper()
	got, data := f.do(method, path, body)
	if got != want {
		f.t.Fatalf("%s %s answered %d, want %d: %s", method, path, got, want, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			f.t.Fatalf("%s %s: %v in %s", method, path, err, data)
		}
	}
}

// state is /api/state's answer, the parts the tests read.
type state struct {
	Servers []struct {
		Name, File, URL, Problem string
		Running                  bool
	}
	Settings struct {
		Allow, WithoutApp bool
		Approve           string
	}
	CanApprove bool
	Pending    []struct {
		ID                   uint64
		Agent, Tool, Summary string
		AllowAgents          bool
	}
	History []struct {
		ID                          uint64
		Agent, Summary, Outcome, By string
	}
}

func (f *fixture) state() state {
	f.t.Helper()
	var s state
	f.must(200, "GET", "/api/state", nil, &s)
	return s
}

// sse reads one event stream's events by name.
type sse struct {
	resp   *http.Response
	events chan [2]string // name, data
}

func (f *fixture) openEvents(query string) *sse {
	f.t.Helper()
	req, err := http.NewRequest("GET", f.url+"api/events?"+strings.TrimPrefix(query, "&"), nil)
	if err != nil {
		f.t.Fatal(err)
	}
	resp, err := (&http.Client{Jar: f.client.Jar}).Do(req) // no timeout: the stream stays open
	if err != nil {
		f.t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		f.t.Fatalf("events answered %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &sse{resp: resp, events: make(chan [2]string, 100)}
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		var name, data string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				data += line[len("data: "):]
			case line == "":
				s.events <- [2]string{name, data}
				name, data = "", ""
			}
		}
	}()
	f.t.Cleanup(func() { resp.Body.Close() })
	return s
}

// waitFor returns the data of the first event called name, skipping others.
func (s *sse) waitFor(t *testing.T, name string) string {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatalf("the event stream ended before a %q event", name)
			}
			if ev[0] == name {
				return ev[1]
			}
		case <-deadline:
			t.Fatalf("no %q event within 15 s", name)
		}
	}
}

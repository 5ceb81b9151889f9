package runtime_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// serveConfig loads and starts the config at path with env, logging as JSON
// lines to logs, and returns the base URL of its connector "api".
func serveConfig(t *testing.T, path string, env map[string]string, logs io.Writer) string {
	t.Helper()
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	cfg, err := config.Load(path, lookup)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := runtime.NewService(cfg, runtime.Options{LookupEnv: lookup, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Stop(context.Background()) })
	return "http://" + svc.Connector("api").(interface{ Addr() string }).Addr()
}

// request sends one request and returns the answer's body.
func request(t *testing.T, method, url, body string) string {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every block sees the same settings whether they are written out or reused
// through anchors, aliases (`tools: *tools`, `- *hello`) and merge keys
// (`<<: *greet`, `<<: [a, *greet]`): both configs give the same answers.
func TestAnAliasedConfigAnswersLikeItsWrittenOutTwin(t *testing.T) {
	requests := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet-twice","arguments":{"name":"Ada"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"shout","arguments":{"name":"Ada"}}}`,
	}
	for _, file := range []string{"aliased.yaml", "written.yaml"} {
		t.Run(strings.TrimSuffix(file, ".yaml")+" answers as the golden file says", func(t *testing.T) {
			base := serveConfig(t, "testdata/aliases/"+file, nil, io.Discard)
			var got strings.Builder
			for _, path := range []string{"/first", "/second"} {
				for _, r := range requests {
					got.WriteString(path + " " + r + "\n" + request(t, http.MethodPost, base+path, r) + "\n")
				}
			}
			runtimetest.Golden(t, "testdata/aliases/answers.golden", got.String(), *update)
		})
	}
}

package http_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

const prefixed = `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1 } }
flows:
  - name: under
    source: { connector: api, settings: { prefix: /api } }
    process: []
  - name: exact
    source: { connector: api, settings: { path: /api/exact } }
    process: [ { type: test-accept } ]
  - name: rest
    source: { connector: api, settings: { prefix: / } }
    process: [ { type: test-fail } ]
`

// A prefix takes every path under it, by whole segments; a path of its own wins over any
// prefix, and the longest prefix over a shorter one.
func TestAPrefixTakesThePathsUnderIt(t *testing.T) {
	base, _ := start(t, prefixed)
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/api/invoices/7", 200}, // echoed by under
		{"/api", 200},
		{"/api/exact", 202},
		{"/apix", 500}, // not under /api: the rest
		{"/", 500},
		{"/other/path", 500},
	} {
		resp, err := http.Post(base+c.path, "application/json", strings.NewReader(`{"a":1}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Fatalf("%s: %d %s, want %d", c.path, resp.StatusCode, b, c.status)
		}
	}
}

// Two flows cannot share a prefix, nor mix a prefix with paths.
func TestAPrefixServedTwiceIsRefused(t *testing.T) {
	for _, c := range []struct{ flows, want string }{
		{`
  - { name: a, source: { connector: api, settings: { prefix: /api } }, process: [] }
  - { name: b, source: { connector: api, settings: { prefix: /api/ } }, process: [] }`, `prefix "/api/" is already served by flow "a" on connector "api"`},
		{`
  - { name: a, source: { connector: api, settings: { prefix: /api, path: /x } }, process: [] }`, `use prefix or path(s), not both`},
	} {
		dir := t.TempDir()
		text := "connectors:\n  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1 } }\nflows:" + c.flows + "\n"
		if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(dir, func(string) (string, bool) { return "", false })
		if err == nil {
			_, err = runtime.NewService(cfg, runtime.Options{})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("err = %v, want %q", err, c.want)
		}
	}
}

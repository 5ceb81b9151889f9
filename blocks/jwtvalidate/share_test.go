package jwtvalidate

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	octohttp "github.com/octo-run/octo/connectors/http"
	"github.com/octo-run/octo/runtime"
	octoconfig "github.com/octo-run/octo/runtime/config"
)

// twoGuards puts two jwt-validate blocks on one JWKS URL.
var twoGuards = strings.Replace(protected, `  - name: mcp
    source: { connector: api, settings: { path: /mcp } }`, `  - name: other
    source: { connector: api, settings: { path: /other } }
    process:
      - type: jwt-validate
        settings: { jwksUrl: "${JWKS_URL}", audience: https://mcp.example.net/mcp, refreshInterval: 1h, minRefreshInterval: 1ms }
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }`, 1)

// buildShared builds yaml as a build of unit "u" on the shared table.
func buildShared(t *testing.T, shared *runtime.Shared, yaml, jwksURL string) *runtime.Service {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	lookup := func(name string) (string, bool) { return jwksURL, name == "JWKS_URL" }
	cfg, err := octoconfig.Load(dir, lookup)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := runtime.NewService(cfg, runtime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		LookupEnv: lookup, Shared: shared, Unit: "u"})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Stop(context.Background()) })
	return svc
}

func TestBlocksOnOneJWKSURLFetchItOnceAcrossBuilds(t *testing.T) {
	ec := newECKey(t, "ec-a")
	srv := newJWKSServer(t, ec)
	shared := runtime.NewShared()
	first := buildShared(t, shared, twoGuards, srv.URL)
	t.Run("two blocks of one build fetch the keys once", func(t *testing.T) {
		if n := srv.hits.Load(); n != 1 {
			t.Fatalf("%d fetches", n)
		}
	})
	second := buildShared(t, shared, twoGuards, srv.URL)
	t.Run("the next build of the unit finds them fetched", func(t *testing.T) {
		if n := srv.hits.Load(); n != 1 {
			t.Fatalf("%d fetches", n)
		}
	})
	if err := first.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Run("they outlive the build that fetched them", func(t *testing.T) {
		url := "http://" + second.Connector("api").(*octohttp.Connector).Addr() + "/mcp"
		req, _ := http.NewRequest("POST", url, strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer "+sign(t, ec, claims(nil), nil))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
	if err := second.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Run("the last build to stop lets them go", func(t *testing.T) {
		if keys := shared.Keys(); len(keys) != 0 {
			t.Fatalf("still held: %q", keys)
		}
	})
}

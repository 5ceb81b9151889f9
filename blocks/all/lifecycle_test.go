package all_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/connectors/nats/natstest"
	stdioconn "github.com/octo-run/octo/connectors/stdio"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// lifecycleConfig is a config serving one block, its type's Example, in a flow on an http
// connector that binds a port of its own, or for a block served only over stdio on a stdio
// connector (started on a pipe of the test's).
func lifecycleConfig(example, connectors string, stdio bool) string {
	var b strings.Builder
	if connectors != "" {
		connectors = ", " + connectors
	}
	if stdio {
		b.WriteString("connectors: [ { name: io, type: stdio }" + connectors + " ]\nflows:\n  - name: f\n    source: { connector: io }\n    process:\n")
	} else {
		b.WriteString("connectors: [ { name: api, type: http, settings: { port: 0 } }" + connectors + " ]\nflows:\n  - name: f\n")
		b.WriteString("    source: { connector: api, settings: { path: /f } }\n    process:\n")
	}
	for i, line := range strings.Split(strings.TrimRight(example, "\n"), "\n") {
		prefix := "        "
		if i == 0 {
			prefix = "      - "
		}
		b.WriteString(prefix + line + "\n")
	}
	return b.String()
}

// The lifecycle contract every standard block keeps, built from its documented example in a
// flow: it builds; a build that is never started stops at once and holds nothing (a reload
// that is taken in place drops its build so); it starts and stops; and once stopped it leaves
// no goroutine behind.
func TestEveryBlockKeepsTheLifecycleContract(t *testing.T) {
	t.Setenv(appdata.EnvDataDir, t.TempDir()) // the agent blocks' data folder
	local := map[string]string{               // what an example reaches that a test must not: served here
		"https://login.example.net/.well-known/jwks.json": serveJWKS(t),
		"nats://127.0.0.1:4222":                           natstest.Start(t, natstest.Options{}).ClientURL(),
	}
	tested := 0
	for _, spec := range runtime.BlockTypes() {
		if strings.HasPrefix(spec.Type, "test-") || spec.Example == "" {
			continue
		}
		stdio := len(spec.Transports) > 0 && !slices.Contains(spec.Transports, "http")
		example, connectors := spec.Example, spec.ExampleConnectors
		for from, to := range local {
			example = strings.ReplaceAll(example, from, to)
			connectors = strings.ReplaceAll(connectors, from, to)
		}
		t.Run(spec.Type, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			build := func() *runtime.Service {
				dir := t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(lifecycleConfig(example, connectors, stdio)), 0o600); err != nil {
					t.Fatal(err)
				}
				cfg, err := config.Load(dir, func(string) (string, bool) { return "", false })
				if err != nil {
					t.Fatalf("the example does not load:\n%s\n%v", spec.Example, err)
				}
				svc, err := runtime.NewService(cfg, runtime.Options{Logger: slog.New(slog.DiscardHandler)})
				if err != nil {
					t.Fatalf("the example does not build:\n%s\n%v", spec.Example, err)
				}
				return svc
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := build().Stop(ctx); err != nil {
				t.Fatalf("stop without start: %v", err)
			}
			svc := build()
			in, feed := io.Pipe()
			if err := svc.Start(stdioconn.WithStreams(ctx, in, io.Discard)); err != nil {
				t.Fatalf("start: %v", err)
			}
			feed.Close() // a stdio session's client leaves
			if err := svc.Stop(ctx); err != nil {
				t.Fatalf("stop: %v", err)
			}
			if err := svc.Stop(ctx); err != nil {
				t.Fatalf("a second stop: %v", err)
			}
		})
		tested++
	}
	if tested < 15 {
		t.Fatalf("tested %d block types; the registry lost the standard set", tested)
	}
}

// serveJWKS serves a key set of one RSA public key on loopback, for jwt-validate's start.
func serveJWKS(t *testing.T) string {
	t.Helper()
	const set = `{"keys":[{"kty":"RSA","kid":"k1","alg":"RS256","use":"sig","e":"AQAB",` +
		`"n":"sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw"}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, set)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/jwks.json"
}

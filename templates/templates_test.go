package templates_test

import (
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/octo-run/octo/blocks/all"
	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/templates"
)

// TestEveryStarterBuilds writes each starter out as `octo new` does and
// builds it, so no starter ships broken.
func TestEveryStarterBuilds(t *testing.T) {
	checks := map[string]func(t *testing.T){
		"mcp-mock": func(t *testing.T) {
			for _, name := range []string{"Weather mock", `Odd: "quoted" # name`, "Ünïcødé"} {
				dir := t.TempDir()
				text, err := templates.RenderMockServer(templates.MockServer{Name: name, Port: 3004})
				if err != nil {
					t.Fatal(err)
				}
				files, _ := templates.Files("mcp-mock")
				settings, err := fs.ReadFile(files, "workspace.yaml")
				if err != nil {
					t.Fatal(err)
				}
				mustWrite(t, filepath.Join(dir, "workspace.yaml"), settings)
				mustWrite(t, filepath.Join(dir, "servers", "x.yaml"), text)
				names, ds := workspace.Validate(dir, "")
				if len(ds) > 0 || len(names) != 1 || names[0] != name {
					t.Fatalf("server %q: names %v, problems:\n%v\n%s", name, names, ds, text)
				}
				for _, env := range []string{"local", "staging"} {
					if _, ds := workspace.Validate(dir, env); len(ds) > 0 {
						t.Fatalf("environment %s: %v", env, ds)
					}
				}
			}
		},
		"http-mock": func(t *testing.T) {
			for _, name := range []string{"Billing API", `Odd: "quoted" # name`} {
				dir := t.TempDir()
				text, err := templates.RenderHTTPMockServer(templates.MockServer{Name: name, Port: 3010})
				if err != nil {
					t.Fatal(err)
				}
				mustWrite(t, filepath.Join(dir, "servers", "x.yaml"), text)
				names, ds := workspace.Validate(dir, "")
				if len(ds) > 0 || len(names) != 1 || names[0] != name {
					t.Fatalf("server %q: names %v, problems:\n%v\n%s", name, names, ds, text)
				}
			}
		},
		"mcp-router": func(t *testing.T) { buildsAsWritten(t, "mcp-router") },
		"mcp-api":    func(t *testing.T) { buildsAsWritten(t, "mcp-api") },
	}
	for _, s := range templates.Starters {
		t.Run(s.Name+" builds as written out", func(t *testing.T) {
			check, ok := checks[s.Name]
			if !ok {
				t.Fatalf("starter %s has no check", s.Name)
			}
			check(t)
		})
	}
	if _, err := templates.Files("nope"); err == nil {
		t.Error("an unknown starter has files")
	}
}

// buildsAsWritten copies a flow config starter out and builds it.
func buildsAsWritten(t *testing.T, starter string) {
	dir := t.TempDir()
	files, err := templates.Files(starter)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, files); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runtime.NewService(cfg, runtime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

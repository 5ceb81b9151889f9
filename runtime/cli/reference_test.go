package cli_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime/reference"
	"github.com/octo-run/octo/runtime/runtimetest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// `octo blocks NAME` prints one block's reference: summary, doc, settings table, example.
func TestBlocksPrintsOneBlocksReference(t *testing.T) {
	code, out, errs := runCLI("blocks", "set-payload")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	runtimetest.Golden(t, "testdata/blocks-set-payload.golden", out, *update)
	t.Run("a connector's has its source settings too", func(t *testing.T) {
		code, out, _ := runCLI("blocks", "http")
		for _, want := range []string{"connector http:", "port", "65535", "Source settings.", "methods", "GET, HEAD, POST"} {
			if code != 0 || !strings.Contains(out, want) {
				t.Errorf("exit %d, no %q in\n%s", code, want, out)
			}
		}
	})
	t.Run("an unknown name is a usage error with a suggestion", func(t *testing.T) {
		code, _, errs := runCLI("blocks", "set-paylod")
		if code != 2 || !strings.Contains(errs, `unknown block or connector type "set-paylod" (did you mean "set-payload"?)`) {
			t.Fatalf("exit %d: %s", code, errs)
		}
	})
}

// `octo schema` prints the committed schemas, the same bytes every time.
func TestSchemaPrintsTheCommittedSchemas(t *testing.T) {
	for args, file := range map[string]string{"": "octo.schema.json", "config": "octo.schema.json", "server": "octo-server.schema.json", "workspace": "octo-workspace.schema.json"} {
		t.Run("octo schema "+args, func(t *testing.T) {
			code, first, errs := runCLI(strings.Fields("schema " + args)...)
			_, second, _ := runCLI(strings.Fields("schema " + args)...)
			want, err := os.ReadFile(filepath.Join("..", "..", "docs", "reference", file))
			if code != 0 || err != nil || first != string(want) || second != first {
				t.Fatalf("exit %d %v: the output differs from docs/reference/%s (run make docs) or from a second run\n%s", code, err, file, errs)
			}
		})
	}
	code, _, errs := runCLI("schema", "servers")
	if code != 2 || !strings.Contains(errs, `unknown schema "servers" (did you mean "server"?)`) {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

// `octo new` writes the schemas beside what it makes, and the modelines name them, so an
// editor completes and checks the files offline with this octo's blocks.
func TestNewWritesTheSchemasItsModelinesName(t *testing.T) {
	resolves := func(t *testing.T, file, schema string) {
		t.Helper()
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(text), "\n")
		path, ok := strings.CutPrefix(first, "# yaml-language-server: $schema=")
		if !ok {
			t.Fatalf("%s starts with %q, not a modeline", file, first)
		}
		got, err := os.ReadFile(filepath.Join(filepath.Dir(file), path))
		want, _ := reference.Schema(schema)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s names %s, which is not the %s schema (%v)", file, path, schema, err)
		}
	}
	t.Run("mcp-router", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "router")
		if code, _, errs := runCLI("new", "mcp-router", dir); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		resolves(t, filepath.Join(dir, "mcp-router.yaml"), "config")
		if code, out, errs := runCLI("validate", "--config", dir); code != 0 {
			t.Fatalf("validate: exit %d\n%s%s", code, out, errs)
		}
	})
	t.Run("mcp-mock", func(t *testing.T) {
		ws := filepath.Join(t.TempDir(), "mocks")
		if code, _, errs := runCLI("new", "mcp-mock", ws, "Weather mock"); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		resolves(t, filepath.Join(ws, "servers", "Weather mock.yaml"), "server")
		resolves(t, filepath.Join(ws, "workspace.yaml"), "workspace")
		if code, out, errs := runCLI("validate", "--config", ws); code != 0 || !strings.Contains(out, "Weather mock: ok") {
			t.Fatalf("validate: exit %d\n%s%s", code, out, errs)
		}
	})
}

package runtime_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The engine knows no block or connector: they register themselves, and main.go imports them.
// A package under runtime/ importing one would tie the engine to a protocol (and its commands
// to a block, as runtime/cli once was to the mock workspace and jwt-validate).
func TestTheEngineImportsNoBlockOrConnector(t *testing.T) {
	const module = "github.com/octo-run/octo/"
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module+"blocks/") || strings.HasPrefix(p, module+"connectors/") {
				t.Errorf("runtime/%s imports %s: register it from its own package instead (runtime.RegisterBlock, cli.RegisterCommand)", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 40 {
		t.Fatalf("read %d files; the walk missed the engine", files)
	}
}

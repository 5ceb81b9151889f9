package all_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A connector knows no block: what a connector and a block both use (the agent link's data
// folder and handshake) lives outside blocks/, in a library both import.
func TestConnectorsImportNoBlock(t *testing.T) {
	const module = "github.com/octo-run/octo/"
	files := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
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
			if strings.HasPrefix(p, module+"blocks/") {
				t.Errorf("connectors/%s imports %s: move what both need out of blocks/ (as agentlink/ is)", strings.TrimPrefix(filepath.ToSlash(path), "../"), p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("read %d files; the walk missed the connectors", files)
	}
}

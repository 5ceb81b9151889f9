package reference_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime/reference"
)

var update = flag.Bool("update", false, "rewrite docs/reference (make docs)")

// docs is the committed reference, from this package's folder.
var docs = filepath.Join(repo, "docs", "reference")

// docs/reference is made from the settings types: a change to a block's settings that is not
// regenerated fails here. `make docs` (this test with -update) rewrites it.
func TestTheCommittedReferenceIsCurrent(t *testing.T) {
	files, err := reference.Files()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		writeReference(t, files)
	}
	entries, err := os.ReadDir(docs)
	if err != nil {
		t.Fatalf("%v: run make docs", err)
	}
	var committed []string
	for _, e := range entries {
		committed = append(committed, e.Name())
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(docs, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("docs/reference/%s is stale or missing: run make docs", name)
		}
	}
	for _, name := range committed {
		if _, ok := files[name]; !ok {
			t.Errorf("docs/reference/%s is not generated any more: run make docs", name)
		}
	}
	if len(files) < 12 || !slices.Contains(committed, "octo.schema.json") {
		t.Errorf("only %d reference files", len(files))
	}
}

// writeReference replaces docs/reference with files.
func writeReference(t *testing.T, files map[string][]byte) {
	t.Helper()
	if err := os.RemoveAll(docs); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(docs, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Every page the index names exists, and every section of a config file has its table.
func TestTheIndexLinksEveryPage(t *testing.T) {
	files, err := reference.Files()
	if err != nil {
		t.Fatal(err)
	}
	index := string(files["README.md"])
	for name := range files {
		if name != "README.md" && !strings.Contains(index, "("+name+")") {
			t.Errorf("the index does not link %s", name)
		}
	}
	for _, section := range []string{"## `service`", "## `env[]`", "## `resources`", "## `connectors[]`", "## `flows[]`", "## `flows[].process[]`"} {
		if !strings.Contains(string(files["config.md"]), section) {
			t.Errorf("config.md has no %s", section)
		}
	}
}

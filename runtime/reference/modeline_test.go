package reference

import (
	"os"
	"path/filepath"
	"testing"
)

// A schema is written whole, through a file renamed over the old one, so a link planted at its
// name is replaced and what it points at is left alone.
func TestSchemasAreWrittenWholeAndNeverThroughALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "not-a-schema")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	name := ConfigSchema
	if err := os.Symlink(target, filepath.Join(dir, SchemaFile(name))); err != nil {
		t.Fatal(err)
	}
	if err := WriteSchemas(dir, name); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Fatalf("the link's target was written: %q", got)
	}
	fi, err := os.Lstat(filepath.Join(dir, SchemaFile(name)))
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("the schema is %v, %v", fi, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
}

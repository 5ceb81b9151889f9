package reference

import (
	"bytes"
	"os"
	"path/filepath"
)

// Modeline is the first line that names a YAML file's schema for yaml-language-server (the VS
// Code YAML extension and other editors): a path relative to the file, or a URL.
func Modeline(schema string) string { return modelinePrefix + schema }

const modelinePrefix = "# yaml-language-server: $schema="

// WithModeline returns text with its first line naming schema: a modeline it starts with is
// replaced, else one is added.
func WithModeline(text []byte, schema string) []byte {
	line := []byte(Modeline(schema) + "\n")
	if bytes.HasPrefix(text, []byte(modelinePrefix)) {
		if _, rest, ok := bytes.Cut(text, []byte("\n")); ok {
			return append(line, rest...)
		}
		return line
	}
	return append(line, text...)
}

// WriteSchemas writes the schemas named into dir, so that the modelines of the files `octo new`
// makes there work offline and match this octo's blocks (`octo schema` writes them anew).
func WriteSchemas(dir string, names ...string) error {
	for _, name := range names {
		text, err := Schema(name)
		if err != nil {
			return err
		}
		if err := writeAtomic(filepath.Join(dir, SchemaFile(name)), text); err != nil {
			return err
		}
	}
	return nil
}

// PointModeline makes file's modeline name schema, a path relative to the file.
func PointModeline(file, schema string) error {
	text, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return writeAtomic(file, WithModeline(text, schema))
}

// writeAtomic writes data as path through a temporary file beside it, renamed over it: a
// reader (an editor, a workspace's watcher) sees the old file or the new one, never half of
// one, and a link planted at path is replaced rather than written through.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

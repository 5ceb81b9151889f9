package cli

import (
	"context"
	"os"
	"path/filepath"

	"github.com/octo-run/octo/runtime/reference"
)

// cmdSchema prints a JSON Schema: of a flow config, or of a config adapter's file by name.
func cmdSchema(_ context.Context, env *Env, args []string) error {
	fs := newFlags("schema", env)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	name := reference.ConfigSchema
	switch len(pos) {
	case 0:
	case 1:
		name = pos[0]
	default:
		return &usageError{"schema takes at most one name"}
	}
	text, err := reference.Schema(name)
	if err != nil {
		return &usageError{err.Error()}
	}
	_, err = env.Stdout.Write(text)
	return err
}

// writeSchemas writes the schemas named into dir, so that the modelines of the files `octo new`
// makes there work offline and match this octo's blocks (`octo schema` writes them anew).
func writeSchemas(dir string, names ...string) error {
	for _, name := range names {
		text, err := reference.Schema(name)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, reference.SchemaFile(name)), text, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// pointModeline makes file's modeline name schema, a path relative to the file.
func pointModeline(file, schema string) error {
	text, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return os.WriteFile(file, reference.WithModeline(text, schema), 0o644)
}

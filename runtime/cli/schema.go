package cli

import (
	"context"

	"github.com/octo-run/octo/runtime/reference"
)

// cmdSchema prints a JSON Schema: of a flow config, or of a config adapter's file by name.
func cmdSchema(_ context.Context, env *Env, args []string) error {
	fs := NewFlags("schema", env)
	pos, err := ParseInterleaved(fs, args)
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

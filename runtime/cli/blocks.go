package cli

import (
	"context"
	"fmt"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/reference"
)

// cmdBlocks lists the block and connector types, or prints the reference of the one named.
func cmdBlocks(_ context.Context, env *Env, args []string) error {
	fs := NewFlags("blocks", env)
	pos, err := ParseInterleaved(fs, args)
	if err != nil {
		return err
	}
	switch len(pos) {
	case 0:
	case 1:
		if err := reference.WriteText(env.Stdout, pos[0]); err != nil {
			return &usageError{err.Error()}
		}
		return nil
	default:
		return &usageError{"blocks takes at most one name"}
	}
	fmt.Fprintln(env.Stdout, "Blocks:")
	for _, b := range runtime.BlockTypes() {
		fmt.Fprintf(env.Stdout, "  %-16s %s\n", b.Type, b.Summary)
	}
	fmt.Fprintln(env.Stdout, "\nConnectors:")
	for _, c := range runtime.ConnectorTypes() {
		fmt.Fprintf(env.Stdout, "  %-16s %s\n", c.Type, c.Summary)
	}
	fmt.Fprintln(env.Stdout, "\n'octo blocks NAME' prints one's settings and an example.")
	return nil
}

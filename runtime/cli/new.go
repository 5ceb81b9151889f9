package cli

import (
	"context"
	"fmt"
	"strings"
)

// cmdNew writes a starter, by the starter's own Write: `octo new` alone lists them.
func cmdNew(_ context.Context, env *Env, args []string) error {
	fs := NewFlags("new", env)
	port := fs.Int("port", 0, "the port the starter serves on (default: its usual one, or the next port free on this machine)")
	pos, err := ParseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *port < 0 || *port > 65535 {
		return Usagef("--port %d is not a port: 1 to 65535", *port)
	}
	ss := starters()
	if len(pos) == 0 {
		fmt.Fprintln(env.Stdout, "Starters:")
		for _, s := range ss {
			fmt.Fprintf(env.Stdout, "  %-12s %s\n               %s\n", s.Name, s.Summary, s.Usage)
		}
		return nil
	}
	names := make([]string, len(ss))
	for i, s := range ss {
		if s.Name == pos[0] {
			return s.Write(env, pos[1:], NewOptions{Port: *port})
		}
		names[i] = s.Name
	}
	return Usagef("unknown starter %q; starters: %s", pos[0], strings.Join(names, ", "))
}

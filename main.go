// Command octo serves declarative flows; see README.md.
package main

import (
	"context"
	"os"

	_ "github.com/octo-run/octo/blocks/all"     // the standard blocks, with their commands
	_ "github.com/octo-run/octo/connectors/all" // the standard connectors
	_ "github.com/octo-run/octo/ops"            // octo run --admin: health, readiness, metrics
	"github.com/octo-run/octo/runtime/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), &cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, os.Args[1:]))
}

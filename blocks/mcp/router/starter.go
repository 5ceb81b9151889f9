package router

// `octo new mcp-router`: the router's starter, which is its sample, registered with the
// command line by this package.

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/octo-run/octo/runtime/cli"
	"github.com/octo-run/octo/runtime/reference"
	"github.com/octo-run/octo/templates"
)

func init() {
	s := templates.Lookup("mcp-router")
	cli.RegisterStarter(cli.Starter{Name: s.Name, Summary: s.Summary, Usage: s.Usage, Args: "DIR", Makes: "a flow config",
		Write: func(env *cli.Env, args []string) error {
			if len(args) != 1 {
				return cli.Usagef("mcp-router takes the folder to write: octo new mcp-router my-router")
			}
			return newRouter(env, args[0])
		}})
}

// testSchema names the schema of octo test's files (registered by package octotest).
const testSchema = "test"

// newRouter writes the mcp-router starter into dir, which must not hold a
// config yet.
func newRouter(env *cli.Env, dir string) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty; pick a new folder", dir)
	}
	files, err := templates.Files("mcp-router")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.CopyFS(dir, files); err != nil {
		return err
	}
	// The starter is the sample, whose modeline points into the repository: point it beside.
	if err := reference.WriteSchemas(dir, reference.ConfigSchema, testSchema); err != nil {
		return err
	}
	if err := reference.PointModeline(filepath.Join(dir, "mcp-router.yaml"), reference.SchemaFile(reference.ConfigSchema)); err != nil {
		return err
	}
	// Its octo test cases, in tests/, take the test file schema written beside the config.
	if err := reference.PointModeline(filepath.Join(dir, "tests", "tools.yaml"), "../"+reference.SchemaFile(testSchema)); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Wrote an MCP router flow in %s.\n\nRun it:\n  octo run --config %s\n\nTest it (the cases in tests/):\n  octo test --config %s\n\nMCP address:\n  http://localhost:8080/mcp (set HTTP_PORT to change the port)\n", dir, cli.ShellQuote(dir), cli.ShellQuote(dir))
	return nil
}

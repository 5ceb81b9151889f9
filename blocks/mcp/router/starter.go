package router

// `octo new mcp-router` and `octo new mcp-api`: the router's starters, registered with the
// command line by this package. mcp-router is the weather sample; mcp-api is a server over an
// HTTP API, the shape most tool servers have.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/octo-run/octo/runtime/cli"
	"github.com/octo-run/octo/runtime/ports"
	"github.com/octo-run/octo/runtime/printable"
	"github.com/octo-run/octo/runtime/reference"
	"github.com/octo-run/octo/templates"
)

// starters are the router's starters: what `octo new` says each makes, and the serverName
// its config declares, which the printed client command registers it by.
var starters = []struct{ name, makes, server string }{
	{"mcp-router", "a flow config", "weather-tools"},
	{"mcp-api", "MCP tools over your HTTP API", "api-tools"},
}

func init() {
	for _, st := range starters {
		s := templates.Lookup(st.name)
		cli.RegisterStarter(cli.Starter{Name: s.Name, Summary: s.Summary, Usage: s.Usage, Args: "DIR", Makes: st.makes,
			Write: func(env *cli.Env, args []string, opts cli.NewOptions) error {
				if len(args) != 1 {
					return cli.Usagef("%s takes the folder to write: octo new %s my-server", st.name, st.name)
				}
				return newRouter(env, st.name, st.server, args[0], opts.Port)
			}})
	}
}

// testSchema names the schema of octo test's files (registered by package octotest).
const testSchema = "test"

// defaultPort is the HTTP_PORT default both starters are written with.
const defaultPort = 8080

// newRouter writes a router starter into dir, which must not hold a config yet, serving on
// port (0: 8080, or the next port free on this machine).
func newRouter(env *cli.Env, starter, server, dir string, port int) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty; pick a new folder", dir)
	}
	files, err := templates.Files(starter)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.CopyFS(dir, files); err != nil {
		return err
	}
	config := filepath.Join(dir, starter+".yaml")
	if port == 0 {
		port = ports.Free(defaultPort, nil)
	}
	if err := setPort(config, port); err != nil {
		return err
	}
	// The starter's modelines point into the repository: point them beside.
	if err := reference.WriteSchemas(dir, reference.ConfigSchema, testSchema); err != nil {
		return err
	}
	if err := reference.PointModeline(config, reference.SchemaFile(reference.ConfigSchema)); err != nil {
		return err
	}
	// Its octo test cases, in tests/, take the test file schema written beside the config.
	if err := reference.PointModeline(filepath.Join(dir, "tests", "tools.yaml"), "../"+reference.SchemaFile(testSchema)); err != nil {
		return err
	}
	q := printable.ShellQuote(dir)
	url := "http://localhost:" + strconv.Itoa(port) + "/mcp"
	fmt.Fprintf(env.Stdout, "Wrote an MCP router flow in %s.\n\nRun it:\n  octo run %s\n\nTest it (the cases in tests/):\n  octo test %s\n\nMCP address:\n  %s (set HTTP_PORT to change the port)\n\nConnect Claude Code:\n  claude mcp add --transport http %s %s\n",
		dir, q, q, url, server, url)
	return nil
}

// portDefault is the HTTP_PORT default as the starters write it.
var portDefault = []byte(`default: "` + strconv.Itoa(defaultPort) + `"`)

// setPort writes port as the HTTP_PORT default of the starter's config.
func setPort(file string, port int) error {
	text, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if bytes.Count(text, portDefault) != 1 {
		return fmt.Errorf("%s: the starter has no single %s to set the port in", file, portDefault)
	}
	text = bytes.Replace(text, portDefault, []byte(`default: "`+strconv.Itoa(port)+`"`), 1)
	return os.WriteFile(file, text, 0o644)
}

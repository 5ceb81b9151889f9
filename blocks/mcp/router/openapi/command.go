package openapi

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/cli"
	"github.com/octo-run/octo/runtime/ports"
	"github.com/octo-run/octo/runtime/printable"
	"github.com/octo-run/octo/runtime/reference"
)

func init() {
	cli.RegisterCommand(cli.Command{Name: "import", Order: 26,
		Summary: "write an MCP router config (a tool per operation) or an HTTP mock of the API from an OpenAPI description",
		Usage:   "import openapi SPEC (--out DIR | --mock WORKSPACE | both) [--tags T,…] [--operations ID,…] [--port N] [--mock-port N] [--force]",
		Run:     command})
}

// testSchema names the schema of octo test's files (registered by package octotest).
const testSchema = "test"

func command(ctx context.Context, env *cli.Env, args []string) error {
	fs := cli.NewFlags("import", env)
	out := fs.String("out", "", "the folder to write the config and its tests into")
	tags := fs.String("tags", "", "only the operations with one of these tags, comma-separated")
	opsFlag := fs.String("operations", "", "only these operations, by operationId or tool name, comma-separated")
	port := fs.Int("port", 0, "the port the config serves MCP on (default 8080, or the next free one)")
	force := fs.Bool("force", false, "replace the config and tests an earlier import wrote in --out, and its mock in --mock")
	mock := fs.String("mock", "", "also (or only) write the API itself as an HTTP mock: a saved server of kind http in this workspace folder")
	mockPort := fs.Int("mock-port", 0, "the port of the --mock server (default 3004, or the next one free)")
	pos, err := cli.ParseInterleaved(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		return cli.Usagef("say what to import: octo import openapi SPEC --out DIR")
	case pos[0] != "openapi":
		return cli.Usagef("octo import takes openapi, not %s: octo import openapi SPEC --out DIR", printable.Quote(pos[0]))
	case len(pos) != 2:
		return cli.Usagef("name one description, a file or an http(s) URL: octo import openapi SPEC --out DIR")
	case *out == "" && *mock == "":
		return cli.Usagef("say where to write: --out DIR for an MCP router config, --mock WORKSPACE for an HTTP mock of the API, or both")
	}
	im, err := Load(ctx, pos[1], Options{Tags: list(*tags), Operations: list(*opsFlag)})
	if err != nil && (*out != "" || im == nil || len(im.chosen) == 0) {
		return err
	}
	var m *mocked
	if *mock != "" {
		written, err := im.writeMock(ctx, *mock, pos[1], *mockPort, *force)
		written.base = im.basePath()
		if err != nil {
			return err
		}
		m = &written
	}
	if *out == "" {
		reportMock(env, pos[1], *mock, m)
		return nil
	}
	if *port == 0 {
		*port = ports.Free(8080, nil)
	}
	configFile := filepath.Join(*out, im.name+".yaml")
	testsFile := filepath.Join(*out, "tests", "tools.yaml")
	if !*force {
		for _, f := range []string{configFile, testsFile} {
			if _, err := os.Stat(f); err == nil {
				return fmt.Errorf("%s exists: pass --force to replace it with a new import", f)
			}
		}
	}
	cases := im.Cases()
	if err := im.write(configFile, testsFile, pos[1], *port, cases); err != nil {
		return err
	}
	im.report(env, pos[1], *out, *port, len(cases.Cases)-1)
	if m != nil {
		fmt.Fprintln(env.Stdout)
		reportMock(env, pos[1], *mock, m)
		fmt.Fprintf(env.Stdout, "\nTry the router against the mock:\n  API_BASE_URL=http://127.0.0.1:%d%s octo run %s\n", m.port, im.basePath(), printable.ShellQuote(*out))
	}
	return nil
}

// reportMock tells what the mock is and how to serve it.
func reportMock(env *cli.Env, from, dir string, m *mocked) {
	w := env.Stdout
	fmt.Fprintf(w, "Imported %s as an HTTP mock into %s: %s.\n", printable.Quote(filepath.Base(from)), printable.Escape(m.file), plural(m.routes, "route"))
	if len(m.left) > 0 {
		fmt.Fprintf(w, "Left out %s:\n", plural(len(m.left), "operation"))
		for _, s := range m.left {
			fmt.Fprintf(w, "  %s: %s\n", printable.Escape(s.op), printable.Escape(s.why))
		}
	}
	fmt.Fprintf(w, "\nServe it:\n  octo serve %s %s\n\nThe API, mocked:\n  http://127.0.0.1:%d%s\n", printable.ShellQuote(dir), printable.ShellQuote(m.name), m.port, m.base)
}

func list(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// write writes the config, its tests and the schemas their modelines name.
func (im *Import) write(configFile, testsFile, from string, port int, cases testFile) error {
	dir := filepath.Dir(configFile)
	if err := os.MkdirAll(filepath.Dir(testsFile), 0o755); err != nil {
		return err
	}
	title := im.name
	if info := im.spec.doc.Info; info != nil && info.Title != "" {
		title = info.Title + " " + info.Version
	}
	head := fmt.Sprintf("# Written by `octo import openapi` from %s (%s, %s): a tool per operation, each calling\n"+
		"# the API with http-request. Edit it as you like; importing again with --force replaces it.\n",
		filepath.Base(from), strings.TrimSpace(title), versionName(im.spec.version))
	if err := writeYAML(configFile, head, im.Config(port)); err != nil {
		return err
	}
	testsHead := "# The tools of " + filepath.Base(configFile) + ", called with the examples of the description, the API\n" +
		"# answered by stubs: octo test " + printable.ShellQuote(dir) + "\n"
	if err := writeYAML(testsFile, testsHead, cases); err != nil {
		return err
	}
	if err := reference.WriteSchemas(dir, reference.ConfigSchema, testSchema); err != nil {
		return err
	}
	if err := reference.PointModeline(configFile, reference.SchemaFile(reference.ConfigSchema)); err != nil {
		return err
	}
	return reference.PointModeline(testsFile, "../"+reference.SchemaFile(testSchema))
}

func versionName(v string) string {
	if v == "2.0" {
		return "Swagger 2.0"
	}
	return "OpenAPI " + v
}

// writeYAML writes v as YAML after the comment head.
func writeYAML(file, head string, v any) error {
	var b bytes.Buffer
	b.WriteString(head)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	return os.WriteFile(file, b.Bytes(), 0o644)
}

// report tells what was written and what to do next.
func (im *Import) report(env *cli.Env, from, dir string, port, cases int) {
	w := env.Stdout
	fmt.Fprintf(w, "Imported %s into %s: %s.\n", printable.Quote(filepath.Base(from)), dir, plural(len(im.tools), "tool"))
	if len(im.skipped) > 0 {
		fmt.Fprintf(w, "\nLeft out %s:\n", plural(len(im.skipped), "operation"))
		for _, s := range im.Skipped() {
			fmt.Fprintf(w, "  %s\n", printable.Escape(s))
		}
	}
	for _, u := range im.unmatched {
		fmt.Fprintf(w, "\n%s chose no operation.\n", u)
	}
	if im.base != "" {
		fmt.Fprintf(w, "\nThe API: %s (set %s to call another).\n", im.base, baseURLVar)
	} else {
		fmt.Fprintf(w, "\nThe description names no absolute server URL: set %s to where the API is.\n", baseURLVar)
	}
	if vars := im.Credentials(); len(vars) > 0 {
		fmt.Fprintf(w, "Credentials: set %s in the environment.\n", strings.Join(vars, ", "))
	}
	q := printable.ShellQuote(dir)
	fmt.Fprintf(w, "\nCheck it:\n  octo validate %s\n\nTest it (the tool list and %s from the description's examples, in tests/):\n  octo test %s\n\nRun it:\n  octo run %s\n\nMCP address:\n  http://localhost:%s/mcp (set HTTP_PORT to change the port)\n",
		q, plural(cases, "case"), q, q, strconv.Itoa(port))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

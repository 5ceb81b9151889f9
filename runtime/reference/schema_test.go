package reference_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/blocks/mcp/mock/workspace"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/reference"
	"github.com/octo-run/octo/templates"
)

// repo is the repository's root, from this package's folder.
const repo = "../.."

// compile compiles schema name with the draft 2020-12 validator the project uses.
func compile(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	text, err := reference.Schema(name)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	url := "file:///" + reference.SchemaFile(name)
	if err := c.AddResource(url, bytes.NewReader(text)); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s does not compile: %v", name, err)
	}
	return s
}

// instance is a YAML file's one document as the schema sees it: parsed as the loader parses it
// (aliases and merge keys resolved, nothing interpolated), then as JSON.
func instance(t *testing.T, file string, data []byte) any {
	t.Helper()
	roots, ds := config.Parse(file, data)
	if len(ds) > 0 || len(roots) != 1 {
		t.Fatalf("%s: %d documents, %v", file, len(roots), ds)
	}
	var v any
	if err := roots[0].Decode(&v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	text, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// leaves lists where the leaf errors of a validation failure are, in the instance.
func leaves(err error) []string {
	var ve *jsonschema.ValidationError
	if !errorsAs(err, &ve) {
		return nil
	}
	var out []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, e.InstanceLocation)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

func errorsAs(err error, ve **jsonschema.ValidationError) bool {
	v, ok := err.(*jsonschema.ValidationError)
	*ve = v
	return ok
}

func TestEverySchemaCompiles(t *testing.T) {
	names := reference.SchemaNames()
	if !slices.Equal(names, []string{"config", "workspace", "server", "test"}) {
		t.Errorf("schemas %v", names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) { compile(t, name) })
	}
	if _, err := reference.Schema("servers"); err == nil || !strings.Contains(err.Error(), `did you mean "server"`) {
		t.Errorf("an unknown schema: %v", err)
	}
}

// configFiles are the flow configs that run: the samples, the router starter and the valid
// goldens of the loader and the runtime. runtime/testdata/typed is left out: its block type is
// registered by the runtime's own tests only.
var configFiles = []string{
	"samples/hello/*.yaml", "samples/mcp-oauth/*.yaml", "samples/mcp-router/*.yaml",
	"samples/mcp-http-api/*.yaml", "samples/mcp-client/*.yaml", "samples/ai-agent/*.yaml",
	"samples/mcp-router-stdio/*.yaml", "samples/mcp-cluster/*.yaml",
	"templates/mcp-router/*.yaml",
	"runtime/config/testdata/valid/*.yaml", "runtime/config/testdata/single/*.yaml",
	"runtime/testdata/variables/*.yaml", "runtime/testdata/aliases/*.yaml",
}

// testFiles are the samples' and starters' octo test cases (the mock starter's is a template,
// rendered and checked with its server).
var testFiles = []string{"samples/*/tests/*.yaml", "templates/mcp-router/tests/*.yaml"}

// workspaces are the workspace folders whose files validate against the workspace and server
// schemas.
var workspaces = []string{"samples/weather-mock", "samples/conformance", "templates/mcp-mock"}

func TestEverySampleStarterAndValidGoldenValidates(t *testing.T) {
	cfg, ws, server := compile(t, "config"), compile(t, "workspace"), compile(t, "server")
	check := func(t *testing.T, s *jsonschema.Schema, file string, data []byte) {
		if err := s.Validate(instance(t, file, data)); err != nil {
			t.Errorf("%s: %#v", file, err)
		}
	}
	n := 0
	for _, glob := range configFiles {
		files, _ := filepath.Glob(filepath.Join(repo, glob))
		if len(files) == 0 {
			t.Fatalf("no files match %s", glob)
		}
		for _, file := range files {
			if strings.HasPrefix(filepath.Base(file), ".") {
				continue // the loader reads visible files only
			}
			n++
			t.Run(strings.TrimPrefix(file, repo+"/"), func(t *testing.T) { check(t, cfg, file, read(t, file)) })
		}
	}
	for _, dir := range workspaces {
		t.Run(dir, func(t *testing.T) {
			root := filepath.Join(repo, dir)
			check(t, ws, "workspace.yaml", read(t, filepath.Join(root, "workspace.yaml")))
			servers, _ := filepath.Glob(filepath.Join(root, "servers", "*.yaml"))
			if dir == "templates/mcp-mock" {
				text, err := templates.RenderMockServer(templates.MockServer{Name: `A "quoted" name`, Port: 3004})
				if err != nil {
					t.Fatal(err)
				}
				check(t, server, "server.yaml", text)
				tests, err := templates.RenderMockTests(templates.MockServer{Name: `A "quoted" name`, Port: 3004})
				if err != nil {
					t.Fatal(err)
				}
				check(t, compile(t, "test"), "tests/server.yaml", tests)
				return
			}
			if len(servers) == 0 {
				t.Fatal("no servers")
			}
			for _, file := range servers {
				n++
				check(t, server, file, read(t, file))
			}
		})
	}
	tests := compile(t, "test")
	for _, glob := range testFiles {
		files, _ := filepath.Glob(filepath.Join(repo, glob))
		for _, file := range files {
			n++
			t.Run(strings.TrimPrefix(file, repo+"/"), func(t *testing.T) { check(t, tests, file, read(t, file)) })
		}
	}
	t.Run("mcp-mock settings alone, under a server's mcp key", func(t *testing.T) {
		text := read(t, filepath.Join(repo, "blocks/mcp/mock/testdata/conformance.yaml"))
		indented := "name: conformance\nkind: mcp\nport: 0\nmcp:\n  " + strings.ReplaceAll(string(text), "\n", "\n  ")
		check(t, server, "conformance.yaml", []byte(indented))
	})
	if n < 13 {
		t.Errorf("validated %d files; the globs missed some", n)
	}
}

// Each block's and connector's example, as the reference shows it, validates too.
func TestEveryExampleValidates(t *testing.T) {
	cfg := compile(t, "config")
	for _, b := range runtime.BlockTypes() {
		text := "connectors: [ { name: api, type: http, settings: { port: 0 } } ]\nflows:\n  - name: f\n    source: { connector: api, settings: { path: /x } }\n    process:\n      - " +
			strings.ReplaceAll(strings.TrimSpace(b.Example), "\n", "\n        ")
		if err := cfg.Validate(instance(t, b.Type, []byte(text))); err != nil {
			t.Errorf("block %s: %#v", b.Type, err)
		}
	}
	for _, c := range runtime.ConnectorTypes() {
		if err := cfg.Validate(instance(t, c.Type, []byte(c.Example))); err != nil {
			t.Errorf("connector %s: %#v", c.Type, err)
		}
	}
}

// The schema can fail: broken goldens are refused where their mistakes are.
func TestTheSchemaRefusesBrokenConfigsWhereTheyAreWrong(t *testing.T) {
	cfg := compile(t, "config")
	cases := []struct{ file, why string }{
		{"runtime/config/testdata/broken/unknown-keys.yaml", "unknown keys: /service /resources /connectors/0 /flows/0/source /flows/0"},
		{"runtime/config/testdata/broken/unknown-section.yaml", "unknown sections: "},
		{"runtime/config/testdata/broken/wrong-types.yaml", "a string where a list goes: /service /env /connectors /flows/0/name /flows/0/source /flows/0/process /flows/1/process/0"},
		{"runtime/testdata/build/unknown-block-type.yaml", "an unknown block type: /flows/0/process/0/type"},
		{"runtime/testdata/build/block-settings-problems.yaml", "an unknown setting, a wrong enum, a key beside settings: /flows/0/process/0/settings /flows/0/process/2/settings/level /flows/0/process/3"},
		{"runtime/testdata/build/http-settings-problems.yaml", "numbers out of bounds, an unknown method: /connectors/0/settings/port /connectors/0/settings/maxBodyBytes /flows/4/source/settings/methods/1"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			file := filepath.Join(repo, c.file)
			err := cfg.Validate(instance(t, file, read(t, file)))
			if err == nil {
				t.Fatal("the schema accepts a broken config")
			}
			got := leaves(err)
			_, where, _ := strings.Cut(c.why, ": ")
			for _, want := range strings.Fields(where) {
				if !slices.Contains(got, want) {
					t.Errorf("no problem at %q (%s); problems at %q\n%#v", want, c.why, got, err)
				}
			}
			if where == "" && !slices.Contains(got, "") {
				t.Errorf("no problem at the root; problems at %q", got)
			}
		})
	}
}

func read(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Samples and starters name their schema on their first line; in a sample the path reaches the
// committed schema (the mock starters' are written beside it by octo new, tested there).
func TestSamplesAndStartersNameTheirSchema(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(repo, "samples", "*", "*.yaml"))
	servers, _ := filepath.Glob(filepath.Join(repo, "samples", "*", "servers", "*.yaml"))
	starters, _ := filepath.Glob(filepath.Join(repo, "templates", "*", "*.yaml"))
	files = append(append(files, servers...), starters...)
	tests, _ := filepath.Glob(filepath.Join(repo, "*", "*", "tests", "*.yaml"))
	files = append(files, tests...)
	if len(files) < 10 {
		t.Fatalf("found %d files", len(files))
	}
	for _, file := range files {
		schema := "config"
		switch {
		case filepath.Base(file) == "workspace.yaml":
			schema = "workspace"
		case filepath.Base(filepath.Dir(file)) == "servers", strings.HasSuffix(file, "mock/server.yaml"):
			schema = "server"
		case filepath.Base(filepath.Dir(file)) == "tests":
			schema = "test"
		}
		first, _, _ := strings.Cut(string(read(t, file)), "\n")
		path, ok := strings.CutPrefix(first, "# yaml-language-server: $schema=")
		if !ok {
			t.Errorf("%s: the first line is not a yaml-language-server modeline: %q", file, first)
			continue
		}
		if strings.Contains(file, "templates/mcp-mock") || strings.Contains(file, "templates/http-mock") {
			if path != reference.SchemaFile(schema) && path != "../"+reference.SchemaFile(schema) {
				t.Errorf("%s names %s", file, path)
			}
			continue
		}
		want := filepath.Join(docs, reference.SchemaFile(schema))
		if got := filepath.Join(filepath.Dir(file), path); got != want {
			t.Errorf("%s names %s, not %s", file, got, want)
		}
	}
}

package all_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/blocks/mcp/mock/workspace"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// configAdapters may read YAML themselves: they turn their own files into the runtime's config
// (the workspace), or write one from another description (octo import openapi) or from what a
// real server answered (octo record).
var configAdapters = map[string]bool{"blocks/mcp/mock/workspace": true, "blocks/mcp/router/openapi": true, "blocks/mcp/mock/record": true}

// Blocks and connectors get their settings decoded and compiled by the runtime; none walks YAML
// nodes of its own (a config adapter excepted), so aliases, positions and checks are the same
// for every one of them.
func TestNoBlockOrConnectorImportsYAML(t *testing.T) {
	files := 0
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{"..", "../../connectors"} {
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			dir, err := filepath.Abs(filepath.Dir(path))
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(repo, dir)
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			files++
			for _, imp := range f.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); p == "gopkg.in/yaml.v3" && !configAdapters[filepath.ToSlash(rel)] {
					t.Errorf("%s imports %s: take settings from the runtime (runtime.BlockFunc) instead", path, p)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 50 {
		t.Fatalf("read %d files; the walk missed the blocks", files)
	}
}

// Every key of every block's, connector's, source's and config adapter's settings says what it
// means: the reference and the schema are made from these docs.
func TestEverySettingIsDocumented(t *testing.T) {
	var specs []named
	for _, b := range runtime.BlockTypes() {
		specs = append(specs, named{"block " + b.Type, b.Settings()})
	}
	for _, c := range runtime.ConnectorTypes() {
		specs = append(specs, named{"connector " + c.Type, c.Settings()}, named{"connector " + c.Type + " source", c.Source.Spec()})
	}
	for _, a := range runtime.AdapterTypes() {
		for _, f := range a.Files {
			specs = append(specs, named{"adapter " + a.Type + " " + f.Pattern, f.Settings.Spec()})
		}
	}
	if len(specs) < 10 {
		t.Fatalf("only %d settings types are registered", len(specs))
	}
	seen := map[*runtime.SettingsSpec]bool{}
	keys := 0
	for _, s := range specs {
		keys += undocumented(t, s.name, s.spec, seen)
	}
	if keys < 100 {
		t.Fatalf("walked %d keys; the walk missed nested settings", keys)
	}
}

type named struct {
	name string
	spec *runtime.SettingsSpec
}

// undocumented reports every key under spec without a doc, and returns how many keys it walked.
func undocumented(t *testing.T, path string, spec *runtime.SettingsSpec, seen map[*runtime.SettingsSpec]bool) int {
	if spec == nil || seen[spec] {
		return 0
	}
	seen[spec] = true
	n := 0
	for _, f := range spec.Fields {
		n++
		if strings.TrimSpace(f.Doc) == "" {
			t.Errorf("%s: key %q (%s) has no doc tag", path, f.Key, spec.Type)
		}
		n += undocumentedIn(t, path+"."+f.Key, f, seen)
	}
	return n
}

func undocumentedIn(t *testing.T, path string, f *runtime.FieldSpec, seen map[*runtime.SettingsSpec]bool) int {
	n := undocumented(t, path, f.Object, seen)
	if f.Elem != nil {
		n += undocumentedIn(t, path+"[]", f.Elem, seen)
	}
	for _, s := range f.OneOf {
		n += undocumentedIn(t, path, s, seen)
	}
	return n
}

// Each block's and connector's example is a working config: the reference never shows one that
// does not build.
func TestEveryExampleBuilds(t *testing.T) {
	for _, b := range runtime.BlockTypes() {
		t.Run("block "+b.Type, func(t *testing.T) {
			if b.Example == "" {
				t.Fatal("no example")
			}
			buildConfig(t, exampleSource(b)+`    process:
      - `+strings.ReplaceAll(strings.TrimSpace(b.Example), "\n", "\n        "))
		})
	}
	for _, c := range runtime.ConnectorTypes() {
		t.Run("connector "+c.Type, func(t *testing.T) {
			if c.Example == "" {
				t.Fatal("no example")
			}
			buildConfig(t, c.Example)
		})
	}
}

// exampleSource is the connector and flow a block's example is built in: http, unless the block
// takes messages of the stdio connector only (agent-bridge).
func exampleSource(b runtime.BlockSpec) string {
	if len(b.Transports) == 1 && b.Transports[0] == "stdio" {
		return "connectors: [ { name: io, type: stdio } ]\nflows:\n  - name: f\n    source: { connector: io }\n"
	}
	return "connectors: [ { name: api, type: http, settings: { port: 0 } }" + withConnectors(b) + " ]\nflows:\n  - name: f\n    source: { connector: api, settings: { path: /x } }\n"
}

// withConnectors is the connectors the block's example names, to follow others in a list.
func withConnectors(b runtime.BlockSpec) string {
	if b.ExampleConnectors == "" {
		return ""
	}
	return ", " + b.ExampleConnectors
}

// buildConfig loads and builds a config of one file.
func buildConfig(t *testing.T, text string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	noEnv := func(string) (string, bool) { return "", false }
	cfg, err := config.Load(file, noEnv)
	if err == nil {
		_, err = runtime.NewService(cfg, runtime.Options{LookupEnv: noEnv})
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
}

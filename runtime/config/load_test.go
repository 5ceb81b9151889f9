package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// writeConfig writes files (name → content) into a fresh folder and returns it.
func writeConfig(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func mustLoad(t *testing.T, path string, env map[string]string) *Config {
	t.Helper()
	cfg, err := Load(path, envOf(env))
	if err != nil {
		t.Fatalf("load %s:\n%v", path, err)
	}
	return cfg
}

func TestLoadReadsAFolderAsOneConfig(t *testing.T) {
	cfg := mustLoad(t, "testdata/valid", nil)

	t.Run("only the visible yaml files are read, sorted by name", func(t *testing.T) {
		want := []string{"testdata/valid/01-service.yaml", "testdata/valid/02-connectors.yaml", "testdata/valid/03-flows.yaml"}
		got := make([]string, len(cfg.Files))
		for i, f := range cfg.Files {
			got[i] = filepath.ToSlash(f)
		}
		if !slices.Equal(got, want) || filepath.ToSlash(cfg.Dir) != "testdata/valid" {
			t.Errorf("files %v in %q", got, cfg.Dir)
		}
	})
	t.Run("service and env come from the first file", func(t *testing.T) {
		if cfg.Service.Name != "mcp-router" || len(cfg.Env) != 2 {
			t.Fatalf("service %+v env %+v", cfg.Service, cfg.Env)
		}
		port, token := cfg.Env[0], cfg.Env[1]
		if port.Name != "HTTP_PORT" || port.Default == nil || *port.Default != "8080" || port.Description != "port to listen on" {
			t.Errorf("HTTP_PORT: %+v", port)
		}
		if token.Name != "API_TOKEN" || token.Default != nil {
			t.Errorf("an unused variable without default is fine and has no default: %+v", token)
		}
	})
	t.Run("a template is read beside the config and not interpolated", func(t *testing.T) {
		g := cfg.Templates["guide"]
		if g == nil || filepath.ToSlash(g.File) != "testdata/valid/guide.md" || !strings.Contains(g.Text, "${NOT_INTERPOLATED}") {
			t.Fatalf("guide: %+v", g)
		}
		if g.At.Path != "resources.templates[0]" || g.At.Kind != "template" || g.At.Name != "guide" {
			t.Errorf("where: %+v", g.At)
		}
	})
	t.Run("a connector from another file uses a variable declared in the first", func(t *testing.T) {
		api := cfg.Connectors[0]
		var s struct {
			Port int `yaml:"port"`
		}
		if ds := Decode(api.Settings, &s, api.At.Field("settings")); len(ds) > 0 || s.Port != 8080 {
			t.Errorf("port %d, %v", s.Port, ds)
		}
		if filepath.ToSlash(api.At.File) != "testdata/valid/02-connectors.yaml" || api.At.Path != "connectors[0]" || api.Node.Line != 2 {
			t.Errorf("api at %+v line %d", api.At, api.Node.Line)
		}
		if c := cfg.Connectors[1]; c.Name != "console" || c.Type != "stdio" || c.Settings != nil {
			t.Errorf("console: %+v", c)
		}
	})
	t.Run("flows keep their source and blocks with positions", func(t *testing.T) {
		if len(cfg.Flows) != 2 {
			t.Fatalf("flows: %d", len(cfg.Flows))
		}
		mcp := cfg.Flows[0]
		if mcp.Name != "mcp" || mcp.At.Kind != "flow" || mcp.At.Name != "mcp" {
			t.Errorf("flow: %+v", mcp.At)
		}
		src := mcp.Source
		if src.Connector != "api" || src.Type != "http" || src.Settings == nil || src.At.Path != "flows[0].source" {
			t.Errorf("source: %+v", src)
		}
		answer := mcp.Process[0]
		if answer.Type != "set-payload" || answer.Name != "answer" || answer.At.Path != "flows[0].process[0]" ||
			answer.At.Kind != "set-payload" || answer.At.Name != "answer" || answer.Node.Line != 5 || len(answer.Extra) != 0 {
			t.Errorf("answer: %+v", answer)
		}
		router := mcp.Process[1]
		keys := []string{}
		for _, f := range router.Extra {
			keys = append(keys, f.Key)
		}
		if router.Settings != nil || !slices.Equal(keys, []string{"serverName", "tools"}) {
			t.Errorf("router extra keys %v", keys)
		}
		if admin := cfg.Flows[1]; admin.Source.Connector != "console" || admin.Process != nil {
			t.Errorf("admin: %+v", admin)
		}
	})
	t.Run("a composite block parses its nested process with the same rules", func(t *testing.T) {
		router := cfg.Flows[0].Process[1]
		tools := router.Extra[1].Value
		at := router.At.Field("tools").Index(0).Field("process")
		blocks, ds := ParseProcess(tools.Content[0].Content[3], at)
		if len(ds) > 0 || len(blocks) != 1 || blocks[0].Type != "log" || blocks[0].At.Path != "flows[0].process[1].tools[0].process[0]" {
			t.Errorf("blocks %+v diags %v", blocks, ds)
		}
	})
}

func TestLoadReadsASingleFileWithResourcesBesideIt(t *testing.T) {
	cfg := mustLoad(t, "testdata/single/config.yaml", nil)
	g := cfg.Templates["guide"]
	if filepath.ToSlash(cfg.Dir) != "testdata/single" || g == nil || g.Text != "hello\n" || filepath.ToSlash(g.File) != "testdata/single/prompts/guide.md" {
		t.Errorf("dir %q guide %+v", cfg.Dir, g)
	}
}

func TestLoadPathProblems(t *testing.T) {
	tests := []struct {
		name string
		path string
		want string
	}{
		{"a path that does not exist is named as given", "testdata/nope", "testdata/nope: config path does not exist"},
		{"an empty folder says what it looked for", "testdata/broken/empty-folder", "testdata/broken/empty-folder: no config files (*.yaml, *.yml) in this folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.path, envOf(nil))
			if err == nil || filepath.ToSlash(err.Error()) != tt.want {
				t.Errorf("got %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestLoadMergesFilesAndChecksAcrossThem(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string // "" means it loads
	}{
		{"a flow may use a connector declared in a later file",
			map[string]string{"a.yaml": "flows:\n  - {name: f, source: {connector: api}}\n", "b.yaml": "connectors:\n  - {name: api, type: http}\n"}, ""},
		{"a connector name is unique across files",
			map[string]string{"a.yaml": "connectors:\n  - {name: api, type: http}\n", "b.yml": "connectors:\n  - {name: api, type: http}\n"},
			`b.yml:2:6: connectors[0].name (connector "api"): duplicate connector name; first declared at a.yaml:2:6`},
		{"an env variable is unique across files",
			map[string]string{"a.yaml": "env:\n  - name: X\n", "b.yaml": "env:\n  - name: X\n"},
			`b.yaml:2:5: env[0].name (env "X"): duplicate variable name; first declared at a.yaml:2:5`},
		{"several documents in one file add up",
			map[string]string{"a.yaml": "connectors:\n  - {name: api, type: http}\n---\nflows:\n  - {name: f, source: {connector: api}}\n"}, ""},
		{"an empty file is allowed beside others",
			map[string]string{"a.yaml": "# nothing yet\n", "b.yaml": "service: {name: s}\n"}, ""},
		{"errors in several files all come back in file order",
			map[string]string{"b.yaml": "flows:\n  - {name: f}\n", "a.yaml": "conectors: []\n"},
			"a.yaml:1:1: conectors: unknown section \"conectors\" (did you mean \"connectors\"?)\nb.yaml:2:5: flows[0] (flow \"f\"): missing required key \"source\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeConfig(t, tt.files)
			_, err := Load(dir, envOf(nil))
			got := ""
			if err != nil {
				got = strings.ReplaceAll(filepath.ToSlash(err.Error()), filepath.ToSlash(dir)+"/", "")
			}
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestLoadReportsUnreadableTemplates(t *testing.T) {
	dir := writeConfig(t, map[string]string{
		"config.yaml": "resources:\n  templates:\n    - {resource: folder, as: f}\n",
		"folder/x":    "",
	})
	_, err := Load(dir, envOf(nil))
	var ds Diags
	if !errors.As(err, &ds) || len(ds) != 1 || !strings.Contains(ds[0].Msg, "cannot read template file") || ds[0].Line != 3 {
		t.Errorf("got %v", err)
	}
}

func TestLoadKeepsAliasedBlocks(t *testing.T) {
	dir := writeConfig(t, map[string]string{"c.yaml": `
connectors:
  - {name: api, type: http}
flows:
  - name: f
    source: {connector: api}
    process:
      - &greet {type: set-payload, settings: {value: '"hi"'}}
      - *greet
      - {<<: *greet, name: again}
`})
	cfg := mustLoad(t, dir, nil)
	p := cfg.Flows[0].Process
	if len(p) != 3 || p[1].Type != "set-payload" || p[2].Name != "again" || p[2].Settings == nil || p[2].Settings.Kind != yaml.MappingNode {
		t.Errorf("process: %+v", p)
	}
}

// service.tracing is read into typed keys, and an endpoint or ratio that cannot work is a problem
// at its line, before anything starts.
func TestLoadReadsTheTracingSection(t *testing.T) {
	cfg := mustLoad(t, writeConfig(t, map[string]string{"a.yaml": "service:\n  name: s\n  tracing:\n    endpoint: http://127.0.0.1:4318\n    headers: {x-key: k}\n    sampleRatio: 0.5\n"}), nil)
	tr := cfg.Service.Tracing
	if tr == nil || tr.Endpoint != "http://127.0.0.1:4318" || tr.Headers["x-key"] != "k" || tr.SampleRatio == nil || *tr.SampleRatio != 0.5 {
		t.Fatalf("tracing = %+v", tr)
	}
	if cfg := mustLoad(t, writeConfig(t, map[string]string{"a.yaml": "service: {name: s}\n"}), nil); cfg.Service.Tracing != nil {
		t.Fatalf("no section: tracing = %+v", cfg.Service.Tracing)
	}
	for text, want := range map[string]string{
		"service:\n  tracing:\n    endpoint: 127.0.0.1:4318\n":                    `a.yaml:3:15: service.tracing.endpoint: "127.0.0.1:4318" is not an OTLP/HTTP address: write the collector's http:// or https:// URL, such as http://127.0.0.1:4318`,
		"service:\n  tracing:\n    endpoint: http://c:4318\n    sampleRatio: 2\n": `a.yaml:4:18: service.tracing.sampleRatio: sampleRatio 2 is out of range 0-1`,
		"service:\n  tracing: {headers: {a: b}}\n":                                `a.yaml:2:12: service.tracing: missing required key "endpoint"`,
	} {
		dir := writeConfig(t, map[string]string{"a.yaml": text})
		_, err := Load(dir, envOf(nil))
		if err == nil || strings.ReplaceAll(filepath.ToSlash(err.Error()), filepath.ToSlash(dir)+"/", "") != want {
			t.Errorf("%q: got\n%v\nwant\n%s", text, err, want)
		}
	}
}

package runtime_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// typedSettings use every typed setting the runtime compiles.
type typedSettings struct {
	Value    runtime.Expr              `yaml:"value" octo:"required" doc:"an expression"`
	Greeting runtime.Template          `yaml:"greeting" doc:"a template"`
	Guide    *runtime.TemplateResource `yaml:"guide" doc:"a template resource"`
	Schema   json.RawMessage           `yaml:"schema" doc:"JSON text"`
	Mapping  json.RawMessage           `yaml:"mapping" doc:"YAML written as JSON"`
	Then     runtime.Branch            `yaml:"then" doc:"a branch"`
	Items    []typedItem               `yaml:"items" doc:"items the block checks itself"`
}

type typedItem struct {
	Name string   `yaml:"name" doc:"unique among items"`
	Tags []string `yaml:"tags" doc:"unique in the item"`
}

// typedBlock answers with what each typed setting gives for the message.
type typedBlock struct{ s *typedSettings }

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "test-typed",
		Summary: "test: answers with its typed settings' values",
		Build:   runtime.BlockFunc(buildTyped),
	})
}

// buildTyped reports, by field, what only the block can check: repeated names and tags.
func buildTyped(b *runtime.Build, s *typedSettings) (runtime.Block, error) {
	names := map[string]bool{}
	for i := range s.Items {
		it := &s.Items[i]
		if names[it.Name] {
			b.Errorf(&it.Name, "item name %q is taken", it.Name)
		}
		names[it.Name] = true
		for j := range it.Tags {
			if j > 0 && it.Tags[j] == it.Tags[j-1] {
				b.Errorf(&it.Tags[j], "tag %q is repeated", it.Tags[j])
			}
		}
	}
	return &typedBlock{s: s}, nil
}

func (t *typedBlock) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	value, err := t.s.Value.Eval(m)
	if err != nil {
		return nil, err
	}
	greeting, err := t.s.Greeting.Render(m)
	if err != nil {
		return nil, err
	}
	guide, err := t.s.Guide.Render(m)
	if err != nil {
		return nil, err
	}
	body, err := m.Body()
	if err != nil {
		return nil, err
	}
	then, err := t.s.Then.Process(ctx, m.Derive(body))
	if err != nil {
		return nil, err
	}
	thenBody, err := then.Body()
	if err != nil {
		return nil, err
	}
	m.SetBody(map[string]any{"value": value, "greeting": greeting, "guide": guide, "alias": t.s.Guide.Alias,
		"schema": string(t.s.Schema), "mapping": string(t.s.Mapping), "then": thenBody})
	return m, nil
}

// A block gets its typed settings compiled: it evaluates an expression, renders a template and
// a template resource, holds JSON written as text (a `${VAR}` a JSON value) or as YAML (keys in
// written order), and runs a branch built by the same builder.
func TestTypedSettingsAreCompiledForTheBlock(t *testing.T) {
	base := serveConfig(t, "testdata/typed/config.yaml", nil, io.Discard)
	got := request(t, http.MethodPost, base+"/typed", `{"n": 7}`)
	var answer map[string]any
	if err := json.Unmarshal([]byte(got), &answer); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	want := map[string]any{
		"value":    21.0,
		"greeting": `hello Ada "the first", 8`,
		"guide":    "Guide for 7\n",
		"alias":    "guide",
		"schema":   `{"type": "object", "title": "Ada \"the first\"", "maxProperties": 3}`,
		"mapping":  `{"type":"object","properties":{"zeta":{"type":"integer"},"alpha":{"type":"boolean","default":true}}}`,
		"then":     map[string]any{"doubled": 14.0},
	}
	if !reflect.DeepEqual(answer, want) {
		t.Fatalf("got  %v\nwant %v", answer, want)
	}
}

// A composite block takes its settings at its top level: a settings key there is a mistake,
// not something to ignore.
func TestACompositeBlockRefusesASettingsKey(t *testing.T) {
	_, err := buildText(t, `connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: f
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        settings: { tools: [] }
        tools: [ { name: t, process: [] } ]
`)
	want := `c.yaml:7:19: flows[0].process[0].settings (mcp-router): unknown key "settings"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// A config adapter decodes a block's settings outside a build, with their positions.
func TestAnAdapterDecodesBlockSettingsWithTheirPositions(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("value: body.a\nitems: [ { name: x } ]\n"), &doc); err != nil {
		t.Fatal(err)
	}
	at := config.Where{File: "s.yaml", Path: "mcp", Kind: "server", Name: "s"}
	d, ds := runtime.DecodeBlockSettings("test-typed", doc.Content[0], at)
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	s := d.Settings.(*typedSettings)
	if p := d.Positions.Of(&s.Items[0].Name); p.Line != 2 || p.Col != 18 || p.At.Path != "mcp.items[0].name" {
		t.Errorf("position %+v", p)
	}
	t.Run("an unknown block type is a problem", func(t *testing.T) {
		if _, ds := runtime.DecodeBlockSettings("nope", doc.Content[0], at); len(ds) != 1 || !strings.Contains(ds[0].Msg, `unknown block type "nope"`) {
			t.Errorf("got %v", ds)
		}
	})
	t.Run("a branch is built only in a flow", func(t *testing.T) {
		var branch yaml.Node
		_ = yaml.Unmarshal([]byte("value: body\nthen: []"), &branch)
		if _, ds := runtime.DecodeBlockSettings("test-typed", branch.Content[0], at); len(ds) != 1 || !strings.Contains(ds[0].String(), "s.yaml:2:7: mcp.then") {
			t.Errorf("got %v", ds)
		}
	})
}

// buildText loads and builds a one-file config, c.yaml.
func buildText(t *testing.T, text string) (*runtime.Service, error) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(file, noEnv)
	if err != nil {
		return nil, err
	}
	return runtime.NewService(cfg, runtime.Options{LookupEnv: noEnv})
}

package runtime_test

import (
	"reflect"
	"strings"
	"testing"

	_ "github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/runtime"
)

// field finds the spec of the key at path (a.b[].c: [] steps into a list's element) in s.
func field(t *testing.T, s *runtime.SettingsSpec, path string) *runtime.FieldSpec {
	t.Helper()
	var f *runtime.FieldSpec
	for _, part := range strings.Split(path, ".") {
		key, list := strings.CutSuffix(part, "[]")
		f = nil
		for _, c := range s.Fields {
			if c.Key == key {
				f = c
			}
		}
		if f == nil {
			t.Fatalf("no key %q in %s", key, s.Type)
		}
		if list {
			if f.Kind != runtime.KindList {
				t.Fatalf("%s is a %s, not a list", key, f.Kind)
			}
			f = f.Elem
		}
		if f.Object != nil {
			s = f.Object
		}
	}
	return f
}

func block(t *testing.T, typ string) *runtime.SettingsSpec {
	t.Helper()
	for _, b := range runtime.BlockTypes() {
		if b.Type == typ {
			return b.Settings()
		}
	}
	t.Fatalf("no block %q", typ)
	return nil
}

// The spec a schema generator and the reference walk says, for every key, how it is written and
// what the tags declare, without reading tags again.
func TestTheSettingsSpecDescribesEveryKey(t *testing.T) {
	var http, httpSource *runtime.SettingsSpec
	for _, c := range runtime.ConnectorTypes() {
		if c.Type == "http" {
			http, httpSource = c.Settings(), c.Source.Spec()
		}
	}
	var serverFile *runtime.SettingsSpec
	for _, a := range runtime.AdapterTypes() {
		for _, f := range a.Files {
			if f.Pattern == "servers/*.yaml" {
				serverFile = f.Settings.Spec()
			}
		}
	}
	tests := []struct {
		name string
		got  *runtime.FieldSpec
		want runtime.FieldSpec
	}{
		{"a required expression", field(t, block(t, "set-payload"), "value"),
			runtime.FieldSpec{Key: "value", Kind: runtime.KindExpression, Required: true, Example: `{"city": body.city}`}},
		{"an enum with a default", field(t, block(t, "log"), "level"),
			runtime.FieldSpec{Key: "level", Kind: runtime.KindString, Default: "info", Enum: []string{"debug", "info", "warn", "error"}}},
		{"a bounded duration", field(t, block(t, "delay"), "duration"),
			runtime.FieldSpec{Key: "duration", Kind: runtime.KindDuration, Required: true, Min: "0", MinExclusive: true, Max: "1h", Example: "500ms"}},
		{"a composite block's branch", field(t, block(t, "mcp-router"), "tools[].process"),
			runtime.FieldSpec{Key: "process", Kind: runtime.KindBranch, Required: true}},
		{"a schema shared by the MCP blocks", field(t, block(t, "mcp-mock"), "tools[].outputSchema"),
			runtime.FieldSpec{Key: "outputSchema", Kind: runtime.KindJSON}},
		{"a template resource", field(t, block(t, "mcp-router"), "prompts[].resource"),
			runtime.FieldSpec{Key: "resource", Kind: runtime.KindTemplateResource}},
		{"an inline struct's keys are the outer's", field(t, block(t, "mcp-mock"), "maxSessions"),
			runtime.FieldSpec{Key: "maxSessions", Kind: runtime.KindInt, Min: "0", MinExclusive: true}},
		{"a nested list's item", field(t, block(t, "mcp-mock"), "prompts[].arguments[].required"),
			runtime.FieldSpec{Key: "required", Kind: runtime.KindBool}},
		{"a map of strings", field(t, block(t, "mcp-mock"), "variables"),
			runtime.FieldSpec{Key: "variables", Kind: runtime.KindMap, Example: "{units: metric}"}},
		{"a port", field(t, http, "port"),
			runtime.FieldSpec{Key: "port", Kind: runtime.KindInt, Required: true, Min: "0", Max: "65535", Example: "8080"}},
		{"a source's list", field(t, httpSource, "paths"),
			runtime.FieldSpec{Key: "paths", Kind: runtime.KindList}},
		{"an adapter's section holding a block's settings", field(t, serverFile, "mcp"),
			runtime.FieldSpec{Key: "mcp", Kind: runtime.KindSettings, Block: "mcp-mock"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := *tt.got
			if got.Doc == "" {
				t.Error("no doc")
			}
			got.Doc, got.Type, got.Elem, got.Object, got.OneOf = "", nil, nil, nil, nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
	t.Run("a setting of several shapes lists them", func(t *testing.T) {
		cors := field(t, http, "cors")
		if cors.Kind != runtime.KindOneOf || len(cors.OneOf) != 2 || cors.OneOf[0].Kind != runtime.KindBool ||
			cors.OneOf[1].Kind != runtime.KindList || cors.OneOf[1].Elem.Kind != runtime.KindString {
			t.Errorf("cors: %+v", cors)
		}
	})
	t.Run("a list's element and a map's value are described", func(t *testing.T) {
		if e := field(t, block(t, "mcp-mock"), "variables").Elem; e == nil || e.Kind != runtime.KindString {
			t.Errorf("variables' values: %+v", e)
		}
		if tools := field(t, block(t, "mcp-router"), "tools"); tools.Elem == nil || tools.Elem.Kind != runtime.KindObject || tools.Elem.Object == nil {
			t.Errorf("tools' items: %+v", tools.Elem)
		}
	})
	t.Run("keys are in declaration order, an inline struct's in its place", func(t *testing.T) {
		var keys []string
		for _, f := range field(t, block(t, "mcp-router"), "tools").Elem.Object.Fields {
			keys = append(keys, f.Key)
		}
		if got := strings.Join(keys, " "); got != "name title description inputSchema outputSchema annotations icons beforeTask process result task access rateLimit atMostOnce" {
			t.Errorf("keys: %s", got)
		}
	})
	t.Run("a type is reflected once", func(t *testing.T) {
		if runtime.SettingsOf[struct{ A int }]() != runtime.SettingsOf[struct{ A int }]() {
			t.Error("two specs of one type")
		}
	})
}

// A settings type with a malformed tag, or a block registered without a builder, is a
// programming error: registration, which runs in init, panics.
func TestRegistrationPanicsOnProgrammingErrors(t *testing.T) {
	type badDefault struct {
		Port int `yaml:"port" default:"eighty" doc:"a port"`
	}
	type varsOnText struct {
		Name string `yaml:"name" vars:"error" doc:"a name"`
	}
	tests := []struct {
		name     string
		register func()
		want     string
	}{
		{"a default the field cannot hold", func() { runtime.SettingsOf[badDefault]() }, `default "eighty"`},
		{"a vars tag on a field that holds no branch", func() { runtime.SettingsOf[varsOnText]() }, "holds no branch"},
		{"a block without a builder", func() { runtime.RegisterBlock(runtime.BlockSpec{Type: "test-unbuilt"}) }, "without a name or a builder"},
		{"a block type taken", func() {
			runtime.RegisterBlock(runtime.BlockSpec{Type: "log", Build: runtime.BlockFunc(func(*runtime.Build, *struct{}) (runtime.Block, error) { return nil, nil })})
		}, "registered twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), tt.want) {
					t.Fatalf("recovered %v, want a panic naming %q", r, tt.want)
				}
			}()
			tt.register()
		})
	}
}

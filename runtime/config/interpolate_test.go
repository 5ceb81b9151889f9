package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// settingsOf loads a config whose only connector has the given settings block (indented under
// `settings:`) and returns the node of its key v, or the diagnostics with the folder left out.
func settingsOf(t *testing.T, envDecl, settings string, env map[string]string) (*yaml.Node, string) {
	t.Helper()
	src := "env:\n" + envDecl + "connectors:\n  - name: api\n    type: http\n    settings:\n" + settings
	dir := writeConfig(t, map[string]string{"c.yaml": src})
	cfg, err := Load(dir, envOf(env))
	if err != nil {
		return nil, filepath.ToSlash(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""))
	}
	_, v := entry(cfg.Connectors[0].Settings, "v")
	return v, ""
}

func TestInterpolation(t *testing.T) {
	const decl = "  - {name: PORT, default: \"8080\"}\n  - {name: HOST, default: localhost}\n  - {name: TOKEN}\n  - {name: FLAG, default: \"true\"}\n"
	tests := []struct {
		name     string
		settings string
		env      map[string]string
		value    string
		tag      string
	}{
		{"the declared default is used when the process has no value", "      v: ${PORT}\n", nil, "8080", "!!int"},
		{"the process environment wins over the default", "      v: ${PORT}\n", map[string]string{"PORT": "9090"}, "9090", "!!int"},
		{"a variable set to empty wins too", "      v: x${PORT}x\n", map[string]string{"PORT": ""}, "xx", "!!str"},
		{"a variable without default works when set", "      v: ${TOKEN}\n", map[string]string{"TOKEN": "s3cret"}, "s3cret", "!!str"},
		{"several variables and text around them", "      v: http://${HOST}:${PORT}/mcp\n", nil, "http://localhost:8080/mcp", "!!str"},
		{"$${ is a literal ${", "      v: cost $${PORT} and ${PORT}\n", nil, "cost ${PORT} and 8080", "!!str"},
		{"a quoted value stays a string", "      v: \"${PORT}\"\n", nil, "8080", "!!str"},
		{"an unquoted value becomes a bool when it reads as one", "      v: ${FLAG}\n", nil, "true", "!!bool"},
		{"an explicitly tagged value keeps its tag", "      v: !!str ${PORT}\n", nil, "8080", "!!str"},
		{"a block scalar stays a string", "      v: |\n        ${PORT}\n", nil, "8080\n", "!!str"},
		{"a value without variables is untouched", "      v: 42\n", nil, "42", "!!int"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, errs := settingsOf(t, decl, tt.settings, tt.env)
			if errs != "" {
				t.Fatal(errs)
			}
			if v.Value != tt.value || v.ShortTag() != tt.tag {
				t.Errorf("got %q %s, want %q %s", v.Value, v.ShortTag(), tt.value, tt.tag)
			}
		})
	}
}

func TestInterpolatedNumbersDecode(t *testing.T) {
	var s struct {
		Quoted   int `yaml:"quoted"`
		Unquoted int `yaml:"unquoted"`
		Any      any `yaml:"any"`
	}
	dir := writeConfig(t, map[string]string{"c.yaml": `
env:
  - {name: PORT, default: "8080"}
connectors:
  - name: api
    type: http
    settings:
      quoted: "${PORT}"
      unquoted: ${PORT}
      any: ${PORT}
`})
	cfg := mustLoad(t, dir, map[string]string{"PORT": "9000"})
	if ds := Decode(cfg.Connectors[0].Settings, &s, Where{}); len(ds) > 0 {
		t.Fatal(ds)
	}
	if s.Quoted != 9000 || s.Unquoted != 9000 || s.Any != 9000 {
		t.Errorf("got %+v; want every form to give the number 9000", s)
	}
}

func TestInterpolationLeavesKeysEnvAndResourcesAlone(t *testing.T) {
	dir := writeConfig(t, map[string]string{
		"c.yaml": `
env:
  - {name: A, default: "${B}"}
  - {name: FILE}
resources:
  templates:
    - {resource: "${FILE}", as: t}
connectors:
  - name: api
    type: http
    settings: {"${A}": "${A}"}
`,
		"t.md": "${A} stays",
	})
	cfg := mustLoad(t, dir, map[string]string{"FILE": "t.md"})
	if d := cfg.Env[0].Default; d == nil || *d != "${B}" {
		t.Errorf("env default was interpolated: %v", d)
	}
	if tpl := cfg.Templates["t"]; tpl == nil || tpl.Text != "${A} stays" {
		t.Errorf("template: %+v", tpl)
	}
	kv := cfg.Connectors[0].Settings.Content
	if kv[0].Value != "${A}" || kv[1].Value != "${B}" {
		t.Errorf("key %q value %q; want the key untouched and the value interpolated", kv[0].Value, kv[1].Value)
	}
}

func TestInterpolationErrors(t *testing.T) {
	const decl = "  - {name: HTTP_PORT, default: \"8080\"}\n  - {name: TOKEN}\n"
	tests := []struct {
		name     string
		settings string
		want     string
	}{
		{"an undeclared variable suggests a declared one", "      v: ${HTTP_PROT}\n",
			`c.yaml:8:10: connectors[0].settings.v (connector "api"): undeclared variable "HTTP_PROT" (did you mean "HTTP_PORT"?)`},
		{"an undeclared variable far from all says to declare it", "      v: ${ZZZ}\n",
			`c.yaml:8:10: connectors[0].settings.v (connector "api"): undeclared variable "ZZZ"; declare it under env`},
		{"a declared variable with no value and no default is named", "      v: Bearer ${TOKEN}\n",
			`c.yaml:8:10: connectors[0].settings.v (connector "api"): variable "TOKEN" is not set and has no default: set it in the environment (octo test: a case's env or --env-file), or give it a default under env`},
		{"every variable of a value is checked", "      v: ${A}-${B}\n",
			"c.yaml:8:10: connectors[0].settings.v (connector \"api\"): undeclared variable \"A\"; declare it under env\n" +
				"c.yaml:8:10: connectors[0].settings.v (connector \"api\"): undeclared variable \"B\"; declare it under env"},
		{"an unterminated reference shows the escape", "      v: \"${HTTP_PORT\"\n",
			`c.yaml:8:10: connectors[0].settings.v (connector "api"): unterminated "${" (write "$${" for a literal "${")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := settingsOf(t, decl, tt.settings, nil)
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestTheWrittenTextOfEveryInterpolatedScalarIsKept(t *testing.T) {
	dir := writeConfig(t, map[string]string{"c.yaml": `
env: [{name: A, default: "1"}, {name: B}]
connectors:
  - name: api
    type: http
    settings: &s {v: 'x ${A}$${B} ${B}', plain: text}
  - {name: other, type: http, settings: *s}
`})
	cfg, err := Load(dir, envOf(map[string]string{"B": `"q"`}))
	if err != nil {
		t.Fatal(err)
	}
	want := Interpolation{Written: "x ${A}$${B} ${B}", Parts: []Part{
		{Text: "x ", At: 0}, {Text: "1", Var: "A", At: 2}, {Text: "${", At: 6}, {Text: "B} ", At: 9}, {Text: `"q"`, Var: "B", At: 12},
	}}
	for _, c := range cfg.Connectors {
		_, v := entry(c.Settings, "v")
		got, ok := cfg.Interpolated[v]
		if !ok || !reflect.DeepEqual(got, want) || v.Value != got.Value() || v.Value != `x 1${B} "q"` {
			t.Errorf("connector %s: %q %+v", c.Name, v.Value, got)
		}
		if _, plain := entry(c.Settings, "plain"); cfg.Interpolated[plain].Written != "" {
			t.Errorf("a scalar without variables was kept")
		}
	}
}

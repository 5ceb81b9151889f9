package config

import (
	"path/filepath"
	"slices"
	"testing"
)

// names lists the connectors and flows of cfg, each flow with the connector of its source.
func names(cfg *Config) []string {
	var out []string
	for _, c := range cfg.Connectors {
		out = append(out, "connector "+c.Name)
	}
	for _, f := range cfg.Flows {
		out = append(out, "flow "+f.Name+" on "+f.Source.Connector)
	}
	return out
}

// With a file that cannot be parsed, the names it would declare are unknown: a use of one is not
// reported, a value that reads a variable leaves its item out, and Missing says so.
func TestLoadPartialLeavesOutWhatABrokenFileMayDeclare(t *testing.T) {
	dir := writeConfig(t, map[string]string{
		"a.yaml": "env: [ { name: PORT } ]\nconnectors:\n  - name: api\n\ttype: http\n",
		"b.yaml": `flows:
  - name: uses-api
    source: { connector: api }
    process: [ { type: log } ]
  - name: reads-port
    source: { connector: api }
    process: [ { type: log, settings: { message: "${PORT}" } } ]
  - name: port-in-source
    source: { connector: api, settings: { path: "/${PORT}" } }
    process: [ { type: log } ]
`,
	})
	cfg, err := LoadPartial(dir, envOf(nil))
	want := filepath.Join(dir, "a.yaml") + ":4:1: invalid YAML: found a tab character that violates indentation (YAML indents with spaces, not tabs)"
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
	if got := names(cfg); !slices.Equal(got, []string{"flow uses-api on api", "flow port-in-source on "}) {
		t.Errorf("kept %q", got)
	}
	if cfg.Missing != (Missing{Env: true, Templates: true}) {
		t.Errorf("missing %+v", cfg.Missing)
	}
	if c, err := Load(dir, envOf(nil)); c != nil || err == nil {
		t.Errorf("Load gave a config with problems")
	}
}

// Items with problems are left out; a flow whose source alone has one keeps its process.
func TestLoadPartialLeavesOutTheItemsWithProblems(t *testing.T) {
	dir := writeConfig(t, map[string]string{"c.yaml": `resources:
  templates: [ { resource: gone.md, as: guide } ]
connectors:
  - { name: api, type: http }
  - { name: bad, type: http, nope: 1 }
flows:
  - { name: good, source: { connector: api }, process: [ { type: log } ] }
  - { name: bad-source, source: { connector: apj }, process: [ { type: log } ] }
  - { name: bad-block, source: { connector: api }, process: [ { settings: {} } ] }
  - { name: bad-name, source: { connector: api, tpye: http }, process: [] }
`})
	cfg, err := LoadPartial(dir, envOf(nil))
	if err == nil {
		t.Fatal("no problems reported")
	}
	if got := names(cfg); !slices.Equal(got, []string{"connector api", "flow good on api", "flow bad-source on ", "flow bad-name on "}) {
		t.Errorf("kept %q", got)
	}
	if cfg.Missing != (Missing{Templates: true}) {
		t.Errorf("missing %+v", cfg.Missing)
	}
}

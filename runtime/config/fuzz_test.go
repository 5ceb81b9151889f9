package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// addSeeds adds every YAML file under testdata to the fuzz corpus, plus a few hostile shapes.
func addSeeds(f *testing.F) {
	_ = filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") {
			if data, err := os.ReadFile(path); err == nil {
				f.Add(data)
			}
		}
		return nil
	})
	for _, s := range []string{
		"", "~", "[]", "flows: &a [*a]", "env: [{name: A, default: '${A}'}]\nservice: {name: '${A}$${A}${'}",
		"a: &a [x, x]\nb: &b [*a, *a]\nflows: [*b, *b]", "connectors: [{name: x, type: y, settings: {<<: *z}}]",
		"\xff\xfe", "flows:\n  - name: f\n    source: {connector: c}\n    process: [{type: t, <<: [{name: n}]}]",
	} {
		f.Add([]byte(s))
	}
}

func FuzzLoad(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "guide.md"), []byte("guide"), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(path, envOf(map[string]string{"HTTP_PORT": "1"}))
		if err != nil {
			checkFailedLoad(t, cfg, err, path)
			checkPartialConfig(t, path)
			return
		}
		checkLoadedConfig(t, cfg)
	})
}

// checkPartialConfig asserts that what LoadPartial keeps of a config with problems is sound: as
// validation promises of a loaded config, except that a flow may have lost its source, or name
// a connector of a file that could not be parsed.
func checkPartialConfig(t *testing.T, path string) {
	cfg, _ := LoadPartial(path, envOf(map[string]string{"HTTP_PORT": "1"}))
	if cfg == nil {
		t.Fatal("LoadPartial gave no config for a config file")
	}
	sourceless := *cfg
	sourceless.Flows = nil
	for _, f := range cfg.Flows {
		g := *f
		if !slices.ContainsFunc(cfg.Connectors, func(c *Connector) bool { return c.Name == f.Source.Connector }) {
			if f.Source.Connector != "" && !cfg.Missing.Env {
				t.Errorf("flow %q kept with the unknown connector %q", f.Name, f.Source.Connector)
			}
			g.Source.Connector = "\x00kept"
		}
		sourceless.Flows = append(sourceless.Flows, &g)
	}
	sourceless.Connectors = append(slices.Clone(cfg.Connectors), &Connector{Name: "\x00kept", Type: "t"})
	checkLoadedConfig(t, &sourceless)
}

func checkFailedLoad(t *testing.T, cfg *Config, err error, path string) {
	if cfg != nil {
		t.Error("a config came back along with an error")
	}
	var ds Diags
	if !errors.As(err, &ds) || len(ds) == 0 {
		t.Fatalf("error is not a non-empty Diags: %v", err)
	}
	for _, d := range ds {
		if d.File != path || d.Msg == "" {
			t.Errorf("diagnostic without its file or message: %+v", d)
		}
	}
}

// checkLoadedConfig asserts what validation promises about a config that loads.
func checkLoadedConfig(t *testing.T, cfg *Config) {
	connectors := map[string]bool{}
	for _, c := range cfg.Connectors {
		if c.Name == "" || c.Type == "" || connectors[c.Name] {
			t.Errorf("connector passed validation: %+v", c)
		}
		connectors[c.Name] = true
	}
	flows := map[string]bool{}
	for _, fl := range cfg.Flows {
		if fl.Name == "" || flows[fl.Name] || !connectors[fl.Source.Connector] {
			t.Errorf("flow passed validation: %+v", fl)
		}
		flows[fl.Name] = true
		for _, b := range fl.Process {
			if b.Type == "" {
				t.Errorf("block without type passed validation: %+v", b)
			}
		}
	}
}

func FuzzDecode(f *testing.F) {
	addSeeds(f)
	f.Add([]byte("name: 1\ncount: 0x7fffffffffffffff\nport: -0\nhalf: .NaN\ntimeout: -5m\nbackups: [~, {host: h}]\nany: &a [*a]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		roots, ds := Parse("f.yaml", data)
		for _, root := range roots {
			if hasAlias(root) {
				t.Fatal("Parse left an alias or a merge key")
			}
			var s testSettings
			ds = append(ds, Decode(root, &s, Where{File: "f.yaml"})...)
		}
		for _, d := range ds {
			if d.Msg == "" || d.File != "f.yaml" {
				t.Errorf("diagnostic without message or file: %+v", d)
			}
		}
	})
}

// FuzzInside maps positions inside every scalar of any YAML to its file: it must not panic, and
// a position it finds is a position of the file.
func FuzzInside(f *testing.F) {
	addSeeds(f)
	f.Add([]byte("v: |2-\n    x\n\n   y\r\nw: >\n\n  a\n    b\n  c\n"))
	f.Add([]byte("v: \"a\\\n  b\\x41\\u00e9 'c''\"\nw: 'it''s\n\n  more'\n- plain\n  folded # c\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		roots, _ := Parse("f.yaml", data)
		lines := bytes.Count(data, []byte("\n")) + 1
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			if n.Kind == yaml.ScalarNode {
				p := Sources{"f.yaml": data}.Position(n, Where{File: "f.yaml"})
				for _, at := range [][2]int{{1, 1}, {1, 3}, {2, 1}, {2, 5}, {1, len(n.Value) + 1}} {
					if l, c := p.Inside(at[0], at[1]); l < 0 || l > lines+1 || c < 0 {
						t.Fatalf("%q at %v: %d:%d outside the file", n.Value, at, l, c)
					}
				}
			}
			for _, c := range n.Content {
				walk(c)
			}
		}
		for _, r := range roots {
			walk(r)
		}
	})
}

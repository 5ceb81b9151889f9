package config

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

type upstream struct {
	Host string `yaml:"host" octo:"required"`
	Port uint16 `yaml:"port"`
}

type common struct {
	Label string `yaml:"label"`
}

// mode decodes itself, as a setting with its own vocabulary would.
type mode string

func (m *mode) DecodeYAMLNode(n *yaml.Node, at Where) Diags {
	if n.Value != "fast" && n.Value != "safe" {
		var ds Diags
		ds.Addf(n, at, "mode must be fast or safe, got %q", n.Value)
		return ds
	}
	*m = mode(n.Value)
	return nil
}

type testSettings struct {
	common   `yaml:",inline"`
	Name     string            `yaml:"name"`
	Enabled  bool              `yaml:"enabled"`
	Count    int               `yaml:"count"`
	Small    int8              `yaml:"small"`
	Big      uint64            `yaml:"big"`
	Port     uint16            `yaml:"port"`
	Ratio    float64           `yaml:"ratio"`
	Half     float32           `yaml:"half"`
	Timeout  time.Duration     `yaml:"timeout"`
	Methods  []string          `yaml:"methods"`
	Headers  map[string]string `yaml:"headers"`
	Limit    *int              `yaml:"limit"`
	Upstream upstream          `yaml:"upstream"`
	Backups  []upstream        `yaml:"backups"`
	Raw      *yaml.Node        `yaml:"raw"`
	RawValue yaml.Node         `yaml:"rawValue"`
	Any      any               `yaml:"any"`
	Mode     mode              `yaml:"mode"`
	Secret   string            `yaml:"-"`
	NoTag    string
}

// decodeText parses src and decodes it into a fresh testSettings preset with Count 7.
func decodeText(t *testing.T, src string) (testSettings, []string) {
	t.Helper()
	roots, ds := Parse("s.yaml", []byte(src))
	if len(roots) != 1 {
		t.Fatalf("test YAML is not one document: %v", ds)
	}
	s := testSettings{Count: 7}
	var got []string
	for _, d := range append(ds, Decode(roots[0], &s, Where{File: "s.yaml", Path: "settings"})...) {
		got = append(got, d.String())
	}
	return s, got
}

func TestDecodeAcceptsEachSupportedType(t *testing.T) {
	limit := 5
	tests := []struct {
		name string
		src  string
		want func(*testSettings)
	}{
		{"a string takes any scalar as text", "name: 42", func(s *testSettings) { s.Name = "42" }},
		{"a bool takes true", "enabled: true", func(s *testSettings) { s.Enabled = true }},
		{"a bool takes a quoted true", `enabled: "TRUE"`, func(s *testSettings) { s.Enabled = true }},
		{"an int takes hex and underscores", "count: 0x10\nbig: 1_000", func(s *testSettings) { s.Count, s.Big = 16, 1000 }},
		{"an int takes a quoted number", `count: "12"`, func(s *testSettings) { s.Count = 12 }},
		{"a negative int fits", "small: -128", func(s *testSettings) { s.Small = -128 }},
		{"the largest uint64 fits", "big: 18446744073709551615", func(s *testSettings) { s.Big = math.MaxUint64 }},
		{"a uint16 takes a quoted port", `port: "8080"`, func(s *testSettings) { s.Port = 8080 }},
		{"a float takes an int, a float and a quoted number", "ratio: 3\nhalf: \"0.5\"", func(s *testSettings) { s.Ratio, s.Half = 3, 0.5 }},
		{"a float takes YAML infinity", "ratio: -.inf", func(s *testSettings) { s.Ratio = math.Inf(-1) }},
		{"a duration takes Go duration text", "timeout: 1m30s", func(s *testSettings) { s.Timeout = 90 * time.Second }},
		{"a duration takes quoted text", `timeout: "250ms"`, func(s *testSettings) { s.Timeout = 250 * time.Millisecond }},
		{"a list takes a sequence", "methods: [GET, POST]", func(s *testSettings) { s.Methods = []string{"GET", "POST"} }},
		{"a map takes a mapping", "headers: {X-A: a, X-B: b}", func(s *testSettings) { s.Headers = map[string]string{"X-A": "a", "X-B": "b"} }},
		{"a pointer is allocated", "limit: 5", func(s *testSettings) { s.Limit = &limit }},
		{"a nested struct is decoded", "upstream: {host: h, port: 81}", func(s *testSettings) { s.Upstream = upstream{"h", 81} }},
		{"a list of structs is decoded", "backups: [{host: a}, {host: b, port: 2}]", func(s *testSettings) { s.Backups = []upstream{{"a", 0}, {"b", 2}} }},
		{"any gets maps and lists", "any: {a: [1, x]}", func(s *testSettings) { s.Any = map[string]any{"a": []any{1, "x"}} }},
		{"a custom decoder decodes itself", "mode: safe", func(s *testSettings) { s.Mode = "safe" }},
		{"inline fields are keys of the outer mapping", "label: l", func(s *testSettings) { s.Label = "l" }},
		{"an untagged field is its lowercased name", "notag: n", func(s *testSettings) { s.NoTag = "n" }},
		{"null leaves an optional value as it was", "count: ~\nlimit: null\nname:", func(*testSettings) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, diags := decodeText(t, tt.src)
			if len(diags) > 0 {
				t.Fatalf("unexpected diagnostics:\n%s", strings.Join(diags, "\n"))
			}
			want := testSettings{Count: 7}
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestDecodeSeesAliasesAndMergeKeysResolvedByParse(t *testing.T) {
	src := "methods: &m [GET]\nupstream:\n  <<: {host: h, port: 1}\n  port: 2\nbackups:\n  - &b {host: x}\n  - *b\nheaders: {<<: [{a: '1'}, {a: '2', b: '2'}]}\n"
	s, ds := decodeText(t, src)
	if len(ds) > 0 {
		t.Fatalf("unexpected diagnostics: %v", ds)
	}
	if s.Upstream != (upstream{"h", 2}) {
		t.Errorf("merge: got %+v, want host h and the own port 2", s.Upstream)
	}
	if len(s.Backups) != 2 || s.Backups[1].Host != "x" {
		t.Errorf("alias: got %+v", s.Backups)
	}
	if s.Headers["a"] != "1" || s.Headers["b"] != "2" {
		t.Errorf("merge list: got %v, want the earlier mapping to win", s.Headers)
	}
}

func TestDecodeKeepsRawNodes(t *testing.T) {
	_, diags := decodeText(t, "raw: {a: 1}\nrawValue: [x]")
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	got, _ := decodeText(t, "\nraw: {a: 1}\nrawValue: [x]")
	if got.Raw == nil || got.Raw.Kind != yaml.MappingNode || got.Raw.Line != 2 || got.Raw.Column != 6 {
		t.Errorf("raw node: %+v", got.Raw)
	}
	if got.RawValue.Kind != yaml.SequenceNode || got.RawValue.Content[0].Value != "x" {
		t.Errorf("raw value: %+v", got.RawValue)
	}
}

func TestDecodeReportsEveryProblemAtItsNode(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"an unknown key suggests the close one", "methds: [GET]",
			[]string{`s.yaml:1:1: settings.methds: unknown key "methds" (did you mean "methods"?)`}},
		{"an unknown key far from all lists the valid keys", "zzzzzzzz: 1",
			[]string{`s.yaml:1:1: settings.zzzzzzzz: unknown key "zzzzzzzz"; expected one of: label, name, enabled, count, small, big, port, ratio, half, timeout, methods, headers, limit, upstream, backups, raw, rawValue, any, mode, notag`}},
		{"a word for a number names both", "count: abc",
			[]string{`s.yaml:1:8: settings.count: expected an integer, got "abc"`}},
		{"a fraction for an integer is refused", "count: 1.5",
			[]string{`s.yaml:1:8: settings.count: expected an integer, got 1.5`}},
		{"an int8 out of range gives the range", "small: 300",
			[]string{`s.yaml:1:8: settings.small: 300 is out of range (-128 to 127)`}},
		{"a negative port is out of range", "port: -1",
			[]string{`s.yaml:1:7: settings.port: -1 is out of range (0 to 65535)`}},
		{"a port above 65535 is out of range", `port: "70000"`,
			[]string{`s.yaml:1:7: settings.port: 70000 is out of range (0 to 65535)`}},
		{"a word for a float is refused", "ratio: fast",
			[]string{`s.yaml:1:8: settings.ratio: expected a number, got "fast"`}},
		{"a float32 overflow is out of range", "half: 1e40",
			[]string{`s.yaml:1:7: settings.half: 1e40 is out of range for a 32-bit number`}},
		{"yes is not a bool", "enabled: yes",
			[]string{`s.yaml:1:10: settings.enabled: expected true or false, got "yes"`}},
		{"a bare number is not a duration", "timeout: 5000",
			[]string{`s.yaml:1:10: settings.timeout: expected a duration such as "5s" or "250ms", got 5000`}},
		{"a duration needs a unit even when quoted", `timeout: "5"`,
			[]string{`s.yaml:1:10: settings.timeout: expected a duration such as "5s" or "250ms", got "5"`}},
		{"a scalar is not a list", "methods: GET",
			[]string{`s.yaml:1:10: settings.methods: expected a list, got "GET"`}},
		{"a list is not a string", "name: [a]",
			[]string{`s.yaml:1:7: settings.name: expected a string, got a list`}},
		{"a list is not a map", "headers: [a]",
			[]string{`s.yaml:1:10: settings.headers: expected a mapping, got a list`}},
		{"a map value has its key in the path", "headers: {X-A: [a]}",
			[]string{`s.yaml:1:16: settings.headers.X-A: expected a string, got a list`}},
		{"a missing required key is reported at the mapping", "upstream: {port: 1}",
			[]string{`s.yaml:1:11: settings.upstream: missing required key "host"`}},
		{"a null required key is reported at the value", "upstream: {host: ~}",
			[]string{`s.yaml:1:18: settings.upstream.host: missing value for required key "host"`}},
		{"an empty required string is reported", `upstream: {host: ""}`,
			[]string{`s.yaml:1:18: settings.upstream.host: "host" must not be empty`}},
		{"nested list items have their index in the path", "backups: [{host: a}, {host: b, prot: 1}]",
			[]string{`s.yaml:1:32: settings.backups[1].prot: unknown key "prot" (did you mean "port"?)`}},
		{"a custom decoder reports its own problem", "mode: turbo",
			[]string{`s.yaml:1:7: settings.mode: mode must be fast or safe, got "turbo"`}},
		{"a duplicate key points at the first", "name: a\nname: b",
			[]string{`s.yaml:2:1: settings.name: duplicate key "name"; first declared at s.yaml:1:1`}},
		{"a skipped field is not a key", "secret: x",
			[]string{`s.yaml:1:1: settings.secret: unknown key "secret"; expected one of: label, name, enabled, count, small, big, port, ratio, half, timeout, methods, headers, limit, upstream, backups, raw, rawValue, any, mode, notag`}},
		{"a list is not settings", "[1, 2]",
			[]string{`s.yaml:1:1: settings: expected a mapping, got a list`}},
		{"a merge of a scalar is refused", "upstream: {<<: x, host: h}",
			[]string{`s.yaml:1:12: upstream: a merge key (<<) takes a mapping or a list of mappings, got "x"`}},
		{"every problem is reported in one pass", "count: x\nport: -5\nmethds: []\nupstream: {}",
			[]string{
				`s.yaml:1:8: settings.count: expected an integer, got "x"`,
				`s.yaml:2:7: settings.port: -5 is out of range (0 to 65535)`,
				`s.yaml:3:1: settings.methds: unknown key "methds" (did you mean "methods"?)`,
				`s.yaml:4:11: settings.upstream: missing required key "host"`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := decodeText(t, tt.src)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestDecodeEdges(t *testing.T) {
	t.Run("nil settings still report required keys", func(t *testing.T) {
		var u upstream
		ds := Decode(nil, &u, Where{File: "c.yaml", Path: "x.settings", Kind: "http", Name: "api"})
		if len(ds) != 1 || ds[0].String() != `c.yaml: x.settings (http "api"): missing required key "host"` {
			t.Errorf("got %v", ds)
		}
	})
	t.Run("a non-pointer target is reported, not a panic", func(t *testing.T) {
		if ds := Decode(&yaml.Node{Kind: yaml.MappingNode}, upstream{}, Where{}); len(ds) != 1 {
			t.Errorf("got %v", ds)
		}
	})
	t.Run("an unsupported target type is reported", func(t *testing.T) {
		var doc yaml.Node
		_ = yaml.Unmarshal([]byte("c: 1"), &doc)
		var out struct {
			C chan int `yaml:"c"`
		}
		if ds := Decode(&doc, &out, Where{}); len(ds) != 1 || !strings.Contains(ds[0].Msg, "cannot decode into chan int") {
			t.Errorf("got %v", ds)
		}
	})
	t.Run("nesting past the depth limit is reported once", func(t *testing.T) {
		type tree struct {
			Kids []tree `yaml:"kids"`
		}
		roots, _ := Parse("deep.yaml", []byte(strings.Repeat("{kids: [", maxDepth)+strings.Repeat("]}", maxDepth)))
		var out tree
		ds := Decode(roots[0], &out, Where{File: "deep.yaml"})
		if len(ds) != 1 || !strings.Contains(ds[0].Msg, "nested more than 1000 levels deep") {
			t.Errorf("got %v", ds)
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	var doc yaml.Node
	src := "name: n\ncount: 3\nport: 8080\ntimeout: 5s\nmethods: [GET, POST]\nheaders: {a: b}\nupstream: {host: h, port: 1}\n"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var s testSettings
		if ds := Decode(&doc, &s, Where{}); len(ds) > 0 {
			b.Fatal(ds)
		}
	}
}

package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// tagged uses every settings tag a block may write.
type tagged struct {
	Level   string            `yaml:"level" default:"info" enum:"debug,info,warn,error" doc:"how loud"`
	Port    int               `yaml:"port" min:"0" max:"65535" doc:"a port"`
	Batch   *int              `yaml:"batch" min:"1" doc:"at least one"`
	Idle    *time.Duration    `yaml:"idle" min:">0" doc:"positive"`
	Wait    time.Duration     `yaml:"wait" default:"5s" min:">0" max:"1h" doc:"bounded"`
	Ratio   float64           `yaml:"ratio" max:"1" doc:"at most one"`
	Enabled bool              `yaml:"enabled" default:"true" doc:"on unless false"`
	Inner   inner             `yaml:"inner" doc:"a plain struct"`
	Items   []item            `yaml:"items" doc:"a list of structs"`
	Vars    map[string]string `yaml:"vars" doc:"a map"`
	Origins origins           `yaml:"origins" doc:"true or a list"`
}

type inner struct {
	Mode string `yaml:"mode" default:"fast" doc:"defaults inside a struct left out apply too"`
}

type item struct {
	Name string   `yaml:"name" octo:"required" doc:"a name"`
	Tags []string `yaml:"tags" doc:"list items have positions"`
}

// origins takes true, false or a list, as the http connector's cors does.
type origins struct {
	all  bool
	list []string
}

func (o *origins) Shape(s Shape) (any, string) {
	switch s {
	case ShapeBool:
		return &o.all, ""
	case ShapeList:
		return &o.list, ""
	}
	return nil, "expected true, false or a list of origins"
}

// decodeTagged decodes src into a fresh tagged with positions.
func decodeTagged(t *testing.T, src string) (*tagged, *Positions, []string) {
	t.Helper()
	roots, ds := Parse("t.yaml", []byte(src))
	var root *yaml.Node
	if len(roots) > 0 {
		root = roots[0]
	}
	at := Where{File: "t.yaml", Path: "settings", Kind: "block"}
	pos := NewPositions(NodePosition(root, at))
	var s tagged
	ds = append(ds, (&Decoder{Positions: pos}).Decode(root, &s, at)...)
	var got []string
	for _, d := range ds {
		got = append(got, d.String())
	}
	return &s, pos, got
}

func TestTagsGiveDefaultsWhereNothingIsWritten(t *testing.T) {
	s, _, ds := decodeTagged(t, "port: 80\nlevel: ~")
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	if s.Level != "info" || s.Wait != 5*time.Second || !s.Enabled || s.Inner.Mode != "fast" {
		t.Fatalf("defaults not applied: %+v", s)
	}
	s, _, _ = decodeTagged(t, "enabled: false\nwait: 1s\ninner: {mode: slow}")
	if s.Enabled || s.Wait != time.Second || s.Inner.Mode != "slow" {
		t.Fatalf("written values lost to defaults: %+v", s)
	}
	s, _, _ = decodeTagged(t, "")
	if s.Level != "info" || !s.Enabled {
		t.Fatalf("settings left out get no defaults: %+v", s)
	}
}

func TestTagsRefuseValuesOutsideTheirEnumAndBounds(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"a typo in an enum gets a suggestion", "level: inf",
			`t.yaml:1:8: settings.level (block): unknown level "inf" (did you mean "info"?)`},
		{"a word far from the enum lists it", "level: loud",
			`t.yaml:1:8: settings.level (block): unknown level "loud"; expected one of: debug, info, warn, error`},
		{"both bounds give the range", "port: 70000",
			`t.yaml:1:7: settings.port (block): port 70000 is out of range 0-65535`},
		{"a minimum is named", "batch: 0",
			`t.yaml:1:8: settings.batch (block): batch must be at least 1, got 0`},
		{"an excluded zero asks for a positive value", "idle: -5s",
			`t.yaml:1:7: settings.idle (block): idle must be positive, got -5s`},
		{"an excluded minimum and a maximum are both named", "wait: 2h",
			`t.yaml:1:7: settings.wait (block): wait must be more than 0s and at most 1h0m0s, got 2h0m0s`},
		{"a maximum of a float", "ratio: 1.5",
			`t.yaml:1:8: settings.ratio (block): ratio must be at most 1, got 1.5`},
		{"a value of the wrong type is reported once, not checked", "port: x",
			`t.yaml:1:7: settings.port (block): expected an integer, got "x"`},
		{"a shape not taken says what is", "origins: yes please",
			`t.yaml:1:10: settings.origins (block): expected true, false or a list of origins`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, got := decodeTagged(t, tt.src)
			if strings.Join(got, "\n") != tt.want {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), tt.want)
			}
		})
	}
}

func TestAnEnumChecksEachItemOfAList(t *testing.T) {
	type listed struct {
		Methods []string `yaml:"methods" enum:"GET,POST" octo:"anycase" doc:"choices in any case"`
		Algs    []string `yaml:"algs" enum:"RS256,ES256" doc:"choices as written"`
	}
	tests := []struct{ name, src, want string }{
		{"anycase takes an entry in any case", "methods: [get, Post]", ""},
		{"an item is named by the key without its plural s", "methods: [get, PSOT]",
			`t.yaml:1:16: settings.methods[1] (block): unknown method "PSOT" (did you mean "POST"?)`},
		{"without anycase the case must match", "algs: [RS256, es256]",
			`t.yaml:1:15: settings.algs[1] (block): unknown alg "es256" (did you mean "ES256"?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tt.src), &doc); err != nil {
				t.Fatal(err)
			}
			var s listed
			got := Decode(&doc, &s, Where{File: "t.yaml", Path: "settings", Kind: "block"}).Error()
			if got != tt.want {
				t.Errorf("got %q, want %q (%+v)", got, tt.want, s)
			}
		})
	}
	if keys := SettingsOf(reflect.TypeFor[listed]()); !keys[0].EnumAnyCase || keys[1].EnumAnyCase {
		t.Errorf("anycase: %+v", keys)
	}
}

func TestAShapedSettingDecodesTheShapeWritten(t *testing.T) {
	s, pos, ds := decodeTagged(t, "origins: true")
	if len(ds) > 0 || !s.Origins.all {
		t.Fatalf("%+v %v", s.Origins, ds)
	}
	s, pos, ds = decodeTagged(t, "origins:\n  - https://a.example\n  - https://b.example")
	if len(ds) > 0 || len(s.Origins.list) != 2 {
		t.Fatalf("%+v %v", s.Origins, ds)
	}
	if p := pos.Of(&s.Origins.list[1]); p.Line != 3 || p.Col != 5 || p.At.Path != "settings.origins[1]" {
		t.Errorf("a list item of a shape: %+v", p)
	}
}

func TestPositionsFindEverySettingByItsAddress(t *testing.T) {
	src := `port: 80
batch: 3
items:
  - name: a
  - name: b
    tags: [x, "y"]
vars: { k: v }
`
	s, pos, ds := decodeTagged(t, src)
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	tests := []struct {
		name      string
		got       Position
		line, col int
		path      string
		written   bool
	}{
		{"a field", pos.Of(&s.Port), 1, 7, "settings.port", true},
		{"what a pointer field holds", pos.Of(s.Batch), 2, 8, "settings.batch", true},
		{"the pointer field itself", pos.Of(&s.Batch), 2, 8, "settings.batch", true},
		{"a list item, apart from its first field", pos.Of(&s.Items[1]), 5, 5, "settings.items[1]", true},
		{"the first field of a list item", pos.Of(&s.Items[1].Name), 5, 11, "settings.items[1].name", true},
		{"an item of a nested list", pos.Of(&s.Items[1].Tags[1]), 6, 15, "settings.items[1].tags[1]", true},
		{"a map entry", pos.Key(s.Vars, "k"), 7, 12, "settings.vars.k", true},
		{"a field by its key", pos.Key(&s.Items[0], "name"), 4, 11, "settings.items[0].name", true},
		{"a field left out, at the mapping that lacks it", pos.Of(&s.Ratio), 1, 1, "settings.ratio", false},
		{"a field left out inside an item", pos.Of(&s.Items[0].Tags), 4, 5, "settings.items[0].tags", false},
		{"a field of a struct left out", pos.Of(&s.Inner.Mode), 1, 1, "settings.inner.mode", false},
		{"anything else is the settings", pos.Of(new(int)), 1, 1, "settings", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.got
			if p.Line != tt.line || p.Col != tt.col || p.At.Path != tt.path || p.Written != tt.written {
				t.Errorf("got %d:%d %s written=%v, want %d:%d %s written=%v", p.Line, p.Col, p.At.Path, p.Written, tt.line, tt.col, tt.path, tt.written)
			}
		})
	}
	if p := pos.Of(&s.Items[1].Name); p.KeyLine != 5 || p.KeyCol != 5 {
		t.Errorf("key position: %+v", p)
	}
	if d := pos.Diag(&s.Port, "port %d is taken", s.Port); d.String() != `t.yaml:1:7: settings.port (block): port 80 is taken` {
		t.Errorf("diag: %s", d)
	}
}

func TestInsideMapsATextPositionToTheFile(t *testing.T) {
	src := "a: plain text\nb: 'quoted'\nc: |\n  first\n  second\n"
	roots, _ := Parse("t.yaml", []byte(src))
	var s struct {
		A string `yaml:"a"`
		B string `yaml:"b"`
		C string `yaml:"c"`
	}
	pos := NewPositions(Position{})
	if ds := (&Decoder{Positions: pos}).Decode(roots[0], &s, Where{}); len(ds) > 0 {
		t.Fatal(ds)
	}
	for _, tt := range []struct {
		name            string
		field           any
		line, col       int
		wantLine, wantC int
	}{
		{"plain text starts at its column", &s.A, 1, 7, 1, 10},
		{"quoted text starts one past the quote", &s.B, 1, 3, 2, 7},
		{"without the file, a block scalar's lines start below its indicator", &s.C, 2, 3, 5, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if l, c := pos.Of(tt.field).Inside(tt.line, tt.col); l != tt.wantLine || tt.wantC != 0 && c != tt.wantC {
				t.Errorf("got %d:%d, want %d:%d", l, c, tt.wantLine, tt.wantC)
			}
		})
	}
}

// With the file's text, a character of a setting's text is found where it was written, however
// YAML wrote it: each case's value holds one Q, found at the Q of the file.
func TestInsideFindsACharacterOfTheTextWhereItWasWritten(t *testing.T) {
	for _, tt := range []struct{ name, src string }{
		{"a plain value", "v: body.Q\n"},
		{"a plain value in a list", "- body.Q\n"},
		{"a plain value folded over lines", "k:\n  v: one two\n    three Q\nw: 1\n"},
		{"a plain value with an empty line", "v: one\n\n  two Q\n"},
		{"a single-quoted value with quotes", "v: 'it''s ''a'' Q'\n"},
		{"a double-quoted value with escapes", `v: "a\"b\tc\u00e9 Q"` + "\n"},
		{"a double-quoted value with an escaped line break", "v: \"one \\\n    two Q\"\n"},
		{"a quoted value folded over lines", "v: 'one\n   two\n\n   three Q'\n"},
		{"a value after multibyte text", "v: 'São Paulo → Q'\n"},
		{"a literal block scalar", "k:\n  v: |\n    first\n      second Q\n"},
		{"a literal block scalar after empty lines", "v: |\n\n\n  text Q\n"},
		{"a literal block scalar with a chomping indicator and comment", "v: |- # the expression\n    Q + 1\n"},
		{"a literal block scalar with an indentation indicator", "v: |2\n    indented Q\n"},
		{"a block scalar in a list with an indentation indicator", "- |1\n  x Q\n"},
		{"a folded block scalar", "v: >\n  one\n  two\n  three Q\n"},
		{"a folded block scalar with more indented lines", "v: >\n  one\n    two\n  three\n\n  four Q\n"},
		{"a block scalar with CRLF line ends", "v: |\r\n  one\r\n  two Q\r\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			roots, ds := Parse("t.yaml", []byte(tt.src))
			if len(ds) > 0 || len(roots) != 1 {
				t.Fatalf("parse: %v", ds)
			}
			n := scalarWith(roots[0], "Q")
			if n == nil {
				t.Fatal("no scalar holds Q")
			}
			p := Sources{"t.yaml": []byte(tt.src)}.Position(n, Where{File: "t.yaml"})
			vl, vc := where(n.Value, "Q")
			fl, fc := where(tt.src, "Q")
			if l, c := p.Inside(vl, vc); l != fl || c != fc {
				t.Errorf("value %q: Q at %d:%d of the value found at %d:%d, want %d:%d", n.Value, vl, vc, l, c, fl, fc)
			}
			// A compiler reports an unexpected end one past the text's last character.
			if strings.HasSuffix(n.Value, "Q") {
				if l, c := p.Inside(vl, vc+1); l != fl || c != fc+1 {
					t.Errorf("one past the end found at %d:%d, want %d:%d", l, c, fl, fc+1)
				}
			}
		})
	}
}

// scalarWith finds the scalar under n whose value holds mark.
func scalarWith(n *yaml.Node, mark string) *yaml.Node {
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, mark) {
		return n
	}
	for _, c := range n.Content {
		if s := scalarWith(c, mark); s != nil {
			return s
		}
	}
	return nil
}

// where is the line and column (from 1, in characters) of the first mark in text.
func where(text, mark string) (int, int) {
	i := strings.Index(text, mark)
	before := text[:i]
	line := strings.Count(before, "\n") + 1
	return line, utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:]) + 1
}

func TestAHookDecodesTheTypesItClaims(t *testing.T) {
	type compiled struct{ text string }
	var s struct {
		Value compiled   `yaml:"value"`
		Other string     `yaml:"other"`
		Many  []compiled `yaml:"many"`
	}
	hook := func(n *yaml.Node, at Where, v reflect.Value, _ HookField) (Diags, bool) {
		if v.Type() != reflect.TypeFor[compiled]() {
			return nil, false
		}
		if n.Value == "bad" {
			return Diags{at.Diag(n, "bad value")}, true
		}
		v.Set(reflect.ValueOf(compiled{text: "compiled " + n.Value}))
		return nil, true
	}
	roots, _ := Parse("h.yaml", []byte("value: x\nother: y\nmany: [a, bad]"))
	ds := (&Decoder{Hook: hook}).Decode(roots[0], &s, Where{File: "h.yaml"})
	if s.Value.text != "compiled x" || s.Other != "y" || s.Many[0].text != "compiled a" {
		t.Errorf("%+v", s)
	}
	if len(ds) != 1 || ds[0].String() != "h.yaml:3:11: many[1]: bad value" {
		t.Errorf("got %v", ds)
	}
}

func TestMalformedTagsPanicWhenTheTypeIsRead(t *testing.T) {
	tests := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"a default the type cannot hold", reflect.TypeFor[struct {
			N int `yaml:"n" default:"many"`
		}](), `default "many"`},
		{"a default outside the enum", reflect.TypeFor[struct {
			L string `yaml:"l" default:"loud" enum:"quiet"`
		}](), `not one of the enum`},
		{"an enum on a number", reflect.TypeFor[struct {
			N int `yaml:"n" enum:"1,2"`
		}](), `enum on a int`},
		{"a bound on a string", reflect.TypeFor[struct {
			S string `yaml:"s" min:"1"`
		}](), `only numbers and durations`},
		{"a bound the type cannot hold", reflect.TypeFor[struct {
			D time.Duration `yaml:"d" max:"an hour"`
		}](), `max: "an hour"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(r.(string), tt.want) {
					t.Fatalf("recovered %v, want a panic naming %q", r, tt.want)
				}
			}()
			SettingsOf(tt.typ)
		})
	}
}

func TestSettingsOfListsKeysWithTheirTags(t *testing.T) {
	keys := SettingsOf(reflect.TypeFor[tagged]())
	if len(keys) != 11 || keys[0].Key != "level" || keys[0].Default != "info" || len(keys[0].Enum) != 4 || keys[0].Doc != "how loud" {
		t.Fatalf("%+v", keys[0])
	}
	if w := keys[4]; w.Key != "wait" || w.Min != "0" || !w.MinExclusive || w.Max != "1h" {
		t.Errorf("%+v", w)
	}
}

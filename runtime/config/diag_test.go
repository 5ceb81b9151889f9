package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestDiagString(t *testing.T) {
	tests := []struct {
		name string
		diag Diag
		want string
	}{
		{"a block setting names its type and label",
			Diag{File: "config.yaml", Line: 12, Col: 9, Path: "flows[0].process[1].settings.value", Kind: "set-payload", Name: "answer", Msg: "bad"},
			`config.yaml:12:9: flows[0].process[1].settings.value (set-payload "answer"): bad`},
		{"an unnamed item shows its kind alone",
			Diag{File: "config.yaml", Line: 3, Col: 5, Path: "flows[1]", Kind: "flow", Msg: "bad"},
			`config.yaml:3:5: flows[1] (flow): bad`},
		{"without a kind the parenthesis is left out even when a name is set",
			Diag{File: "config.yaml", Line: 1, Col: 1, Path: "service", Name: "x", Msg: "bad"},
			`config.yaml:1:1: service: bad`},
		{"a line without a column prints the line only",
			Diag{File: "config.yaml", Line: 4, Msg: "invalid YAML: oops"},
			`config.yaml:4: invalid YAML: oops`},
		{"a problem with the whole file prints the file only",
			Diag{File: "cfg", Msg: "config path does not exist"},
			`cfg: config path does not exist`},
		{"a bare message stays bare",
			Diag{Msg: "bad"},
			`bad`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.diag.String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestWhereBuildsPaths(t *testing.T) {
	tests := []struct {
		name string
		got  Where
		want string
	}{
		{"a field of the root has no leading dot", Where{}.Field("flows"), "flows"},
		{"indexes and fields chain", Where{}.Field("flows").Index(0).Field("process").Index(2).Field("settings"), "flows[0].process[2].settings"},
		{"a key that is not a plain word is quoted", Where{Path: "settings.headers"}.Field("X Trace/Id"), `settings.headers["X Trace/Id"]`},
		{"dashes and digits stay plain", Where{Path: "settings"}.Field("max-items2"), "settings.max-items2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got.Path != tt.want {
				t.Errorf("got %q, want %q", tt.got.Path, tt.want)
			}
		})
	}
	t.Run("label and file carry over to children", func(t *testing.T) {
		w := Where{File: "a.yaml", Path: "connectors[0]"}.Label("connector", "api").Field("settings")
		if w.File != "a.yaml" || w.Kind != "connector" || w.Name != "api" {
			t.Errorf("got %+v", w)
		}
	})
}

func TestDiagsErr(t *testing.T) {
	t.Run("no diagnostics is a nil error", func(t *testing.T) {
		var ds Diags
		if err := ds.Err(); err != nil {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("diagnostics come back sorted by file, line and column without repeats", func(t *testing.T) {
		var ds Diags
		at := Where{File: "b.yaml", Path: "x"}
		ds.Addf(&yaml.Node{Line: 3, Column: 2}, at, "third")
		ds.Addf(&yaml.Node{Line: 1, Column: 9}, at, "second")
		ds.Addf(&yaml.Node{Line: 3, Column: 2}, at, "third")
		ds.Addf(&yaml.Node{Line: 7, Column: 1}, Where{File: "a.yaml"}, "first %d", 1)
		ds.Addf(nil, Where{File: "b.yaml"}, "whole file")
		err := ds.Err()
		want := "a.yaml:7:1: first 1\nb.yaml: whole file\nb.yaml:1:9: x: second\nb.yaml:3:2: x: third"
		if err == nil || err.Error() != want {
			t.Fatalf("got\n%v\nwant\n%s", err, want)
		}
		if len(ds) != 5 || ds[0].Msg != "third" {
			t.Errorf("Err changed the collector: %v", ds)
		}
	})
	t.Run("the error unwraps to the list and to single diagnostics", func(t *testing.T) {
		err := Diags{{File: "a.yaml", Line: 1, Col: 1, Msg: "one"}, {File: "a.yaml", Line: 2, Col: 1, Msg: "two"}}.Err()
		wrapped := errors.Join(errors.New("loading"), err)
		var ds Diags
		if !errors.As(wrapped, &ds) || len(ds) != 2 {
			t.Fatalf("errors.As to Diags: %v", ds)
		}
		var d Diag
		if !errors.As(wrapped, &d) || d.Msg != "one" {
			t.Fatalf("errors.As to Diag: %+v", d)
		}
	})
}

func TestExcerptPutsACaretUnderTheColumn(t *testing.T) {
	long := strings.Repeat("a", 150) + "X" + strings.Repeat("b", 150)
	tests := []struct {
		name string
		src  string
		line int
		col  int
		want string
	}{
		{"a column in a quoted value", "flows:\n    value: '{\"city\": boddy.city}'\n", 2, 22,
			"    value: '{\"city\": boddy.city}'\n                     ^\n"},
		{"the first column", "a: b\n", 1, 1, "    a: b\n    ^\n"},
		{"just past the end of the line, where the text ended", "a: 'b\n", 1, 6, "    a: 'b\n         ^\n"},
		{"tabs stay tabs on both lines", "\tkey:\tvalue\n", 1, 7, "    key:\tvalue\n        \t^\n"},
		{"the indentation is left out", "    - a: b\n", 1, 10, "    - a: b\n         ^\n"},
		{"a column in the indentation keeps the rest of it", "    - a: b\n", 1, 3, "      - a: b\n    ^\n"},
		{"a carriage return is not shown", "a: b\r\nc: d\r\n", 2, 4, "    c: d\n       ^\n"},
		{"control characters are shown as spaces", "a: \x1b[31mred\n", 1, 4, "    a:  [31mred\n       ^\n"},
		{"a long line is cut around the column", long, 1, 151,
			"    ..." + strings.Repeat("a", 66) + "X" + strings.Repeat("b", 33) + "...\n    " + strings.Repeat(" ", 69) + "^\n"},
		{"a column counts characters, not bytes", "é: ü\n", 1, 4, "    é: ü\n       ^\n"},
		{"a wide character takes two columns", "d: 天气 boddy\n", 1, 7, "    d: 天气 boddy\n            ^\n"},
		{"a line past the end of the file", "a: b\n", 3, 1, ""},
		{"a column past the end of the line", "a: b\n", 1, 9, ""},
		{"no column", "a: b\n", 1, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Diag{Line: tt.line, Col: tt.col}.Excerpt([]byte(tt.src))
			if got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// Explain shows each diagnostic that has a column with its line, reading each file once; one
// whose file is gone, or that has no column, stays one line.
func TestExplainShowsTheLineOfEachDiagnostic(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte("service:\n  name: demo: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds := Diags{
		{File: file, Line: 2, Col: 13, Msg: "invalid YAML: mapping values are not allowed in this context"},
		{File: file, Line: 2, Msg: "no column"},
		{File: file + ".gone", Line: 1, Col: 1, Msg: "gone"},
	}
	want := file + ":2:13: invalid YAML: mapping values are not allowed in this context\n" +
		"    name: demo: x\n" +
		"              ^\n" +
		file + ":2: no column\n" +
		file + ".gone:1:1: gone\n"
	if got := ds.Explain(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

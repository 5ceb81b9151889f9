package config

import (
	"fmt"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// parseOne parses src as one document and fails on any diagnostic.
func parseOne(t *testing.T, src string) *yaml.Node {
	t.Helper()
	roots, ds := Parse("r.yaml", []byte(src))
	if len(ds) > 0 || len(roots) != 1 {
		t.Fatalf("parse: %d roots, %v", len(roots), ds)
	}
	return roots[0]
}

// text renders a node tree as YAML, to compare a resolved tree with its written-out twin.
func text(t *testing.T, n *yaml.Node) string {
	t.Helper()
	b, err := yaml.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// hasAlias reports whether any node under n is an alias or a merge key.
func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		return true
	}
	for i, c := range n.Content {
		// A merge key is a mapping's key: "<<" written as a value is only text.
		if n.Kind == yaml.MappingNode && i%2 == 0 && isMergeKey(c) || hasAlias(c) {
			return true
		}
	}
	return false
}

func TestParseResolvesAliasesAndMergeKeysLikeTheirWrittenOutTwin(t *testing.T) {
	cases := []struct{ name, aliased, written string }{
		{"an alias is a copy of its anchor", "a: &x {k: v}\nb: *x", "a: {k: v}\nb: {k: v}"},
		{"an aliased list item is a copy", "a: [&x {type: t}, *x]", "a: [{type: t}, {type: t}]"},
		{"a merge brings the keys the mapping lacks, where it stands", "base: &b {x: 1, y: 2}\nm: {<<: *b, z: 3}", "base: {x: 1, y: 2}\nm: {x: 1, y: 2, z: 3}"},
		{"keys written in the mapping win, before or after the merge", "base: &b {x: 1, y: 2}\nm: {y: 9, <<: *b, x: 8}", "base: {x: 1, y: 2}\nm: {y: 9, x: 8}"},
		{"earlier mappings of a merge list win", "a: &a {x: a}\nb: &b {x: b, y: b}\nm: {<<: [*a, *b]}", "a: {x: a}\nb: {x: b, y: b}\nm: {x: a, y: b}"},
		{"a merge may be written in place", "m: {<<: {x: 1}, y: 2}", "m: {x: 1, y: 2}"},
		{"a merged mapping's own merges are applied first", "a: &a {x: 1}\nb: &b {<<: *a, y: 2}\nm: {<<: *b}", "a: {x: 1}\nb: {x: 1, y: 2}\nm: {x: 1, y: 2}"},
		{"a quoted << is an ordinary key", "m: {'<<': 1}", "m: {'<<': 1}"},
		{"an aliased key is its text", "k: &k name\nm: {*k : v}", "k: name\nm: {name: v}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := parseOne(t, c.aliased)
			if hasAlias(got) {
				t.Fatalf("an alias or merge key is left:\n%s", text(t, got))
			}
			if g, w := text(t, got), text(t, parseOne(t, c.written)); g != w {
				t.Fatalf("got\n%swant\n%s", g, w)
			}
		})
	}
}

func TestACopyKeepsItsAnchorsPositionsAndIsItsOwnNode(t *testing.T) {
	root := parseOne(t, "a: &x\n  k: v\nb: *x\n")
	a, b := root.Content[1], root.Content[3]
	if a == b || a.Content[1] == b.Content[1] {
		t.Fatal("the alias shares nodes with its anchor")
	}
	if b.Line != a.Line || b.Column != a.Column || b.Content[1].Line != 2 || b.Content[1].Column != 6 {
		t.Fatalf("copy at %d:%d, its value at %d:%d; want the anchor's %d:%d and 2:6", b.Line, b.Column, b.Content[1].Line, b.Content[1].Column, a.Line, a.Column)
	}
	b.Content[1].Value = "changed"
	if a.Content[1].Value != "v" {
		t.Fatal("changing the copy changed the anchor")
	}
}

func TestParseReportsWhatCannotBeResolved(t *testing.T) {
	laughs := "l0: &l0 [ha, ha]\n"
	for i := 1; i <= 40; i++ {
		laughs += fmt.Sprintf("l%d: &l%d [*l%d, *l%d]\n", i, i, i-1, i-1)
	}
	cases := []struct {
		name, src string
		roots     int
		want      []string
	}{
		{"an alias inside the node it names", "a: &a {kids: [*a]}", 1,
			[]string{`r.yaml:1:15: a.kids[0]: alias *a is used inside the node it names, which would make it endless`}},
		{"a merge of text", "m: {<<: x}", 1,
			[]string{`r.yaml:1:5: m: a merge key (<<) takes a mapping or a list of mappings, got "x"`}},
		{"a merge list holding a list", "a: &a [1]\nm: {<<: [{x: 1}, *a]}", 1,
			[]string{`r.yaml:2:5: m: a merge key (<<) takes mappings, got a list`}},
		{"aliases doubling at every level", laughs, 0,
			[]string{`r.yaml:15:18: YAML aliases expand to more than 100000 nodes; write the repeated parts out, or reuse less`}},
		{"one long text used many times", "t: &t " + strings.Repeat("x", 1<<20) + "\nc: [" + strings.Repeat("*t, ", 20) + "]", 0,
			[]string{`r.yaml:2:69: YAML aliases expand to more than 16 MiB of text; write the repeated parts out, or reuse less`}},
	}
	for _, c := range cases {
		t.Run(c.name+" is reported", func(t *testing.T) {
			roots, ds := Parse("r.yaml", []byte(c.src))
			var got []string
			for _, d := range ds {
				got = append(got, d.String())
			}
			if len(roots) != c.roots || strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("%d roots, diagnostics:\n%s\nwant %d roots and:\n%s", len(roots), strings.Join(got, "\n"), c.roots, strings.Join(c.want, "\n"))
			}
			for _, r := range roots {
				if hasAlias(r) {
					t.Fatal("an alias or merge key is left")
				}
			}
		})
	}
}

func TestReuseFarBelowTheLimitsIsResolved(t *testing.T) {
	// A 50-node block used 500 times: 25,000 copied nodes, a quarter of the limit.
	var b strings.Builder
	b.WriteString("block: &b\n  type: set-payload\n  settings:\n")
	for i := range 24 {
		fmt.Fprintf(&b, "    k%d: v%d\n", i, i)
	}
	b.WriteString("uses:\n")
	for range 500 {
		b.WriteString("  - *b\n")
	}
	root := parseOne(t, b.String())
	if uses := root.Content[3]; len(uses.Content) != 500 || uses.Content[499].Content[1].Value != "set-payload" {
		t.Fatalf("uses: %d", len(uses.Content))
	}
}

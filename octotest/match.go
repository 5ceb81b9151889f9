package octotest

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/jsonv"
)

// valueOf turns a YAML value written in a test file into the JSON value it means, under the
// number rule bodies are decoded with (jsonv), so an expected 21 and an answered 21 compare
// equal. Scalars are read by their YAML type; a date stays the text written.
func valueOf(n *yaml.Node) (any, error) {
	v, err := plain(n)
	if err != nil {
		return nil, err
	}
	text, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonv.Decode(text)
}

// plain is n as Go values encoding/json writes as n means them.
func plain(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := plain(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := plain(c)
			if err != nil {
				return nil, err
			}
			l[i] = v
		}
		return l, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool", "!!int", "!!float":
			var v any
			if err := n.Decode(&v); err != nil {
				return nil, fmt.Errorf("line %d: %v", n.Line, err)
			}
			if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
				return nil, fmt.Errorf("line %d: %s is not a JSON number", n.Line, n.Value)
			}
			return v, nil
		}
		return n.Value, nil
	}
	return nil, fmt.Errorf("line %d: expected a value", n.Line)
}

// mismatch is one difference between what was expected and what came: at a path into the value.
type mismatch struct {
	path      string
	want, got string
}

func (m mismatch) String() string {
	return fmt.Sprintf("%s: expected %s, got %s", m.path, m.want, m.got)
}

// compare lists the differences between want and got, with subset semantics when subset is set
// (keys of got that want does not write are not compared, nor items past want's).
func compare(path string, want, got any, subset bool) []mismatch {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []mismatch{{path, "an object", show(got)}}
		}
		var out []mismatch
		for _, k := range slices.Sorted(maps.Keys(w)) {
			gv, ok := g[k]
			if !ok {
				out = append(out, mismatch{join(path, k), show(w[k]), "nothing (no such key)"})
				continue
			}
			out = append(out, compare(join(path, k), w[k], gv, subset)...)
		}
		if !subset {
			for _, k := range slices.Sorted(maps.Keys(g)) {
				if _, ok := w[k]; !ok {
					out = append(out, mismatch{join(path, k), "nothing (no such key)", show(g[k])})
				}
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok {
			return []mismatch{{path, "a list", show(got)}}
		}
		if len(g) < len(w) || !subset && len(g) != len(w) {
			return []mismatch{{path, fmt.Sprintf("%d items %s", len(w), show(w)), fmt.Sprintf("%d items %s", len(g), show(g))}}
		}
		var out []mismatch
		for i := range w {
			out = append(out, compare(path+"["+strconv.Itoa(i)+"]", w[i], g[i], subset)...)
		}
		return out
	}
	if !scalarEqual(want, got) {
		return []mismatch{{path, show(want), show(got)}}
	}
	return nil
}

// scalarEqual compares JSON scalars; numbers by value, whatever their Go type.
func scalarEqual(a, b any) bool {
	fa, aNum := number(a)
	fb, bNum := number(b)
	if aNum || bNum {
		return aNum && bNum && fa == fb
	}
	return a == b
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// join adds key k to a path the way paths are written in test files.
func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// show writes a value as JSON, cut short when long: a diff line names a value, it does not
// reprint the body (-v prints it whole).
func show(v any) string {
	b, err := jsonv.Append(nil, v, false)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return clip(string(b), 200)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// splitPath splits a path written in expect.paths: keys joined by dots, list indexes as keys
// (items.0.name) or in brackets (items[0].name).
func splitPath(p string) ([]string, error) {
	p = strings.NewReplacer("[", ".", "]", "").Replace(p)
	parts := strings.Split(p, ".")
	for _, s := range parts {
		if s == "" {
			return nil, errors.New("a path is keys joined by dots (items.0.name or items[0].name), none empty")
		}
	}
	return parts, nil
}

// at returns the value at path in v, and false when there is none.
func at(v any, path []string) (any, bool) {
	for _, k := range path {
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[k]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

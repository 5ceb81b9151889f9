package config

import (
	"fmt"
	"reflect"
	"time"

	"gopkg.in/yaml.v3"
)

// NodeDecoder is implemented by setting types that decode themselves, such as a value that may
// be written either as a string or as a mapping. Decode calls it with the node (aliases
// resolved, never null) and reports what it returns.
type NodeDecoder interface {
	DecodeYAMLNode(n *yaml.Node, at Where) Diags
}

// Limits that keep hostile YAML (alias bombs, self-referencing anchors) from running away.
const (
	maxAliasExpansions = 10000
	maxDepth           = 1000
	maxValues          = 1_000_000 // values decoded by one call, aliases counted each time used
)

var (
	nodePtrType     = reflect.TypeFor[*yaml.Node]()
	nodeType        = reflect.TypeFor[yaml.Node]()
	durationType    = reflect.TypeFor[time.Duration]()
	nodeDecoderType = reflect.TypeFor[NodeDecoder]()
)

// Decode decodes n strictly into out, a non-nil pointer, reporting every problem at its node:
// unknown keys (with a suggestion), wrong types, out-of-range numbers and missing keys tagged
// `octo:"required"` (a required string must also not be empty). Fields are matched by their
// `yaml:"name"` tag (`yaml:",inline"` embeds a struct's keys, `yaml:"-"` skips a field).
// Numbers and bools also accept quoted text, as `"${PORT}"` yields; durations take Go duration
// text only. Null leaves a value unset; a nil or null n decodes as an empty mapping, so required
// keys are still reported. It never stops at the first problem.
func Decode(n *yaml.Node, out any, at Where) Diags {
	d := &decoder{}
	d.decode(n, out, at)
	return d.diags
}

// decode is Decode collecting into d.
func (d *decoder) decode(n *yaml.Node, out any, at Where) {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		d.addf(n, at, "cannot decode into %T: need a non-nil pointer", out)
		return
	}
	if n != nil && n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			n = nil
		} else {
			n = n.Content[0]
		}
	}
	if isNull(d.deref(n, at)) {
		if t := indirectType(v.Type().Elem()); t.Kind() == reflect.Struct && !isSpecial(t) {
			d.missing(infoOf(t), nil, n, at)
		}
		return
	}
	d.value(v.Elem(), n, at)
}

// decoder carries the diagnostics and the limits of one Decode or Load.
type decoder struct {
	diags   Diags
	aliases int
	depth   int
	values  int
	tooBig  bool // reported once; after it nothing more is decoded
}

func (d *decoder) addf(n *yaml.Node, at Where, format string, args ...any) {
	d.diags.Addf(n, at, format, args...)
}

// deref follows aliases to the node they name, counting expansions against the limit.
func (d *decoder) deref(n *yaml.Node, at Where) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		d.aliases++
		if d.aliases > maxAliasExpansions {
			if d.aliases == maxAliasExpansions+1 {
				d.addf(n, at, "too many alias expansions (more than %d)", maxAliasExpansions)
			}
			return nil
		}
		n = n.Alias
	}
	return n
}

// value decodes n into v, which is settable.
func (d *decoder) value(v reflect.Value, n *yaml.Node, at Where) {
	orig := n
	if n = d.deref(n, at); isNull(n) {
		return // null leaves an optional value unset
	}
	d.depth++
	defer func() { d.depth-- }()
	if d.values++; d.tooBig || d.depth > maxDepth || d.values > maxValues {
		if !d.tooBig {
			d.tooBig = true
			// No path: at this depth it would be a thousand segments long.
			d.addf(orig, Where{File: at.File, Kind: at.Kind, Name: at.Name}, "too deeply nested, or too many values through aliases, to decode")
		}
		return
	}
	if v.CanAddr() && v.Addr().Type().Implements(nodeDecoderType) {
		d.diags = append(d.diags, v.Addr().Interface().(NodeDecoder).DecodeYAMLNode(n, at)...)
		return
	}
	switch v.Type() {
	case nodePtrType:
		v.Set(reflect.ValueOf(n))
		return
	case nodeType:
		v.Set(reflect.ValueOf(*n))
		return
	case durationType:
		d.duration(v, n, at)
		return
	}
	d.byKind(v, n, at)
}

func (d *decoder) byKind(v reflect.Value, n *yaml.Node, at Where) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.value(v.Elem(), n, at)
	case reflect.Interface:
		d.anyValue(v, n, at)
	case reflect.String:
		d.str(v, n, at)
	case reflect.Bool:
		d.boolean(v, n, at)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		d.integer(v, n, at)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		d.unsigned(v, n, at)
	case reflect.Float32, reflect.Float64:
		d.float(v, n, at)
	case reflect.Slice:
		d.list(v, n, at)
	case reflect.Map:
		d.mapping(v, n, at)
	case reflect.Struct:
		d.structure(v, n, at)
	default:
		d.addf(n, at, "cannot decode into %s", v.Type())
	}
}

// anyValue hands an untyped value to yaml.v3, which knows how to build maps, lists and scalars.
func (d *decoder) anyValue(v reflect.Value, n *yaml.Node, at Where) {
	if v.NumMethod() != 0 {
		d.addf(n, at, "cannot decode into %s", v.Type())
		return
	}
	var x any
	if err := n.Decode(&x); err != nil {
		d.addf(n, at, "%s", yamlMessage(err))
		return
	}
	if x != nil {
		v.Set(reflect.ValueOf(x))
	}
}

func (d *decoder) list(v reflect.Value, n *yaml.Node, at Where) {
	if n.Kind != yaml.SequenceNode {
		d.typeErr(n, at, "a list")
		return
	}
	out := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.value(out.Index(i), item, at.Index(i))
	}
	v.Set(out)
}

func (d *decoder) mapping(v reflect.Value, n *yaml.Node, at Where) {
	t := v.Type()
	if t.Key().Kind() != reflect.String {
		d.addf(n, at, "cannot decode into %s: map keys must be strings", t)
		return
	}
	if n.Kind != yaml.MappingNode {
		d.typeErr(n, at, "a mapping")
		return
	}
	pairs := d.pairs(n, at)
	out := reflect.MakeMapWithSize(t, len(pairs))
	for _, p := range pairs {
		elem := reflect.New(t.Elem()).Elem()
		d.value(elem, p.val, at.Field(p.key.Value))
		out.SetMapIndex(reflect.ValueOf(p.key.Value).Convert(t.Key()), elem)
	}
	v.Set(out)
}

func (d *decoder) structure(v reflect.Value, n *yaml.Node, at Where) {
	if n.Kind != yaml.MappingNode {
		d.typeErr(n, at, "a mapping")
		return
	}
	info := infoOf(v.Type())
	seen := make([]bool, len(info.fields))
	for _, p := range d.pairs(n, at) {
		key, kat := p.key.Value, at.Field(p.key.Value)
		i, ok := info.byName[key]
		if !ok {
			d.addf(p.key, kat, "%s", Unknown("key", key, info.names))
			continue
		}
		seen[i] = true
		f := info.fields[i]
		fv := v.FieldByIndex(f.index)
		if f.required && fv.Kind() == reflect.String {
			d.requiredString(fv.Addr().Interface(), p.val, kat, key)
			continue
		}
		if f.required && isNull(d.deref(p.val, kat)) {
			d.addf(p.val, kat, "missing value for required key %q", key)
			continue
		}
		d.value(fv, p.val, kat)
	}
	d.missing(info, seen, n, at)
}

// requiredString decodes a required string key: null or empty text is reported, because an
// empty name or type is never what the user meant.
func (d *decoder) requiredString(out any, n *yaml.Node, at Where, key string) {
	v := reflect.ValueOf(out).Elem()
	val := d.deref(n, at)
	if isNull(val) {
		d.addf(n, at, "missing value for required key %q", key)
		return
	}
	d.value(v, n, at)
	if val.Kind == yaml.ScalarNode && v.String() == "" {
		d.addf(n, at, "%q must not be empty", key)
	}
}

// missing reports the required fields that were not seen, at the mapping that lacks them.
func (d *decoder) missing(info *structInfo, seen []bool, n *yaml.Node, at Where) {
	for i, f := range info.fields {
		if f.required && (seen == nil || !seen[i]) {
			d.addf(n, at, "missing required key %q", f.name)
		}
	}
}

// pair is one key and its value in a mapping.
type pair struct{ key, val *yaml.Node }

// pairs lists a mapping's entries with merge keys (`<<: *defaults`) applied: keys written in
// the mapping win over merged ones. It reports non-string and duplicate keys.
func (d *decoder) pairs(n *yaml.Node, at Where) []pair {
	var own, merged []pair
	first := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := d.deref(n.Content[i], at), n.Content[i+1]
		switch {
		case k == nil:
			continue
		case k.Kind != yaml.ScalarNode:
			d.addf(k, at, "mapping keys must be strings, got %s", describe(k))
		case k.ShortTag() == "!!merge":
			merged = append(merged, d.merge(val, at)...)
		case first[k.Value] != nil:
			d.addf(k, at.Field(k.Value), "duplicate key %q; first declared at %s", k.Value, at.pos(first[k.Value]))
		default:
			first[k.Value] = k
			own = append(own, pair{k, val})
		}
	}
	for _, p := range merged {
		if first[p.key.Value] == nil {
			first[p.key.Value] = p.key
			own = append(own, p)
		}
	}
	return own
}

// merge returns the entries a merge key brings in: one mapping, or a list of them where earlier
// ones win.
func (d *decoder) merge(val *yaml.Node, at Where) []pair {
	val = d.deref(val, at)
	if val == nil {
		return nil
	}
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > maxDepth {
		return nil
	}
	switch val.Kind {
	case yaml.MappingNode:
		return d.pairs(val, at)
	case yaml.SequenceNode:
		var out []pair
		for _, item := range val.Content {
			if m := d.deref(item, at); m != nil && m.Kind == yaml.MappingNode {
				out = append(out, d.pairs(m, at)...)
			} else {
				d.addf(item, at, "a merge key (<<) takes mappings, got %s", describe(m))
			}
		}
		return out
	}
	d.addf(val, at, "a merge key (<<) takes a mapping or a list of mappings, got %s", describe(val))
	return nil
}

func (d *decoder) typeErr(n *yaml.Node, at Where, want string) {
	d.addf(n, at, "expected %s, got %s", want, describe(n))
}

// indirectType strips pointers, so a nil *Settings still reports its required keys.
func indirectType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// isSpecial reports struct types decoded as a whole rather than key by key.
func isSpecial(t reflect.Type) bool {
	return t == nodeType || reflect.PointerTo(t).Implements(nodeDecoderType)
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == 0 || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names what the user wrote, for "expected X, got Y" messages.
func describe(n *yaml.Node) string {
	switch {
	case isNull(n):
		return "null"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.AliasNode:
		return "an alias"
	case n.Kind == yaml.DocumentNode:
		return "a document"
	}
	v := n.Value
	if r := []rune(v); len(r) > 40 {
		v = string(r[:40]) + "…"
	}
	if n.ShortTag() == "!!str" {
		return fmt.Sprintf("%q", v)
	}
	return v
}

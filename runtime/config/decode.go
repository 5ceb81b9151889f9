package config

import (
	"fmt"
	"reflect"
	"time"

	"gopkg.in/yaml.v3"
)

// NodeDecoder is implemented by setting types that decode themselves, such as a value that may
// be written either as a string or as a mapping. Decode calls it with the node (never null) and
// reports what it returns.
type NodeDecoder interface {
	DecodeYAMLNode(n *yaml.Node, at Where) Diags
}

// maxDepth bounds how deep Decode descends, so a hostile nesting ends with a diagnostic.
const maxDepth = 1000

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
// keys are still reported. It never stops at the first problem. n comes from Parse: aliases and
// merge keys are already resolved.
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
	if isNull(n) {
		if t := indirectType(v.Type().Elem()); t.Kind() == reflect.Struct && !isSpecial(t) {
			d.missing(infoOf(t), nil, n, at)
		}
		return
	}
	d.value(v.Elem(), n, at)
}

// decoder carries the diagnostics and the depth limit of one Decode or Load.
type decoder struct {
	diags   Diags
	depth   int
	tooDeep bool // reported once; after it nothing more is decoded
}

func (d *decoder) addf(n *yaml.Node, at Where, format string, args ...any) {
	d.diags.Addf(n, at, format, args...)
}

// value decodes n into v, which is settable.
func (d *decoder) value(v reflect.Value, n *yaml.Node, at Where) {
	if isNull(n) {
		return // null leaves an optional value unset
	}
	d.depth++
	defer func() { d.depth-- }()
	if d.tooDeep || d.depth > maxDepth {
		if !d.tooDeep {
			d.tooDeep = true
			// No path: at this depth it would be a thousand segments long.
			d.addf(n, Where{File: at.File, Kind: at.Kind, Name: at.Name}, "nested more than %d levels deep, too deep to decode", maxDepth)
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
		if f.required && isNull(p.val) {
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
	if isNull(n) {
		d.addf(n, at, "missing value for required key %q", key)
		return
	}
	d.value(v, n, at)
	if n.Kind == yaml.ScalarNode && v.String() == "" {
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

// pairs lists a mapping's entries, reporting non-string and duplicate keys (merge keys are
// already applied by Parse).
func (d *decoder) pairs(n *yaml.Node, at Where) []pair {
	out := make([]pair, 0, len(n.Content)/2)
	first := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		switch {
		case k.Kind != yaml.ScalarNode:
			d.addf(k, at, "mapping keys must be strings, got %s", describe(k))
		case first[k.Value] != nil:
			d.addf(k, at.Field(k.Value), "duplicate key %q; first declared at %s", k.Value, at.pos(first[k.Value]))
		default:
			first[k.Value] = k
			out = append(out, pair{k, val})
		}
	}
	return out
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

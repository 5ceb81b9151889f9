package config

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"
)

// NodeDecoder is implemented by setting types that decode themselves from YAML. Decode calls it
// with the node (never null) and reports what it returns. It is for YAML-aware code (config
// adapters); blocks and connectors, which never see YAML, use Shaped or the runtime's typed
// settings.
type NodeDecoder interface {
	DecodeYAMLNode(n *yaml.Node, at Where) Diags
}

// Shaped is implemented by a setting that may be written in more than one shape, such as true
// or a list of origins. Shape returns where to decode a value of shape s, or nil and the problem
// to report for a shape it does not take. It is called on the zero value too, to learn which
// shapes the setting takes.
type Shaped interface {
	Shape(s Shape) (into any, problem string)
}

// Shape is the shape of a written value.
type Shape uint8

// The shapes a value may be written in.
const (
	ShapeString Shape = iota
	ShapeNumber
	ShapeBool
	ShapeList
	ShapeMapping
)

// Shapes lists every shape, in the order a schema offers them.
var Shapes = []Shape{ShapeString, ShapeNumber, ShapeBool, ShapeList, ShapeMapping}

// Hook decodes the values of the types it claims itself (the runtime's typed settings, compiled
// as they are decoded), returning false for a type it leaves to the decoder. f is the field v
// belongs to (the list's or map's, for an element); the zero HookField at the root.
type Hook func(n *yaml.Node, at Where, v reflect.Value, f HookField) (Diags, bool)

// HookField is the struct field a value being decoded belongs to: its tag, and the struct that holds
// it (a pointer to it; invalid at the root). A struct's fields are decoded in the order they are
// declared, whatever the order of the keys, so a field's hook can read the fields before it
// (a tool's branch, its inputSchema).
type HookField struct {
	Tag reflect.StructTag
	In  reflect.Value
}

// maxDepth bounds how deep Decode descends, so a hostile nesting ends with a diagnostic.
const maxDepth = 1000

var (
	nodePtrType     = reflect.TypeFor[*yaml.Node]()
	nodeType        = reflect.TypeFor[yaml.Node]()
	durationType    = reflect.TypeFor[time.Duration]()
	nodeDecoderType = reflect.TypeFor[NodeDecoder]()
	shapedType      = reflect.TypeFor[Shaped]()
)

// Decode decodes n strictly into out, a non-nil pointer, reporting every problem at its node:
// unknown keys (with a suggestion), wrong types, out-of-range numbers and missing keys tagged
// `octo:"required"` (a required string must also not be empty). Fields are matched by their
// `yaml:"name"` tag (`yaml:",inline"` embeds a struct's keys, `yaml:"-"` skips a field); the
// other tags (see fields.go) give defaults, enums and bounds. Numbers and bools also accept
// quoted text, as `"${PORT}"` yields; durations take Go duration text only. Null leaves a value
// unset; a nil or null n decodes as an empty mapping, so required keys are still reported. It
// never stops at the first problem. n comes from Parse: aliases and merge keys are already
// resolved.
func Decode(n *yaml.Node, out any, at Where) Diags {
	return (&Decoder{}).Decode(n, out, at)
}

// Decoder is Decode with the runtime's additions: a hook for the types it compiles and a table
// of where every setting was written.
type Decoder struct {
	Hook Hook
	// Positions, when not nil, gets the position of every value decoded and of every struct
	// field left out.
	Positions *Positions
	// Sources, when not nil, holds the text of the files decoded, so that a position inside a
	// setting's text is found where it was written (see Position.Inside).
	Sources Sources
	// Interpolated, when not nil, is Config.Interpolated: a position then names the variables
	// its value was made from (Position.Vars).
	Interpolated map[*yaml.Node]Interpolation
}

// Decode decodes n into out as the package's Decode does.
func (dc *Decoder) Decode(n *yaml.Node, out any, at Where) Diags {
	d := &decoder{hook: dc.Hook, pos: dc.Positions, sources: dc.Sources, interpolated: dc.Interpolated}
	d.decode(n, out, at)
	d.diags.Sort() // in the order written, though fields are decoded in the order declared
	return d.diags
}

// TypeError is the diagnostic for n written where want was expected.
func TypeError(n *yaml.Node, at Where, want string) Diag {
	return at.Diag(n, fmt.Sprintf("expected %s, got %s%s", want, describe(n), spacingHint(n)))
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
		t := indirectType(v.Type().Elem())
		if !plainStruct(t) {
			return
		}
		if e := v.Elem(); e.Kind() == reflect.Struct {
			if d.pos != nil {
				d.pos.record(e, d.sources.Position(n, at))
				d.pos.recordInline(e, d.sources.Position(n, at))
			}
			applyDefaults(e)
			d.absent(e, nil, n, at)
		}
		d.missing(infoOf(t), nil, n, at)
		return
	}
	d.value(v.Elem(), n, at)
}

// decoder carries the diagnostics and the depth limit of one Decode or Load.
type decoder struct {
	diags   Diags
	depth   int
	tooDeep bool // reported once; after it nothing more is decoded
	hook    Hook
	pos     *Positions
	sources Sources
	// interpolated is Decoder.Interpolated.
	interpolated map[*yaml.Node]Interpolation
	key          *yaml.Node // the key of the value being decoded, for its position; nil for list items
	field        HookField  // the field being decoded, for the hook
}

func (d *decoder) addf(n *yaml.Node, at Where, format string, args ...any) {
	d.diags.Addf(n, at, format, args...)
}

// value decodes n into v, which is settable.
func (d *decoder) value(v reflect.Value, n *yaml.Node, at Where) {
	if d.pos != nil {
		p := d.sources.Position(n, at)
		if d.key != nil {
			p.KeyLine, p.KeyCol = d.key.Line, d.key.Column
		}
		if in, ok := d.interpolated[n]; ok {
			p.Vars = in.Vars()
		}
		d.pos.record(v, p)
		if v.Kind() == reflect.Struct {
			d.pos.recordInline(v, p)
		}
	}
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
	if d.hook != nil {
		if ds, ok := d.hook(n, at, v, d.field); ok {
			d.diags = append(d.diags, ds...)
			return
		}
	}
	if v.CanAddr() {
		switch traitsOf(v.Type()) {
		case decodesItself:
			d.diags = append(d.diags, v.Addr().Interface().(NodeDecoder).DecodeYAMLNode(n, at)...)
			return
		case shaped:
			d.shaped(v.Addr().Interface().(Shaped), n, at)
			return
		}
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
	field := d.field
	for i, item := range n.Content {
		d.key, d.field = nil, field
		d.value(out.Index(i), item, at.Index(i))
	}
	v.Set(out)
}

// shaped decodes a value that may be written in several shapes into what s offers for n's.
func (d *decoder) shaped(s Shaped, n *yaml.Node, at Where) {
	into, problem := s.Shape(shapeOf(n))
	if into == nil {
		d.addf(n, at, "%s", problem)
		return
	}
	d.value(reflect.ValueOf(into).Elem(), n, at)
}

// shapeOf is the shape n was written in.
func shapeOf(n *yaml.Node) Shape {
	switch {
	case n.Kind == yaml.SequenceNode:
		return ShapeList
	case n.Kind == yaml.MappingNode:
		return ShapeMapping
	}
	switch n.ShortTag() {
	case "!!bool":
		return ShapeBool
	case "!!int", "!!float":
		return ShapeNumber
	}
	return ShapeString
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
	field := d.field
	for _, p := range pairs {
		elem := reflect.New(t.Elem()).Elem()
		kat := at.Field(p.key.Value)
		d.key, d.field = p.key, field
		d.value(elem, p.val, kat)
		out.SetMapIndex(reflect.ValueOf(p.key.Value).Convert(t.Key()), elem)
		if d.pos != nil {
			pos := d.sources.Position(p.val, kat)
			pos.KeyLine, pos.KeyCol = p.key.Line, p.key.Column
			d.pos.recordEntry(out, p.key.Value, pos)
		}
	}
	v.Set(out)
}

func (d *decoder) structure(v reflect.Value, n *yaml.Node, at Where) {
	if n.Kind != yaml.MappingNode {
		d.typeErr(n, at, "a mapping")
		return
	}
	info := infoOf(v.Type())
	applyDefaults(v)
	seen := make([]bool, len(info.fields))
	byField := make([]pair, len(info.fields))
	for _, p := range d.pairs(n, at) {
		i, ok := info.byName[p.key.Value]
		if !ok {
			d.addf(p.key, at.Field(p.key.Value), "%s", Unknown("key", p.key.Value, info.names))
			continue
		}
		seen[i], byField[i] = true, p
	}
	in := v.Addr()
	for i, p := range byField {
		if seen[i] {
			d.field1(&info.fields[i], v, p, at, in)
		}
	}
	d.key, d.field = nil, HookField{}
	d.absent(v, seen, n, at)
	d.missing(info, seen, n, at)
}

// field1 decodes the value of one key of a struct into its field.
func (d *decoder) field1(f *fieldInfo, v reflect.Value, p pair, at Where, in reflect.Value) {
	key, kat := p.key.Value, at.Field(p.key.Value)
	fv := v.FieldByIndex(f.Index)
	before := len(d.diags)
	d.key, d.field = p.key, HookField{Tag: f.Field.Tag, In: in}
	switch {
	case f.Required && fv.Kind() == reflect.String:
		d.requiredString(fv, p.val, kat, key)
	case f.Required && isNull(p.val):
		d.value(fv, p.val, kat) // for its position
		d.addf(p.val, kat, "missing value for required key %q", key)
	default:
		d.value(fv, p.val, kat)
	}
	if len(d.diags) == before && !isNull(p.val) {
		d.check(f, fv, p.val, kat)
	}
}

// requiredString decodes a required string key: null or empty text is reported, because an
// empty name or type is never what the user meant.
func (d *decoder) requiredString(v reflect.Value, n *yaml.Node, at Where, key string) {
	d.value(v, n, at)
	if isNull(n) {
		d.addf(n, at, "missing value for required key %q", key)
		return
	}
	if n.Kind == yaml.ScalarNode && v.String() == "" {
		d.addf(n, at, "%q must not be empty", key)
	}
}

// missing reports the required fields that were not seen, at the mapping that lacks them.
func (d *decoder) missing(info *structInfo, seen []bool, n *yaml.Node, at Where) {
	for i, f := range info.fields {
		if f.Required && (seen == nil || !seen[i]) {
			d.addf(n, at, "missing required key %q", f.Key)
		}
	}
}

// absent positions the fields of struct v that were not seen (all when seen is nil) at the
// mapping n that lacks them, with the path they would have had, and so the fields of a plain
// struct among them.
func (d *decoder) absent(v reflect.Value, seen []bool, n *yaml.Node, at Where) {
	if d.pos == nil {
		return
	}
	info := infoOf(v.Type())
	for i, f := range info.fields {
		if seen != nil && seen[i] {
			continue
		}
		fv := v.FieldByIndex(f.Index)
		p := d.sources.Position(n, at.Field(f.Key))
		p.Written = false
		d.pos.record(fv, p)
		if plainStruct(fv.Type()) {
			d.absent(fv, nil, n, at.Field(f.Key))
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

// typeErr reports n, written where want was expected. A value made from variables names them:
// the fix is in the environment (or the variable's default), not at the line.
func (d *decoder) typeErr(n *yaml.Node, at Where, want string) {
	diag := TypeError(n, at, want)
	if in, ok := d.interpolated[n]; ok {
		if vars := in.Vars(); len(vars) > 0 {
			diag.Msg += fmt.Sprintf("; it comes from %s: set %s to %s", in.Written, strings.Join(vars, " and "), want)
		}
	}
	d.diags = append(d.diags, diag)
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
	return t == nodeType || traitsOf(t) != plain
}

// traits say how a type's values decode besides by their kind.
type traits uint8

const (
	plain         traits = iota
	decodesItself        // a NodeDecoder
	shaped               // a Shaped
)

var typeTraits sync.Map // reflect.Type → traits

// traitsOf returns how values of type t decode, learnt once per type.
func traitsOf(t reflect.Type) traits {
	if tr, ok := typeTraits.Load(t); ok {
		return tr.(traits)
	}
	tr := plain
	switch p := reflect.PointerTo(t); {
	case p.Implements(nodeDecoderType):
		tr = decodesItself
	case p.Implements(shapedType):
		tr = shaped
	}
	typeTraits.Store(t, tr)
	return tr
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

package runtime

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/config"
)

// SettingsSpec describes a settings type, reflected once when a block, connector or config
// adapter registers it: what `octo blocks`, the reference and the JSON Schema are made from,
// without reading struct tags again.
type SettingsSpec struct {
	Type   reflect.Type
	Fields []*FieldSpec // the keys, in declaration order (an inline struct's keys in its place)
}

// FieldSpec describes one key, or the element of a list or map, or one shape of a setting
// written in several.
type FieldSpec struct {
	Key          string // the YAML key; "" for an element or a shape
	Type         reflect.Type
	Kind         Kind
	Doc          string
	Required     bool
	Default      string // as the tag writes it; "" for none
	Enum         []string
	EnumAnyCase  bool   // an enum entry matches without regard to case
	Min, Max     string // as the tags write them; "" for none
	MinExclusive bool   // the value must be more than Min
	Example      string
	Elem         *FieldSpec    // a list's or map's element
	Object       *SettingsSpec // an object's keys
	OneOf        []*FieldSpec  // the shapes a one-of setting takes
	Block        string        // KindSettings: the block type whose settings it holds
	// Vars, on a branch (or a list or map of them), names the vars its block sets for it: the
	// field's vars tag (`vars:"error"`).
	Vars []string
}

// Kind is how a setting is written.
type Kind string

// The kinds of settings.
const (
	KindString   Kind = "string"
	KindBool     Kind = "boolean"
	KindInt      Kind = "integer"
	KindNumber   Kind = "number"
	KindDuration Kind = "duration" // Go duration text: 250ms, 5s, 1h30m
	KindList     Kind = "list"
	KindMap      Kind = "map" // string keys
	KindObject   Kind = "object"
	KindOneOf    Kind = "one-of"
	KindAny      Kind = "any"
	// Typed settings, compiled when they are decoded.
	KindExpression       Kind = "expression"        // an expr-lang expression (Expr)
	KindTemplate         Kind = "template"          // text with {{ expression }} tags (Template)
	KindTemplateResource Kind = "template-resource" // the alias of a template resource (TemplateResource)
	KindJSON             Kind = "json"              // JSON text, or YAML written as JSON (a json.Unmarshaler)
	KindBranch           Kind = "branch"            // a nested process list (Branch)
	// KindSettings is a config adapter's section that holds the settings of block Block.
	KindSettings Kind = "settings"
)

// specs caches the spec of each settings type; building one holds the lock, so a spec is seen
// only once complete.
var specs = struct {
	sync.Mutex
	m map[reflect.Type]*SettingsSpec
}{m: map[reflect.Type]*SettingsSpec{}}

var (
	unmarshalType = reflect.TypeFor[json.Unmarshaler]()
	shapedType    = reflect.TypeFor[config.Shaped]()
	durationType  = reflect.TypeFor[time.Duration]()
	nodeType      = reflect.TypeFor[yaml.Node]()
)

// SettingsOf reflects settings type S once. A malformed tag panics: registration calls it
// from init, so every test of the program finds the mistake.
func SettingsOf[S any]() *SettingsSpec { return specOf(reflect.TypeFor[S]()) }

// SettingsType names a settings type where a block, connector, source or adapter file is
// registered (SettingsTypeOf); its spec is built the first time it is asked for, so a process
// walks the types its configs use, not every registered one (a megabyte, and half of octo's
// start, when every spec was built in init). A malformed tag then panics at that first use;
// the test that walks every registered spec finds it before a user does.
type SettingsType struct{ spec func() *SettingsSpec }

// SettingsTypeOf names S for registration.
func SettingsTypeOf[S any]() SettingsType { return SettingsType{sync.OnceValue(SettingsOf[S])} }

// Spec builds the type's spec once and returns it; nil for the zero SettingsType.
func (t SettingsType) Spec() *SettingsSpec {
	if t.spec == nil {
		return nil
	}
	return t.spec()
}

// specOf returns the cached spec of struct type t, building it on first use.
func specOf(t reflect.Type) *SettingsSpec {
	specs.Lock()
	defer specs.Unlock()
	return buildSpec(t)
}

// buildSpec is specOf under the lock. A type that holds itself (a tree) gets the spec being
// built, so the walk ends.
func buildSpec(t reflect.Type) *SettingsSpec {
	if s, ok := specs.m[t]; ok {
		return s
	}
	s := &SettingsSpec{Type: t}
	specs.m[t] = s
	defer func() {
		if r := recover(); r != nil {
			delete(specs.m, t) // a malformed tag: no half-built spec stays behind
			panic(r)
		}
	}()
	if t.Kind() != reflect.Struct || typedKind(t) != "" {
		return s
	}
	for _, k := range config.SettingsOf(t) {
		f := fieldSpec(k.Field.Type)
		f.Key, f.Doc, f.Required, f.Default, f.Example = k.Key, k.Doc, k.Required, k.Default, k.Example
		f.Enum, f.EnumAnyCase, f.Min, f.Max, f.MinExclusive = k.Enum, k.EnumAnyCase, k.Min, k.Max, k.MinExclusive
		if block := k.Field.Tag.Get("block"); block != "" {
			f.Kind, f.Block = KindSettings, block
		}
		if vars := k.Field.Tag.Get(varsTag); vars != "" {
			if !holdsBranches(f) {
				panic(fmt.Sprintf("runtime: %s.%s: a vars tag names the vars a branch starts with; the field holds no branch", t, k.Field.Name))
			}
			f.Vars = strings.Split(vars, ",")
		}
		s.Fields = append(s.Fields, f)
	}
	return s
}

// holdsBranches reports a branch, or a list or map of them.
func holdsBranches(f *FieldSpec) bool {
	for f.Elem != nil {
		f = f.Elem
	}
	return f.Kind == KindBranch
}

// fieldSpec describes a value of type t: its kind and what it holds.
func fieldSpec(t reflect.Type) *FieldSpec {
	for t.Kind() == reflect.Pointer && t.Elem() != nodeType {
		t = t.Elem()
	}
	f := &FieldSpec{Type: t, Kind: typedKind(t)}
	if f.Kind == KindOneOf {
		f.OneOf = shapesOf(t)
	}
	if f.Kind != "" {
		return f
	}
	switch t.Kind() {
	case reflect.String:
		f.Kind = KindString
	case reflect.Bool:
		f.Kind = KindBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		f.Kind = KindInt
	case reflect.Float32, reflect.Float64:
		f.Kind = KindNumber
	case reflect.Slice, reflect.Array:
		f.Kind, f.Elem = KindList, fieldSpec(t.Elem())
	case reflect.Map:
		f.Kind, f.Elem = KindMap, fieldSpec(t.Elem())
	case reflect.Struct:
		f.Kind, f.Object = KindObject, buildSpec(t)
	default:
		f.Kind = KindAny
	}
	return f
}

// typedKind is the kind of a type decoded as a whole (a typed setting, a duration, a setting of
// several shapes), or "" for one decoded by its Go kind.
func typedKind(t reflect.Type) Kind {
	switch t {
	case exprType:
		return KindExpression
	case templateType:
		return KindTemplate
	case resourceType:
		return KindTemplateResource
	case branchType:
		return KindBranch
	case durationType:
		return KindDuration
	case nodeType, reflect.PointerTo(nodeType):
		return KindAny
	}
	p := reflect.PointerTo(t)
	switch {
	case p.Implements(unmarshalType):
		return KindJSON
	case p.Implements(shapedType):
		return KindOneOf
	}
	return ""
}

// shapesOf describes the shapes a setting of type t (a config.Shaped) takes, each as what it
// decodes into.
func shapesOf(t reflect.Type) []*FieldSpec {
	zero := reflect.New(t).Interface().(config.Shaped)
	var out []*FieldSpec
	for _, s := range config.Shapes {
		if into, _ := zero.Shape(s); into != nil {
			out = append(out, fieldSpec(reflect.TypeOf(into)))
		}
	}
	return out
}

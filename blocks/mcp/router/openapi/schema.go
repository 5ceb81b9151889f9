package openapi

import (
	"bytes"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// object is a JSON object whose keys keep the order they were set in, so that a schema reads
// as people write one (type, description, properties, required) in the config.
type object []member

type member struct {
	key   string
	value any
}

func (o *object) set(key string, value any) { *o = append(*o, member{key, value}) }

func (o object) get(key string) (any, bool) {
	for _, m := range o {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// MarshalJSON writes the members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// direction says which side of the API a schema describes: what a caller sends leaves out
// readOnly properties, what the API answers leaves out writeOnly ones.
type direction int

const (
	sent direction = iota
	answered
)

// maxMembers bounds a schema written out in place: past it, or where a schema refers back to
// itself, the named schemas go under $defs instead, each once, referred to by $ref.
const maxMembers = 2000

// maxDefsMembers bounds a schema written with $defs: a description whose schemas all refer to
// one another would otherwise give every tool all of them. Past it, a named schema not yet
// defined is any value.
const maxDefsMembers = 20000

// errTooBig ends a conversion in place that outgrew maxMembers.
type errTooBig struct{}

// jsonSchema converts an OpenAPI schema (3.0's dialect or 3.1's JSON Schema) into the JSON
// Schema 2020-12 an MCP tool declares. Named schemas ($ref) are written out in place while the
// result stays small and no schema contains itself; else (useDefs) every named schema becomes
// one entry of $defs.
type jsonSchema struct {
	dir     direction
	stack   []*openapi3.Schema
	members int
	useDefs bool
	defs    map[string]string // $ref as written → its name under $defs
	pending []*openapi3.SchemaRef
}

// schemas runs build with a converter that writes named schemas in place, or, when that
// outgrows maxMembers or meets a schema that contains itself, again with one that writes them
// under $defs, which it returns for the root of what build made (nil when in place).
func schemas(dir direction, build func(c *jsonSchema)) object {
	c := &jsonSchema{dir: dir}
	if c.try(func() { build(c) }) {
		return nil
	}
	c = &jsonSchema{dir: dir, useDefs: true, defs: map[string]string{}}
	build(c)
	var defs object
	for i := 0; i < len(c.pending); i++ { // pending grows as definitions name others
		r := c.pending[i]
		defs.set(c.defs[r.Ref], c.body(r.Value))
	}
	return defs
}

// try runs build, reporting false if it gave up on writing in place.
func (c *jsonSchema) try(build func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, big := r.(errTooBig); !big {
				panic(r)
			}
			ok = false
		}
	}()
	build()
	return true
}

var notDefChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// defRef is the $ref to the named schema ref, added to $defs when first met.
func (c *jsonSchema) defRef(ref *openapi3.SchemaRef) object {
	name, ok := c.defs[ref.Ref]
	if !ok && c.members > maxDefsMembers {
		return object{} // past the bound, what is not yet defined is any value
	}
	if !ok {
		base := notDefChars.ReplaceAllString(ref.Ref[strings.LastIndexAny(ref.Ref, "/#")+1:], "_")
		name = base
		for i := 2; slices.Contains(slices.Collect(maps.Values(c.defs)), name); i++ {
			name = base + "_" + strconv.Itoa(i)
		}
		c.defs[ref.Ref] = name
		c.pending = append(c.pending, ref)
	}
	return object{{"$ref", "#/$defs/" + name}}
}

// root converts a schema that is written where it is used even when named: a tool's output,
// a parameter's, a request body's (whose properties may become arguments).
func (c *jsonSchema) root(ref *openapi3.SchemaRef) object {
	if ref == nil || ref.Value == nil {
		return object{}
	}
	c.stack = append(c.stack, ref.Value)
	defer func() { c.stack = c.stack[:len(c.stack)-1] }()
	return c.body(ref.Value)
}

func (c *jsonSchema) convert(ref *openapi3.SchemaRef) object {
	if ref == nil || ref.Value == nil {
		return object{}
	}
	if c.useDefs && ref.Ref != "" {
		return c.defRef(ref)
	}
	s := ref.Value
	if slices.Contains(c.stack, s) {
		if !c.useDefs {
			panic(errTooBig{}) // a schema that contains itself is written with $defs
		}
		return object{} // an unnamed schema that contains itself: rare; any value
	}
	if c.members++; !c.useDefs && c.members > maxMembers {
		panic(errTooBig{})
	}
	c.stack = append(c.stack, s)
	defer func() { c.stack = c.stack[:len(c.stack)-1] }()
	return c.body(s)
}

// body converts the keywords of s.
func (c *jsonSchema) body(s *openapi3.Schema) object {
	if s.Always != nil {
		if *s.Always {
			return object{}
		}
		return object{{"not", object{}}}
	}
	var o object
	if s.Type != nil && len(*s.Type) > 0 {
		types := slices.Clone([]string(*s.Type))
		if s.Nullable && !slices.Contains(types, "null") {
			types = append(types, "null")
		}
		if len(types) == 1 {
			o.set("type", types[0])
		} else {
			o.set("type", types)
		}
	}
	for _, kv := range []member{{"title", s.Title}, {"description", s.Description}, {"format", s.Format}, {"pattern", s.Pattern}} {
		if kv.value != "" {
			o.set(kv.key, kv.value)
		}
	}
	if len(s.Enum) > 0 {
		o.set("enum", s.Enum)
	}
	if s.Const != nil {
		o.set("const", s.Const)
	}
	if s.Default != nil {
		o.set("default", s.Default)
	}
	c.numbers(&o, s)
	c.lengths(&o, s)
	c.items(&o, s)
	c.properties(&o, s)
	for _, kv := range []struct {
		key  string
		refs openapi3.SchemaRefs
	}{{"allOf", s.AllOf}, {"anyOf", s.AnyOf}, {"oneOf", s.OneOf}} {
		if len(kv.refs) > 0 {
			all := make([]object, len(kv.refs))
			for i, r := range kv.refs {
				all[i] = c.convert(r)
			}
			o.set(kv.key, all)
		}
	}
	if s.Not != nil {
		o.set("not", c.convert(s.Not))
	}
	return o
}

// numbers writes the bounds of a number, 3.0's boolean exclusive bounds as 2020-12's numbers.
func (c *jsonSchema) numbers(o *object, s *openapi3.Schema) {
	bound := func(key, exclusive string, v *float64, ex openapi3.ExclusiveBound) {
		switch {
		case ex.Value != nil:
			o.set(exclusive, *ex.Value)
			if v != nil {
				o.set(key, *v)
			}
		case v != nil && ex.Bool != nil && *ex.Bool:
			o.set(exclusive, *v)
		case v != nil:
			o.set(key, *v)
		}
	}
	bound("minimum", "exclusiveMinimum", s.Min, s.ExclusiveMin)
	bound("maximum", "exclusiveMaximum", s.Max, s.ExclusiveMax)
	if s.MultipleOf != nil {
		o.set("multipleOf", *s.MultipleOf)
	}
}

func (c *jsonSchema) lengths(o *object, s *openapi3.Schema) {
	if s.MinLength > 0 {
		o.set("minLength", s.MinLength)
	}
	if s.MaxLength != nil {
		o.set("maxLength", *s.MaxLength)
	}
	if s.MinItems > 0 {
		o.set("minItems", s.MinItems)
	}
	if s.MaxItems != nil {
		o.set("maxItems", *s.MaxItems)
	}
	if s.UniqueItems {
		o.set("uniqueItems", true)
	}
	if s.MinProps > 0 {
		o.set("minProperties", s.MinProps)
	}
	if s.MaxProps != nil {
		o.set("maxProperties", *s.MaxProps)
	}
}

func (c *jsonSchema) items(o *object, s *openapi3.Schema) {
	if len(s.PrefixItems) > 0 {
		all := make([]object, len(s.PrefixItems))
		for i, r := range s.PrefixItems {
			all[i] = c.convert(r)
		}
		o.set("prefixItems", all)
	}
	if s.Items != nil {
		o.set("items", c.convert(s.Items))
	}
}

// properties writes an object's properties in their names' order, leaving out those that do
// not go this direction (and their places in required).
func (c *jsonSchema) properties(o *object, s *openapi3.Schema) {
	var skipped []string
	if len(s.Properties) > 0 {
		var props object
		for _, name := range sortedKeys(s.Properties) {
			p := s.Properties[name]
			if p != nil && p.Value != nil && (c.dir == sent && p.Value.ReadOnly || c.dir == answered && p.Value.WriteOnly) {
				skipped = append(skipped, name)
				continue
			}
			props.set(name, c.convert(p))
		}
		o.set("properties", props)
	}
	var required []string
	for _, r := range s.Required {
		if !slices.Contains(skipped, r) {
			required = append(required, r)
		}
	}
	if len(required) > 0 {
		o.set("required", required)
	}
	ap := s.AdditionalProperties
	switch {
	case ap.Has != nil:
		o.set("additionalProperties", *ap.Has)
	case ap.Schema != nil:
		o.set("additionalProperties", c.convert(ap.Schema))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// isObject reports whether a converted schema describes JSON objects only, as an MCP tool's
// inputSchema and outputSchema must.
func isObject(o object) bool {
	t, _ := o.get("type")
	return t == "object"
}

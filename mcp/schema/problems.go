package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/octo-run/octo/runtime/config"
)

// SchemaError is a schema that does not compile, said in words at the part of it at fault
// rather than as the metaschema's path: `"integr" is not a type; did you mean "integer"?` at
// /properties/n/type. A block reports it at that part of the setting (config.Position.Pointer).
type Error struct {
	Pointer string // JSON pointer into the schema: the part at fault
	Key     bool   // the fault is the last segment of Pointer as a key, not its value
	Msg     string
	// Line and Col are where the part is in the schema's text (from 1), for a schema written
	// as JSON text; 0 when unknown.
	Line, Col int
}

func (e *Error) Error() string {
	if e.Pointer == "" {
		return "schema: " + e.Msg
	}
	return fmt.Sprintf("schema at %s: %s", e.Pointer, e.Msg)
}

// Position is where e is in a schema setting written at p.
func (e *Error) Position(p config.Position) config.Position {
	q := p.Pointer(e.Pointer)
	switch {
	case q.Line == p.Line && q.Col == p.Col && e.Line > 0: // JSON text: the part inside it
		q.Line, q.Col = p.Inside(e.Line, e.Col)
	case e.Key && q.KeyLine > 0:
		q.Line, q.Col = q.KeyLine, q.KeyCol
	}
	return q
}

// locate sets where each problem is in text, and orders them as they are written there.
func (es Errors) locate(text []byte) {
	starts := writtenStarts(text)
	for _, e := range es {
		at, ok := starts[e.Pointer]
		if e.Key {
			at, ok = starts[e.Pointer+"#key"]
		}
		if ok {
			e.Line, e.Col = lineCol(text, at)
		}
	}
	slices.SortStableFunc(es, func(a, b *Error) int { return starts[a.Pointer] - starts[b.Pointer] })
}

// lineCol is where byte offset off is in text: its line and column (in characters), from 1.
func lineCol(text []byte, off int) (int, int) {
	before := text[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[lineStart:]) + 1
}

// jsonTypes are the names "type" takes.
var jsonTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// SchemaErrors are every problem of a schema, in the order they are written.
type Errors []*Error

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// metaschemaProblems say in words why text failed the metaschema: each part that failed, once,
// in the order written. Nil when err is not the metaschema's.
func metaschemaProblems(err error, text []byte) Errors {
	ve, ok := errors.AsType[*jsonschema.ValidationError](err)
	if !ok {
		return nil
	}
	var root any
	_ = json.Unmarshal(text, &root) // it compiled as far as the metaschema: it is JSON
	var out Errors
	seen := map[string]bool{}
	for _, leaf := range leaves(ve, nil) {
		e := metaschemaProblem(leaf, root)
		if !seen[e.Pointer] {
			seen[e.Pointer] = true
			out = append(out, e)
		}
	}
	out.locate(text)
	return out
}

// metaschemaProblem says in words what is wrong at one failure of the metaschema.
func metaschemaProblem(leaf *jsonschema.ValidationError, schema any) *Error {
	ptr := strings.TrimPrefix(leaf.InstanceLocation, "#")
	segs := config.PointerSegments(ptr)
	if typePtr, ok := typeKeyword(segs); ok {
		if e := typeProblem(typePtr, valueAt(schema, typePtr)); e != nil {
			return e
		}
	}
	name := "the schema"
	if len(segs) > 0 {
		name = strconv.Quote(segs[len(segs)-1])
	}
	return &Error{Pointer: ptr, Msg: name + " " + inWords(keyword(leaf.KeywordLocation), leaf.Message)}
}

// leaves are the failures ve comes down to; an anyOf or oneOf whose branches all failed is
// one: listing every branch's complaint would mislead.
func leaves(ve *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if kw := keyword(ve.KeywordLocation); len(ve.Causes) == 0 || kw == "anyOf" || kw == "oneOf" {
		return append(out, ve)
	}
	for _, c := range ve.Causes {
		out = leaves(c, out)
	}
	return out
}

// writtenStarts is the byte offset in text where the value of each JSON pointer starts, and
// where each key starts (its pointer with #key).
func writtenStarts(text []byte) map[string]int {
	starts := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(text))
	// valueStart is where the next token starts: past the separators InputOffset leaves.
	valueStart := func() int {
		off := int(dec.InputOffset())
		for off < len(text) && strings.IndexByte(" \t\r\n:,", text[off]) >= 0 {
			off++
		}
		return off
	}
	var walk func(ptr string)
	walk = func(ptr string) {
		starts[ptr] = valueStart()
		tok, err := dec.Token()
		if err != nil {
			return
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				keyAt := valueStart()
				k, err := dec.Token()
				if err != nil {
					return
				}
				key, _ := k.(string)
				starts[ptr+joinPointer(key)+"#key"] = keyAt
				walk(ptr + joinPointer(key))
			}
			_, _ = dec.Token()
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				walk(ptr + "/" + strconv.Itoa(i))
			}
			_, _ = dec.Token()
		}
	}
	walk("")
	return starts
}

// typeProblem says what is wrong with the value v of a "type" at ptr: a name that is no
// type's, or something that is neither a name nor a list of them. Nil when nothing is.
func typeProblem(ptr string, v any) *Error {
	switch v := v.(type) {
	case string:
		if slices.Contains(jsonTypes, v) {
			return nil
		}
		msg := fmt.Sprintf("%q is not a type", v)
		if s := config.Suggest(v, jsonTypes); s != "" {
			return &Error{Pointer: ptr, Msg: msg + fmt.Sprintf("; did you mean %q?", s)}
		}
		return &Error{Pointer: ptr, Msg: msg + "; the types are " + strings.Join(jsonTypes, ", ")}
	case []any:
		for i, item := range v {
			if e := typeProblem(ptr+"/"+strconv.Itoa(i), item); e != nil {
				return e
			}
		}
		return nil
	}
	return &Error{Pointer: ptr, Msg: "\"type\" must be a type's name (" + strings.Join(jsonTypes, ", ") + ") or a list of them"}
}

// inWords rewrites the metaschema's message for keyword kw as the end of a sentence whose
// subject is the setting at fault.
func inWords(kw, msg string) string {
	if want, got, ok := strings.Cut(strings.TrimPrefix(msg, "expected "), ", but got "); ok && kw == "type" {
		return "must be " + article(want) + ", not " + article(got)
	}
	if bound, found, ok := strings.Cut(strings.TrimPrefix(msg, "must be "), " but found "); ok {
		return "must be " + bound + ", not " + found
	}
	return "is wrong: " + msg
}

// article is a JSON type's name as a noun: an array, a string, null.
func article(t string) string {
	switch t {
	case "null":
		return "null"
	case "array", "object", "integer":
		return "an " + t
	}
	return "a " + t
}

// joinPointer is the JSON pointer of segs.
func joinPointer(segs ...string) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// valueAt is the value at ptr in the decoded JSON v; nil when there is none.
func valueAt(v any, ptr string) any {
	for _, seg := range config.PointerSegments(ptr) {
		switch c := v.(type) {
		case map[string]any:
			v = c[seg]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

// typeKeyword is the pointer of the "type" keyword that segs are (/properties/n/type) or an
// item of (/properties/n/type/1), and whether they are: a property named type is not.
func typeKeyword(segs []string) (string, bool) {
	n := len(segs)
	if n > 1 && segs[n-2] == "type" {
		if _, err := strconv.Atoi(segs[n-1]); err == nil {
			segs, n = segs[:n-1], n-1
		}
	}
	if n == 0 || segs[n-1] != "type" {
		return "", false
	}
	if n > 1 && slices.Contains(namedSchemas, segs[n-2]) {
		return "", false // a property, definition... named type
	}
	return joinPointer(segs...), true
}

// Where a schema holds schemas: under these keywords, a mapping of them by name...
var namedSchemas = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}

// ...one schema...
var oneSchema = []string{"items", "additionalProperties", "additionalItems", "not", "if", "then", "else",
	"contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema"}

// ...or a list of them.
var schemaLists = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}

// keywords are those of JSON Schema 2020-12 and draft-07, which a client may read.
var keywords = []string{"$schema", "$id", "$ref", "$defs", "$anchor", "$dynamicRef", "$dynamicAnchor",
	"$vocabulary", "$comment", "definitions", "type", "enum", "const", "multipleOf", "maximum",
	"exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern",
	"maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties",
	"minProperties", "required", "dependentRequired", "properties", "patternProperties",
	"additionalProperties", "propertyNames", "items", "prefixItems", "additionalItems", "contains",
	"unevaluatedItems", "unevaluatedProperties", "dependentSchemas", "dependencies", "allOf",
	"anyOf", "oneOf", "not", "if", "then", "else", "format", "contentEncoding", "contentMediaType",
	"contentSchema", "title", "description", "default", "deprecated", "readOnly", "writeOnly",
	"examples"}

// misspeltKeyword finds the first key of a schema in text that is no keyword but is close to
// one (requird, minLenght): JSON Schema ignores a key it does not know, so the rule it meant
// would silently not hold. A key close to none (an x-mcp-header, an annotation of one's own) is
// left alone.
func misspeltKeywords(text []byte) Errors {
	var root any
	if json.Unmarshal(text, &root) != nil {
		return nil
	}
	out := misspeltIn(root, "", nil)
	out.locate(text)
	return out
}

func misspeltIn(schema any, ptr string, out Errors) Errors {
	obj, ok := schema.(map[string]any)
	if !ok {
		return out
	}
	for _, k := range sortedKeys(obj) {
		at := ptr + joinPointer(k)
		if !slices.Contains(keywords, k) && !strings.HasPrefix(k, "x-") {
			if s := config.Suggest(k, keywords); s != "" {
				out = append(out, &Error{Pointer: at, Key: true,
					Msg: fmt.Sprintf("%q is not a JSON Schema keyword (did you mean %q?)", k, s)})
			}
			continue
		}
		switch v := obj[k].(type) {
		case map[string]any:
			switch {
			case slices.Contains(namedSchemas, k):
				for _, name := range sortedKeys(v) {
					out = misspeltIn(v[name], at+joinPointer(name), out)
				}
			case slices.Contains(oneSchema, k):
				out = misspeltIn(v, at, out)
			}
		case []any:
			if slices.Contains(schemaLists, k) {
				for i, item := range v {
					out = misspeltIn(item, at+"/"+strconv.Itoa(i), out)
				}
			}
		}
	}
	return out
}

// sortedKeys are obj's keys sorted; locate puts the problems in the order written.
func sortedKeys(obj map[string]any) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ReportSchemaProblems reports err, the problem of a schema setting written at p: each
// *SchemaError at the part at fault, anything else at the setting.
func ReportProblems(p config.Position, err error, report func(at config.Position, msg string)) {
	es, ok := errors.AsType[Errors](err)
	if !ok {
		if e, one := errors.AsType[*Error](err); one {
			es = Errors{e}
		}
	}
	if len(es) == 0 {
		report(p, err.Error())
	}
	for _, e := range es {
		report(e.Position(p), e.Msg)
	}
}

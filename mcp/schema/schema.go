// Package schema compiles the JSON Schemas of MCP tools (input and output) once, at build
// time, and checks arguments against them with messages a model can act on: a quick check for
// the common flat schemas, the full validator (santhosh-tekuri/jsonschema) for the rest. It
// reads the 2026-07-28 x-mcp-header annotations, and says what is wrong with a schema a user
// wrote in words, at the part at fault.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/runtime/jsonv"
)

// Schema is a tool's input (or output) JSON Schema, compiled once at build
// time and kept as text for tools/list.
type Schema struct {
	raw      json.RawMessage
	headers  []ParamHeader // the x-mcp-header arguments (2026-07-28)
	compiled *jsonschema.Schema
	quick    *quickSchema // nil unless the schema is simple enough
}

// schemaURL names the in-memory resource; relative $refs resolve against it.
const schemaURL = "mem:///input-schema.json"

// CompileSchema compiles an object schema. Empty text means {"type":"object"}.
// The dialect is JSON Schema 2020-12 unless "$schema" says otherwise; remote
// $refs are refused so building never touches the network. x-mcp-header
// annotations must follow SEP-2243 (see ParamHeaders).
func Compile(text []byte) (*Schema, error) {
	text = bytes.TrimSpace(text)
	if len(text) == 0 {
		text = DefaultInput
	}
	if !jsonv.Valid(text) {
		var v any
		err := json.Unmarshal(text, &v)
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	if off := jsonscan.NestingOffset(text, jsonrpc.MaxDepth); off >= 0 {
		return nil, fmt.Errorf("schema nests deeper than %d levels at offset %d", jsonrpc.MaxDepth, off)
	}
	if err := checkObjectRoot(text); err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("remote schema reference %q is not allowed", u)
	}
	if err := c.AddResource(schemaURL, bytes.NewReader(text)); err != nil {
		return nil, fmt.Errorf("schema: %s", strings.TrimPrefix(err.Error(), "jsonschema: "))
	}
	compiled, err := c.Compile(schemaURL)
	if err != nil {
		if es := metaschemaProblems(err, text); len(es) > 0 {
			return nil, es
		}
		return nil, fmt.Errorf("schema: %s", strings.TrimPrefix(err.Error(), "jsonschema: "))
	}
	if es := misspeltKeywords(text); len(es) > 0 {
		return nil, es
	}
	headers, err := paramHeaders(text)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return &Schema{raw: json.RawMessage(text), headers: headers, compiled: compiled, quick: compileQuick(text)}, nil
}

// checkObjectRoot insists on a root "type": "object", which MCP clients
// require of every inputSchema (mcp-protocol.md §10 #11).
func checkObjectRoot(text []byte) error {
	var typ []byte
	if !jsonscan.EachMember(text, func(key, val []byte) bool {
		if string(jsonscan.KeyText(key)) == "type" {
			typ = val
		}
		return true
	}) {
		return fmt.Errorf("schema must be a JSON object with \"type\": \"object\", got %s", jsonscan.Kind(text))
	}
	if t, _ := jsonscan.Unquote(typ); t != "object" {
		if typ == nil {
			return errors.New(`schema root must have "type": "object"`)
		}
		es := Errors{{Pointer: "/type", Msg: fmt.Sprintf(`the root "type" must be "object" (MCP clients require it), not %s`, typ)}}
		es.locate(text)
		return es
	}
	return nil
}

// Raw returns the schema text as given, for listing.
func (s *Schema) Raw() json.RawMessage { return s.raw }

// Validate checks tool arguments (a raw JSON object; empty means {}). The
// error, an *ArgumentError, names the offending fields in words a model can
// act on.
func (s *Schema) Validate(args json.RawMessage) error {
	if jsonscan.IsNull(args) {
		args = jsonrpc.EmptyObject
	}
	v, err := jsonv.Decode(args)
	if err != nil {
		return &ArgumentError{Problems: []string{decodeProblem(err)}}
	}
	return s.ValidateValue(v)
}

// ValidateValue checks an already-decoded JSON value (nil, bool, numbers,
// string, []any, map[string]any); other Go types go through JSON first.
func (s *Schema) ValidateValue(v any) error {
	if !plainJSON(v) {
		b, err := json.Marshal(v)
		if err != nil {
			return &ArgumentError{Problems: []string{err.Error()}}
		}
		return s.Validate(b)
	}
	if s.quick != nil && s.quick.valid(v) {
		return nil
	}
	err := s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &ArgumentError{Problems: []string{err.Error()}}
	}
	return &ArgumentError{Problems: describe(ve)}
}

// decodeProblem words why arguments did not decode: a number the number
// rule refuses names itself; anything else is not JSON.
func decodeProblem(err error) string {
	var ne *jsonv.NumberError
	if errors.As(err, &ne) {
		return err.Error()
	}
	return "arguments are not valid JSON: " + err.Error()
}

// ArgumentError lists why arguments failed a schema, one sentence each.
type ArgumentError struct {
	Problems []string
}

// Error joins the problems with "; ".
func (e *ArgumentError) Error() string { return strings.Join(e.Problems, "; ") }

func plainJSON(v any) bool {
	switch v := v.(type) {
	case nil, bool, string, float64, int, int64, json.Number:
		return true
	case []any:
		for _, e := range v {
			if !plainJSON(e) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range v {
			if !plainJSON(e) {
				return false
			}
		}
		return true
	}
	return false
}

// PropertyNames lists the top-level properties a schema declares, sorted, when they are the
// only keys an object that matches it has: false when it declares none, or allows others
// (additionalProperties true or a schema, patternProperties, or properties brought in by
// $ref, allOf, anyOf, oneOf, if, dependentSchemas or unevaluatedProperties). A client sends
// what the schema lists, so a key outside it is a mistake where the list is complete.
func (s *Schema) PropertyNames() ([]string, bool) {
	if s == nil {
		return nil, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(s.raw, &top) != nil {
		return nil, false
	}
	for _, k := range []string{"patternProperties", "$ref", "$dynamicRef", "allOf", "anyOf", "oneOf", "if", "dependentSchemas", "unevaluatedProperties"} {
		if _, open := top[k]; open {
			return nil, false
		}
	}
	if ap, ok := top["additionalProperties"]; ok && string(bytes.TrimSpace(ap)) != "false" {
		return nil, false
	}
	var props map[string]json.RawMessage
	if json.Unmarshal(top["properties"], &props) != nil || len(props) == 0 {
		return nil, false
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	return names, true
}

// DefaultInput is the input schema of a tool that declares none: any object.
var DefaultInput = json.RawMessage(`{"type":"object"}`)

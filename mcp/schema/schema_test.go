package schema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestCompileSchema(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		wantErr string
		wantRaw string
	}{
		{"an empty schema means a plain object", "", "", `{"type":"object"}`},
		{"the text is kept as given, key order included", `{"type":"object","properties":{"z":{},"a":{}}}`, "",
			`{"type":"object","properties":{"z":{},"a":{}}}`},
		{"a draft-07 schema is accepted", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, "", ""},
		{"local references compile", `{"type":"object","$defs":{"c":{"type":"string"}},"properties":{"city":{"$ref":"#/$defs/c"}}}`, "", ""},
		{"invalid JSON is refused", `{"type":`, "schema is not valid JSON", ""},
		{"a non-object schema is refused", `[1]`, `schema must be a JSON object with "type": "object", got array`, ""},
		{"a schema without type is refused", `{"properties":{}}`, `schema root must have "type": "object"`, ""},
		{"a string-typed root is refused", `{"type":"string"}`, `schema at /type: the root "type" must be "object" (MCP clients require it), not "string"`, ""},
		{"a type list is refused", `{"type":["object","null"]}`, `must be "object" (MCP clients require it), not ["object","null"]`, ""},
		{"an invalid keyword value is refused", `{"type":"object","minProperties":"x"}`, `schema at /minProperties: "minProperties" must be an integer, not a string`, ""},
		{"a misspelt type is named with the one meant", `{"type":"object","properties":{"n":{"type":"integr"}}}`, `schema at /properties/n/type: "integr" is not a type; did you mean "integer"?`, ""},
		{"a misspelt type in a list is named", `{"type":"object","properties":{"n":{"type":["string","nul"]}}}`, `schema at /properties/n/type/1: "nul" is not a type; did you mean "null"?`, ""},
		{"a type no name is near lists the types", `{"type":"object","properties":{"n":{"type":"zzz"}}}`, `"zzz" is not a type; the types are array, boolean, integer, null, number, object, string`, ""},
		{"a property named type is not a type", `{"type":"object","properties":{"type":{"type":"string","minLength":-1}}}`, `schema at /properties/type/minLength: "minLength" must be >= 0, not -1`, ""},
		{"every problem is told, in the order written", `{"type":"object","required":"a","properties":{"n":{"type":"integr"}}}`, `schema at /required: "required" must be an array, not a string; schema at /properties/n/type: "integr" is not a type; did you mean "integer"?`, ""},
		{"a misspelt keyword is named with the one meant", `{"type":"object","properties":{"n":{"type":"string","minLenght":1}},"requird":["n"]}`, `schema at /properties/n/minLenght: "minLenght" is not a JSON Schema keyword (did you mean "minLength"?); schema at /requird: "requird" is not a JSON Schema keyword (did you mean "required"?)`, ""},
		{"a key near no keyword is an annotation, left alone", `{"type":"object","x-note":"X","myNote":"hi","properties":{"n":{"type":"string","x-mcp-header":"N"}}}`, "", ""},
		{"a remote reference is refused without fetching", `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`,
			`remote schema reference "https://example.com/s.json" is not allowed`, ""},
		{"a schema nesting past the limit is refused", `{"type":"object","x":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`,
			"schema nests deeper than 64 levels", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile([]byte(tt.text))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantRaw != "" && string(s.Raw()) != tt.wantRaw {
				t.Fatalf("Raw() = %s, want %s", s.Raw(), tt.wantRaw)
			}
		})
	}
}

const orderSchema = `{
  "type": "object",
  "properties": {
    "city": {"type": "string"},
    "days": {"type": "integer", "minimum": 1, "maximum": 14},
    "unit": {"enum": ["C", "F"]},
    "address": {"type": "object", "properties": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}}, "required": ["street", "zip"]},
    "tags": {"type": "array", "items": {"type": "string"}},
    "contact": {"anyOf": [{"type": "string", "format": "email"}, {"type": "integer"}]},
    "secret": false,
    "it's \"odd\"": {"type": "boolean"}
  },
  "required": ["city", "it's \"odd\""],
  "additionalProperties": {"type": ["string", "number", "boolean", "object", "array"]}
}`

func TestSchemaValidate(t *testing.T) {
	s, err := Compile([]byte(orderSchema))
	if err != nil {
		t.Fatal(err)
	}
	closed, err := Compile([]byte(`{"type":"object","properties":{"a":{}},"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	ok := `"city":"Lisbon","it's \"odd\"":true`
	tests := []struct {
		name   string
		schema *Schema
		args   string
		want   string // "" when valid
	}{
		{"valid arguments pass", s, `{` + ok + `,"days":3,"unit":"C","tags":["a"]}`, ""},
		{"a whole number written as a float is an integer", s, `{` + ok + `,"days":3.0}`, ""},
		{"a missing required argument is named", s, `{"it's \"odd\"":true}`, `missing required argument "city"`},
		{"several missing required arguments are all named", s, `{}`,
			`missing required argument "city"; missing required argument "it's \"odd\""`},
		{"absent arguments count as an empty object", s, ``,
			`missing required argument "city"; missing required argument "it's \"odd\""`},
		{"a wrong type names the argument", s, `{` + ok + `,"city":7}`, `argument "city": expected string, got number`},
		{"a fraction where an integer is expected is named", s, `{` + ok + `,"days":1.5}`, `argument "days": expected integer, got number`},
		{"a bound is explained", s, `{` + ok + `,"days":0}`, `argument "days": must be >= 1 but found 0`},
		{"an enum lists its values", s, `{` + ok + `,"unit":"K"}`, `argument "unit": value must be one of "C", "F"`},
		{"nested fields are named by path", s, `{` + ok + `,"address":{"zip":"12"}}`,
			`missing required argument "address.street"; argument "address.zip": does not match pattern '^[0-9]{5}$'`},
		{"array items are named by index", s, `{` + ok + `,"tags":["a",2]}`, `argument "tags[1]": expected string, got number`},
		{"alternatives are summarised", s, `{` + ok + `,"contact":true}`, `argument "contact": matches none of the allowed alternatives`},
		{"a forbidden property is unexpected", s, `{` + ok + `,"secret":1}`, `unexpected argument "secret"`},
		{"an additional property of the wrong type is named", s, `{` + ok + `,"extra":null}`,
			`argument "extra": expected string or number or boolean or object or array, got null`},
		{"closed schemas name unexpected arguments", closed, `{"a":1,"b":2}`, `unexpected argument "b"`},
		{"a non-object is refused at the root", s, `[1]`, `arguments: expected object, got array`},
		{"malformed JSON is reported", s, `{"a":`, `arguments are not valid JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.schema.Validate(json.RawMessage(tt.args))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			var ae *ArgumentError
			if !errors.As(err, &ae) {
				t.Fatalf("Validate = %v, want an *ArgumentError", err)
			}
			if got := err.Error(); got != tt.want && !(strings.HasSuffix(tt.want, "JSON") && strings.HasPrefix(got, tt.want)) {
				t.Fatalf("Validate =\n%s\nwant\n%s", err, tt.want)
			}
		})
	}
}

func TestDescribeCapsItsList(t *testing.T) {
	props := make([]string, 0, 12)
	req := make([]string, 0, 12)
	for _, n := range "abcdefghijkl" {
		props = append(props, `"`+string(n)+`":{}`)
		req = append(req, `"`+string(n)+`"`)
	}
	s, err := Compile([]byte(`{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Validate(json.RawMessage(`{}`))
	var ae *ArgumentError
	if !errors.As(err, &ae) || len(ae.Problems) != maxProblems+1 || ae.Problems[maxProblems] != "and 4 more" {
		t.Fatalf("Validate = %v", err)
	}
}

func TestQuotedNames(t *testing.T) {
	tests := []struct {
		name, msg string
		want      []string
	}{
		{"plain names are read", `missing properties: 'a', 'b'`, []string{"a", "b"}},
		{"an escaped single quote is read", `missing properties: 'it\'s'`, []string{"it's"}},
		{"a bare double quote is read", `missing properties: 'say "hi"'`, []string{`say "hi"`}},
		{"a backslash is read", `missing properties: 'back\\slash'`, []string{`back\slash`}},
		{"unicode escapes are read", `missing properties: 'tab\there'`, []string{"tab\there"}},
		{"no quotes give no names", `nothing here`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := quotedNames(tt.msg)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Fatalf("quotedNames(%q) = %q, want %q", tt.msg, got, tt.want)
			}
		})
	}
}

func BenchmarkSchemaValidate(b *testing.B) {
	s, err := Compile([]byte(orderSchema))
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"city":"Lisbon","it's \"odd\"":true,"days":3,"unit":"C","tags":["a","b"],"address":{"street":"x","zip":"12345"}}`)
	bad := json.RawMessage(`{"city":7,"it's \"odd\"":true,"days":0}`)
	b.Run("valid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Validate(args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("invalid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Validate(bad); err == nil {
				b.Fatal("want an error")
			}
		}
	})
}

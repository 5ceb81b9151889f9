package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

// routeSchema mirrors region, the nested target.zone, count and dry.
const routeSchema = `{"type":"object","properties":{
	"region":{"type":"string","x-mcp-header":"Region"},
	"target":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},
	"count":{"type":"integer","x-mcp-header":"Count"},
	"dry":{"type":"boolean","x-mcp-header":"Dry"},
	"query":{"type":"string"}}}`

func TestSchemaParamHeaders(t *testing.T) {
	sc, err := Compile([]byte(routeSchema))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(sc.ParamHeaders())
	want := `[{"Name":"Count","Path":["count"]},{"Name":"Dry","Path":["dry"]},{"Name":"Region","Path":["region"]},{"Name":"Zone","Path":["target","zone"]}]`
	if string(got) != want {
		t.Fatalf("ParamHeaders = %s\nwant %s", got, want)
	}
	if s, err := Compile([]byte(`{"type":"object","properties":{"a":{"type":"string","default":{"x-mcp-header":1}}}}`)); err != nil || s.ParamHeaders() != nil {
		t.Fatalf("a default holding the keyword is data: %v %v", s.ParamHeaders(), err)
	}
}

// A schema whose annotations break SEP-2243 does not compile: clients would drop the tool.
func TestSchemaParamHeadersRefused(t *testing.T) {
	prop := func(p string) string { return `{"type":"object","properties":{` + p + `}}` }
	cases := []struct{ name, schema, want string }{
		{"empty", prop(`"a":{"type":"string","x-mcp-header":""}`), `x-mcp-header "" at /properties/a must be a non-empty HTTP header name token`},
		{"space", prop(`"a":{"type":"string","x-mcp-header":"My Region"}`), `"My Region" at /properties/a must be a non-empty HTTP header name token`},
		{"colon", prop(`"a":{"type":"string","x-mcp-header":"Region:Primary"}`), `must be a non-empty HTTP header name token`},
		{"non-ASCII", prop(`"a":{"type":"string","x-mcp-header":"Région"}`), `must be a non-empty HTTP header name token`},
		{"tab", prop(`"a":{"type":"string","x-mcp-header":"Region\t1"}`), `must be a non-empty HTTP header name token`},
		{"not a string", prop(`"a":{"type":"string","x-mcp-header":7}`), `x-mcp-header at /properties/a must be a string, got number`},
		{"number", prop(`"a":{"type":"number","x-mcp-header":"Score"}`), `the property's type must be "string", "integer" or "boolean"`},
		{"object", prop(`"a":{"type":"object","x-mcp-header":"Data"}`), `the property's type must be`},
		{"array", prop(`"a":{"type":"array","items":{"type":"string"},"x-mcp-header":"Items"}`), `the property's type must be`},
		{"null", prop(`"a":{"type":"null","x-mcp-header":"Nil"}`), `the property's type must be`},
		{"no type", prop(`"a":{"x-mcp-header":"A"}`), `the property's type must be`},
		{"two types", prop(`"a":{"type":["string","integer"],"x-mcp-header":"A"}`), `the property's type must be`},
		{"a type list with null", prop(`"a":{"type":["string","null"],"x-mcp-header":"A"}`), `(one of them, not a list;`},
		{"same name", prop(`"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"Region"}`),
			`x-mcp-header "Region" at /properties/b repeats the one at /properties/a`},
		{"same name in another case", prop(`"a":{"type":"string","x-mcp-header":"MyField"},"b":{"type":"string","x-mcp-header":"myfield"}`),
			`"myfield" at /properties/b repeats the one at /properties/a (names are compared regardless of case)`},
		{"under items", prop(`"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}`),
			`x-mcp-header "A" at /properties/a/items: only a property reached from the root through "properties" alone`},
		{"under $defs", `{"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"D"}},"properties":{"a":{"$ref":"#/$defs/d"}}}`,
			`at /$defs/d: only a property reached`},
		{"under allOf", `{"type":"object","allOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`,
			`at /allOf/0/properties/a: only a property reached`},
		{"on the root", `{"type":"object","x-mcp-header":"Root"}`, `x-mcp-header "Root" at /: only a property reached`},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile([]byte(tt.schema))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant one with %s", err, tt.want)
			}
		})
	}
}

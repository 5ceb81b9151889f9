package schema

import (
	"encoding/json"
	"testing"
)

func TestTheQuickCheckNeverPassesWhatTheValidatorRefuses(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"city":{"type":"string","description":"City name"}},"required":["city"]}`,
		`{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"number"},"ok":{"type":"boolean"},"z":{"type":"null"}},"additionalProperties":false}`,
		`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}},"addr":{"type":"object","properties":{"zip":{"type":"string"}},"required":["zip"]}}}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","title":"t","properties":{}}`,
	}
	values := []string{
		`{}`, `{"city":"Lisbon"}`, `{"city":3}`, `{"city":null}`, `{"city":"a","extra":1}`,
		`{"n":1}`, `{"n":1.5}`, `{"n":"1"}`, `{"x":1e300}`, `{"ok":true}`, `{"ok":"true"}`, `{"z":null}`, `{"z":0}`, `{"q":1}`,
		`{"tags":[]}`, `{"tags":["a","b"]}`, `{"tags":["a",1]}`, `{"tags":"a"}`,
		`{"addr":{}}`, `{"addr":{"zip":"1000"}}`, `{"addr":{"zip":1000}}`, `{"addr":[]}`,
	}
	for _, sc := range schemas {
		s, err := Compile([]byte(sc))
		if err != nil {
			t.Fatal(err)
		}
		if s.quick == nil {
			t.Fatalf("a simple schema got no quick check: %s", sc)
		}
		for _, raw := range values {
			var v any
			if err := json.Unmarshal([]byte(raw), &v); err != nil {
				t.Fatal(err)
			}
			quick, full := s.quick.valid(v), s.compiled.Validate(v) == nil
			if quick && !full {
				t.Errorf("schema %s: quick check passed %s, which the validator refuses", sc, raw)
			}
			if full && !quick {
				t.Errorf("schema %s: quick check sent the valid %s to the slow path", sc, raw)
			}
		}
	}
}

func TestSchemasWithOtherKeywordsUseTheFullValidator(t *testing.T) {
	for _, sc := range []string{
		`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`,
		`{"type":"object","properties":{"c":{"enum":["a","b"]}}}`,
		`{"type":"object","additionalProperties":{"type":"string"}}`,
		`{"type":"object","properties":{"t":{"type":["string","null"]}}}`,
		`{"type":"object","$defs":{"a":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/a"}}}`,
	} {
		s, err := Compile([]byte(sc))
		if err != nil {
			t.Fatal(err)
		}
		if s.quick != nil {
			t.Errorf("schema %s got a quick check it cannot honour", sc)
		}
	}
}

// Arguments decode integers as int (jsonv.Decode); they are numbers
// and integers to the quick check as they are to the validator.
func TestTheQuickCheckTakesIntegersAsInt(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"number"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []map[string]any{{"n": 1}, {"n": 9007199254740993}, {"x": -9007199254740993}} {
		if quick, full := s.quick.valid(v), s.compiled.Validate(v) == nil; !quick || !full {
			t.Errorf("%v: quick %v, validator %v; want both to pass", v, quick, full)
		}
	}
}

package reference

import (
	"encoding/json"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime"
)

// enum describes a string that takes one of f's enum (in any case, with EnumAnyCase).
func enum(f *runtime.FieldSpec) *obj {
	s := newObj().set("enum", f.Enum)
	if !f.EnumAnyCase {
		return s
	}
	alts := make([]string, len(f.Enum))
	for i, e := range f.Enum {
		alts[i] = caseless(e)
	}
	pattern := newObj().set("type", "string").set("pattern", "^("+strings.Join(alts, "|")+")$")
	return newObj().set("anyOf", []any{s, pattern})
}

// caseless is a pattern matching s in any case: get is [Gg][Ee][Tt].
func caseless(s string) string {
	var b strings.Builder
	for _, r := range s {
		lo, up := strings.ToLower(string(r)), strings.ToUpper(string(r))
		if lo == up {
			b.WriteString(regexp.QuoteMeta(string(r)))
			continue
		}
		b.WriteString("[" + up + lo + "]")
	}
	return b.String()
}

// bounds sets a number's minimum and maximum from f's tags.
func bounds(s *obj, f *runtime.FieldSpec) {
	switch {
	case f.Min != "" && f.MinExclusive:
		s.set("exclusiveMinimum", json.Number(f.Min))
	case f.Min != "":
		s.set("minimum", json.Number(f.Min))
	}
	if f.Max != "" {
		s.set("maximum", json.Number(f.Max))
	}
}

// tagValue is a default or example tag's text as a JSON value of f's kind.
func tagValue(f *runtime.FieldSpec, text string) any {
	switch f.Kind {
	case runtime.KindInt, runtime.KindNumber:
		return json.Number(text)
	case runtime.KindBool:
		return text == "true"
	case runtime.KindList, runtime.KindMap, runtime.KindObject, runtime.KindOneOf, runtime.KindAny:
		var v any
		if err := yaml.Unmarshal([]byte(text), &v); err == nil {
			return v
		}
	}
	return text
}

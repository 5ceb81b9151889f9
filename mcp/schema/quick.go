package schema

import (
	"encoding/json"
	"math"
)

// quickSchema confirms, without the general validator, that a value matches
// a schema made only of the keywords most tool schemas use: type (one
// name), properties, required, items and additionalProperties: false, plus
// annotations. It only ever says "valid"; anything it cannot confirm goes
// to the full validator, which also words the problems, so both paths agree.
type quickSchema struct {
	typ      string
	props    map[string]*quickSchema
	required []string
	closed   bool // additionalProperties: false
	items    *quickSchema
}

// annotations are keywords that never affect validity.
var annotations = map[string]bool{
	"description": true, "title": true, "$schema": true, "$comment": true,
	"default": true, "examples": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

// compileQuick returns nil for any schema it does not fully understand.
func compileQuick(text []byte) *quickSchema {
	var v any
	if json.Unmarshal(text, &v) != nil {
		return nil
	}
	return quickFrom(v)
}

func quickFrom(v any) *quickSchema {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	q := &quickSchema{}
	for k, val := range m {
		switch {
		case annotations[k]:
		case k == "type":
			if q.typ, ok = val.(string); !ok || !knownType(q.typ) {
				return nil
			}
		case k == "properties":
			props, ok := val.(map[string]any)
			if !ok {
				return nil
			}
			q.props = make(map[string]*quickSchema, len(props))
			for name, p := range props {
				if q.props[name] = quickFrom(p); q.props[name] == nil {
					return nil
				}
			}
		case k == "required":
			list, ok := val.([]any)
			if !ok {
				return nil
			}
			for _, n := range list {
				s, ok := n.(string)
				if !ok {
					return nil
				}
				q.required = append(q.required, s)
			}
		case k == "additionalProperties":
			if b, ok := val.(bool); !ok || b {
				return nil
			}
			q.closed = true
		case k == "items":
			if q.items = quickFrom(val); q.items == nil {
				return nil
			}
		default:
			return nil
		}
	}
	return q
}

func knownType(t string) bool {
	switch t {
	case "object", "array", "string", "number", "integer", "boolean", "null":
		return true
	}
	return false
}

// valid reports whether v surely matches; false means "ask the validator".
func (q *quickSchema) valid(v any) bool {
	if q.typ != "" && !hasType(q.typ, v) {
		return false
	}
	switch v := v.(type) {
	case map[string]any:
		for _, name := range q.required {
			if _, ok := v[name]; !ok {
				return false
			}
		}
		for name, val := range v {
			p, ok := q.props[name]
			if !ok {
				if q.closed {
					return false
				}
				continue
			}
			if !p.valid(val) {
				return false
			}
		}
	case []any:
		if q.items != nil {
			for _, e := range v {
				if !q.items.valid(e) {
					return false
				}
			}
		}
	}
	return true
}

func hasType(t string, v any) bool {
	switch v := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case int: // jsonv.Decode's integers
		return t == "number" || t == "integer"
	case float64:
		return t == "number" || t == "integer" && v == math.Trunc(v) && !math.IsInf(v, 0)
	case json.Number:
		if t == "number" {
			return true
		}
		_, err := v.Int64()
		return t == "integer" && err == nil
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	}
	return false
}

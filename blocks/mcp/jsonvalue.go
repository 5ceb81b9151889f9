package mcp

import (
	"encoding/json"
	"errors"
)

// maxValueDepth is how deeply DecodeValue follows nested objects and arrays,
// as encoding/json does.
const maxValueDepth = 10000

// DecodeValue decodes one JSON value into plain values (map[string]any,
// []any, string, bool, nil) with numbers kept exact as json.Number. Unlike a
// json.Decoder it does not first copy raw into a buffer it grows: arguments
// may be tens of megabytes.
func DecodeValue(raw []byte) (any, error) {
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v)
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, err
	}
	if nestingOffset(raw, maxValueDepth) >= 0 {
		return nil, errors.New("JSON nested too deeply")
	}
	return decodeValid(raw), nil
}

// decodeValid decodes valid JSON.
func decodeValid(b []byte) any {
	i := skipSpace(b, 0)
	b = b[i:skipValue(b, i)]
	switch b[0] {
	case '{':
		m := map[string]any{}
		eachMember(b, func(k, v []byte) bool {
			m[string(keyText(k))] = decodeValid(v)
			return true
		})
		return m
	case '[':
		a := []any{}
		eachElement(b, func(v []byte) { a = append(a, decodeValid(v)) })
		return a
	case '"':
		s, _ := unquote(b)
		return s
	case 't':
		return true
	case 'f':
		return false
	case 'n':
		return nil
	}
	return json.Number(b)
}

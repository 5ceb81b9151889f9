// Package jsonscan walks JSON text that is already known to be well formed, to pick out a few
// members on the MCP core's hot path without reflection and with exact, case-sensitive keys,
// and writes JSON strings. It is the core's own (internal): nothing outside mcp/ uses it.
package jsonscan

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/octo-run/octo/runtime/jsonv"
)

// The helpers below walk JSON that jsonv.Scan has already validated, so the
// hot path can pick out a few members without reflection and with exact,
// case-sensitive keys (encoding/json matches struct fields case-insensitively).
// They never recurse, and they report malformed input instead of panicking, so
// a caller that hands them unvalidated bytes gets a refusal, not a crash.

// SkipSpace returns the index of the first byte at or after i that is not JSON white space.
func SkipSpace(b []byte, i int) int { return jsonv.SkipSpace(b, i) }

// SkipString returns the index just past the string that opens at b[i].
func SkipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

func isValueEnd(c byte) bool {
	switch c {
	case ',', '}', ']', ':', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// SkipValue returns the index just past the value that starts at b[i], or -1.
func SkipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = SkipString(b, i)
			if i < 0 || depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return -1
			}
		default:
			if depth == 0 {
				j := i
				for j < len(b) && !isValueEnd(b[j]) {
					j++
				}
				return j
			}
		}
		i++
	}
	return -1
}

// NestingOffset returns the offset of the first bracket that nests deeper than
// max, or -1 when the document stays within it.
func NestingOffset(b []byte, max int) int {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			j := SkipString(b, i)
			if j < 0 {
				return -1
			}
			i = j - 1
		case '{', '[':
			depth++
			if depth > max {
				return i
			}
		case '}', ']':
			depth--
		}
	}
	return -1
}

// EachMember calls fn with the quoted key and the raw value of every member of
// the object in b, until fn returns false. It reports whether b was an object.
func EachMember(b []byte, fn func(key, val []byte) bool) bool {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return SkipSpace(b, i+1) == len(b)
	}
	for i < len(b) && b[i] == '"' {
		ke := SkipString(b, i)
		if ke < 0 {
			return false
		}
		key := b[i:ke]
		i = SkipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		vs := SkipSpace(b, i+1)
		ve := SkipValue(b, vs)
		if ve < 0 || ve == vs {
			return false
		}
		if !fn(key, b[vs:ve]) {
			return true
		}
		i = SkipSpace(b, ve)
		if i < len(b) && b[i] == '}' {
			return SkipSpace(b, i+1) == len(b)
		}
		if i >= len(b) || b[i] != ',' {
			return false
		}
		i = SkipSpace(b, i+1)
	}
	return false
}

// EachElement calls fn with every element of the array in b. It reports
// whether b was an array.
func EachElement(b []byte, fn func(val []byte)) bool {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return SkipSpace(b, i+1) == len(b)
	}
	for i < len(b) {
		ve := SkipValue(b, i)
		if ve < 0 || ve == i {
			return false
		}
		fn(b[i:ve])
		i = SkipSpace(b, ve)
		if i < len(b) && b[i] == ']' {
			return SkipSpace(b, i+1) == len(b)
		}
		if i >= len(b) || b[i] != ',' {
			return false
		}
		i = SkipSpace(b, i+1)
	}
	return false
}

// KeyText returns the unescaped text of a quoted key; it only allocates when
// the key holds escapes.
func KeyText(q []byte) []byte {
	if len(q) < 2 {
		return nil
	}
	inner := q[1 : len(q)-1]
	for _, c := range inner {
		if c == '\\' {
			s, _ := Unquote(q)
			return []byte(s)
		}
	}
	return inner
}

// Unquote decodes a raw JSON string value. It reports false when raw is not a
// JSON string.
func Unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	simple := utf8.Valid(inner)
	for _, c := range inner {
		if c == '\\' || c == '"' || c < 0x20 {
			simple = false
			break
		}
	}
	if simple {
		return string(inner), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// IsNull reports whether raw is absent or the JSON literal null.
func IsNull(raw []byte) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// Kind names the JSON type of a raw value for error messages.
func Kind(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// HexDigits are the digits of a \u escape.
const HexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD, and
// U+2028/U+2029 are escaped, as encoding/json does.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', HexDigits[c>>4], HexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', HexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Member returns the value of key in a JSON object; null counts as absent.
func Member(obj []byte, key string) ([]byte, bool) {
	var val []byte
	EachMember(obj, func(k, v []byte) bool {
		if string(KeyText(k)) != key {
			return true
		}
		val = v
		return false
	})
	return val, val != nil && !IsNull(val)
}

// HasMembers reports whether a JSON object has at least one member.
func HasMembers(obj []byte) bool {
	found := false
	EachMember(obj, func(_, _ []byte) bool { found = true; return false })
	return found
}

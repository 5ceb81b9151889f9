package placeholder

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// maxDepth stops the encoder on values nested deeper than any decoded request allows,
// so a cyclic map built by a caller cannot hang a render.
const maxDepth = 1000

// appendJSON appends v encoded as JSON. Decoded JSON values (the only ones arguments
// hold) take a fast path; anything else goes through encoding/json. A value that cannot
// be encoded (NaN, a channel, too deep) becomes null, so the output stays valid JSON.
func appendJSON(dst []byte, v any, depth int) []byte {
	if depth > maxDepth {
		return append(dst, "null"...)
	}
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case string:
		return appendQuoted(dst, v)
	case bool:
		return strconv.AppendBool(dst, v)
	case int:
		return strconv.AppendInt(dst, int64(v), 10)
	case float64:
		return appendFloat(dst, v)
	case json.Number:
		if json.Valid([]byte(v)) {
			return append(dst, v...)
		}
		return append(dst, "null"...)
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, e, depth+1)
		}
		return append(dst, ']')
	case map[string]any:
		return appendObject(dst, v, depth)
	case map[string]string:
		return appendStringMap(dst, v)
	}
	return appendOther(dst, v)
}

// appendObject writes keys sorted, as encoding/json does, so answers are reproducible.
func appendObject(dst []byte, m map[string]any, depth int) []byte {
	return appendSorted(dst, m, func(dst []byte, v any) []byte { return appendJSON(dst, v, depth+1) })
}

func appendStringMap(dst []byte, m map[string]string) []byte {
	return appendSorted(dst, m, appendQuoted)
}

// appendSorted writes a JSON object with its keys in order, each value by val.
func appendSorted[V any](dst []byte, m map[string]V, val func([]byte, V) []byte) []byte {
	keys := slices.Sorted(maps.Keys(m))
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendQuoted(dst, k)
		dst = append(dst, ':')
		dst = val(dst, m[k])
	}
	return append(dst, '}')
}

// appendFloat formats like encoding/json (and JavaScript): plain decimals between 1e-6
// and 1e21, exponent form outside.
func appendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// strconv writes e-07; JSON numbers read better as e-7.
		n := len(dst)
		if n-start >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// appendOther encodes values outside the decoded-JSON set without HTML escaping, since
// the answer is not HTML.
func appendOther(dst []byte, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return append(dst, "null"...)
	}
	return append(dst, bytes.TrimRight(buf.Bytes(), "\n")...)
}

// appendQuoted appends s as a JSON string literal.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = appendEscaped(dst, s)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// appendEscaped appends s escaped for the inside of a JSON string literal. Bytes that
// are not UTF-8 become U+FFFD so the result is always valid JSON; U+2028 and U+2029 are
// escaped because JavaScript parsers older than ES2019 reject them raw.
func appendEscaped(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscapedByte(dst, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			if r == utf8.RuneError {
				r = '\ufffd'
			}
			dst = append(dst, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}

func appendEscapedByte(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

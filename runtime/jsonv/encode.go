package jsonv

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// MaxDepth is how deeply Append nests before it gives up: deeper than any value Decode makes
// (json.Valid stops at 10,000 levels, far beyond what a request carries), so only a cyclic
// value built in Go reaches it.
const MaxDepth = 1000

// ErrUnsupported is Append's error for a value JSON cannot hold: NaN, ±Inf, a json.Number
// that is not a number, a value nested past MaxDepth (a cycle).
var ErrUnsupported = errors.New("the value cannot be encoded as JSON")

// Append appends v encoded as JSON, byte for byte as encoding/json.Marshal would with html
// set (<, > and & escaped) and as an Encoder with SetEscapeHTML(false) would without it. The
// values Decode makes, and int, int64 and map[string]string, are written without reflection;
// anything else goes through encoding/json. Object keys are sorted, as encoding/json sorts
// them, so an answer is the same every time.
func Append(dst []byte, v any, html bool) ([]byte, error) {
	e := encoder{html: html}
	return e.value(dst, v, 0)
}

// AppendString appends s as a JSON string literal, escaped as Append escapes strings.
func AppendString(dst []byte, s string, html bool) []byte { return encoder{html: html}.quoted(dst, s) }

// AppendEscaped appends s escaped for the inside of a JSON string literal, without the
// quotes: text placed inside a string a template writes.
func AppendEscaped(dst []byte, s string, html bool) []byte {
	return encoder{html: html}.escaped(dst, s)
}

type encoder struct{ html bool }

func (e encoder) value(dst []byte, v any, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return dst, ErrUnsupported
	}
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return e.quoted(dst, v), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case int:
		return strconv.AppendInt(dst, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(dst, v, 10), nil
	case float64:
		return appendFloat(dst, v)
	case json.Number:
		if !isNumber(v) {
			return dst, ErrUnsupported
		}
		return append(dst, v...), nil
	case []any:
		dst = append(dst, '[')
		for i, x := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = e.value(dst, x, depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case map[string]any:
		return appendSorted(dst, v, func(dst []byte, x any) ([]byte, error) { return e.value(dst, x, depth+1) }, e)
	case map[string]string:
		return appendSorted(dst, v, func(dst []byte, s string) ([]byte, error) { return e.quoted(dst, s), nil }, e)
	}
	return e.other(dst, v)
}

// appendSorted writes an object with its keys in order, each value by val.
func appendSorted[V any](dst []byte, m map[string]V, val func([]byte, V) ([]byte, error), e encoder) ([]byte, error) {
	dst = append(dst, '{')
	if len(m) == 1 {
		for k, v := range m { // one key needs no sorting, nor the slice of keys
			dst = append(e.quoted(dst, k), ':')
			dst, err := val(dst, v)
			return append(dst, '}'), err
		}
	}
	var small [16]string // most objects' keys fit here, on the stack
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(e.quoted(dst, k), ':')
		var err error
		if dst, err = val(dst, m[k]); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// isNumber reports whether n is a JSON number literal, which encoding/json requires of a
// json.Number it encodes: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func isNumber(n json.Number) bool {
	s := string(n)
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	switch {
	case s == "":
		return false
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = digits(s)
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && isDigit(s[1]) {
		s = digits(s[1:])
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
		}
		if s == "" || !isDigit(s[0]) {
			return false
		}
		s = digits(s)
	}
	return s == ""
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// digits returns s past its leading digits.
func digits(s string) string {
	for s != "" && isDigit(s[0]) {
		s = s[1:]
	}
	return s
}

// appendFloat formats like encoding/json (and JavaScript): plain decimals between 1e-6 and
// 1e21, exponent form outside, with e-7 rather than strconv's e-07.
func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, ErrUnsupported
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if n := len(dst); format == 'e' && n-start >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
		dst[n-2] = dst[n-1]
		dst = dst[:n-1]
	}
	return dst, nil
}

// other encodes a value outside the set above through encoding/json.
func (e encoder) other(dst []byte, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(e.html)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	return append(dst, bytes.TrimRight(buf.Bytes(), "\n")...), nil
}

// quoted appends s as a JSON string literal.
func (e encoder) quoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = e.escaped(dst, s)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// escaped appends s escaped for the inside of a JSON string literal, as encoding/json does:
// bytes that are not UTF-8 become U+FFFD, U+2028 and U+2029 are escaped (JavaScript before
// ES2019 rejects them raw), and with html so are <, > and &.
func (e encoder) escaped(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!e.html || c != '<' && c != '>' && c != '&') {
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

// Package jsonv decodes JSON text into plain Go values under the one number
// rule octo holds everywhere: message bodies, a router's tool arguments and
// results, a mock's arguments and the schema validator all decode with
// Decode, so a number means the same wherever it goes.
//
// It sits beside the runtime, which owns message bodies, but imports only
// the standard library: mcp, which must not know the runtime, decodes
// with it too.
package jsonv

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// MaxNumberLen is the longest number literal Decode takes. Every float64 is
// written exactly in far fewer characters (an integer in range has at most
// 309 digits), so a longer literal only makes consumers work: exact
// arithmetic on its text (a schema's minimum or multipleOf) grows faster
// than its length.
const MaxNumberLen = 1000

// Decode decodes one JSON value into nil, bool, string, []any,
// map[string]any and numbers, without rounding numbers the way float64 does
// past 2^53: an integer is an int when it fits int64 and otherwise stays its
// exact text as a json.Number (encoded back unchanged); any other number is
// a float64. A number beyond float64's range or longer than MaxNumberLen is
// a *NumberError, so no consumer ever meets ±Inf or a megabyte of digits.
// Invalid JSON gets encoding/json's error.
//
// Unlike a json.Decoder it reads data in place instead of copying it into a
// buffer it grows (a value may be tens of megabytes), and it visits each
// byte once, however deeply the value nests.
func Decode(data []byte) (any, error) {
	if !Valid(data) {
		// Unmarshal words the problem (a *json.SyntaxError with its offset,
		// or the nesting limit) and, on invalid input, builds nothing.
		var v any
		return nil, json.Unmarshal(data, &v)
	}
	d := decoder{b: data}
	return d.value()
}

// decoder walks JSON that Valid has accepted, so it checks nothing but
// numbers; Valid also caps nesting at MaxScanDepth levels, which bounds the
// recursion.
type decoder struct {
	b []byte
	i int
}

func (d *decoder) space() { d.i = SkipSpace(d.b, d.i) }

func (d *decoder) value() (any, error) {
	d.space()
	switch d.b[d.i] {
	case '{':
		return d.object()
	case '[':
		return d.array()
	case '"':
		return d.string(), nil
	case 't':
		d.i += len("true")
		return true, nil
	case 'f':
		d.i += len("false")
		return false, nil
	case 'n':
		d.i += len("null")
		return nil, nil
	}
	return d.number()
}

func (d *decoder) object() (any, error) {
	m := map[string]any{}
	d.i++ // {
	for {
		d.space()
		if d.b[d.i] == '}' {
			d.i++
			return m, nil
		}
		if d.b[d.i] == ',' {
			d.i++
			d.space()
		}
		k := d.string()
		d.space()
		d.i++ // :
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		m[k] = v
	}
}

func (d *decoder) array() (any, error) {
	a := []any{}
	d.i++ // [
	for {
		d.space()
		switch d.b[d.i] {
		case ']':
			d.i++
			return a, nil
		case ',':
			d.i++
		}
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
	}
}

// string decodes the string at d.i, copying its text at once when it holds
// no escapes and is valid UTF-8 (encoding/json turns invalid bytes into U+FFFD).
func (d *decoder) string() string {
	start := d.i
	escaped, ascii := false, true
	for d.i++; d.b[d.i] != '"'; d.i++ {
		switch c := d.b[d.i]; {
		case c == '\\':
			escaped = true
			d.i++
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	d.i++
	q := d.b[start:d.i]
	if inner := q[1 : len(q)-1]; !escaped && (ascii || utf8.Valid(inner)) {
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(q, &s) // cannot fail: Valid accepted it
	return s
}

func (d *decoder) number() (any, error) {
	start := d.i
	for d.i < len(d.b) && isNumberByte(d.b[d.i]) {
		d.i++
	}
	return numberValue(d.b[start:d.i])
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// numberValue applies the number rule to a valid JSON number literal.
func numberValue(lit []byte) (any, error) {
	if len(lit) > MaxNumberLen {
		return nil, &NumberError{Number: firstChars(lit), TooLong: true}
	}
	integer := true
	for _, c := range lit {
		if c == '.' || c == 'e' || c == 'E' {
			integer = false
			break
		}
	}
	s := string(lit)
	if integer {
		if i, err := strconv.ParseInt(s, 10, 0); err == nil {
			return int(i), nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, &NumberError{Number: firstChars(lit)}
	}
	if integer {
		return json.Number(s), nil
	}
	return f, nil
}

// shown is how much of a refused number an error quotes: an attacker's
// number may be megabytes long.
const shown = 32

func firstChars(lit []byte) string {
	if len(lit) > shown {
		return string(lit[:shown]) + "…"
	}
	return string(lit)
}

// NumberError is a number Decode refuses: beyond float64's range (such as
// 1e400), or written longer than MaxNumberLen characters.
type NumberError struct {
	Number  string // its first characters, as written
	TooLong bool   // longer than MaxNumberLen, whatever its value
}

func (e *NumberError) Error() string {
	if e.TooLong {
		return "number " + e.Number + " is longer than " + strconv.Itoa(MaxNumberLen) + " characters"
	}
	return "number " + e.Number + " is out of range"
}

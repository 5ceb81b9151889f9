package placeholder

import "github.com/octo-run/octo/runtime/jsonv"

// appendJSON appends v encoded as JSON (jsonv.Append, without HTML escaping: the answer is
// not HTML). A value that cannot be encoded (NaN, a channel, a cycle) becomes null, so the
// output stays valid JSON.
func appendJSON(dst []byte, v any) []byte {
	start := len(dst)
	out, err := jsonv.Append(dst, v, false)
	if err != nil {
		return append(out[:start], "null"...)
	}
	return out
}

// appendQuoted appends s as a JSON string literal.
func appendQuoted(dst []byte, s string) []byte { return jsonv.AppendString(dst, s, false) }

// appendEscaped appends s escaped for the inside of a JSON string literal. Bytes that are
// not UTF-8 become U+FFFD so the result is always valid JSON; U+2028 and U+2029 are escaped
// because JavaScript parsers older than ES2019 reject them raw.
func appendEscaped(dst []byte, s string) []byte { return jsonv.AppendEscaped(dst, s, false) }

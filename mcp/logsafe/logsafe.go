// Package logsafe makes what a client wrote fit for one log line or error message: a method,
// tool name or URI holding a newline or a terminal escape would otherwise forge log lines or
// drive the reader's terminal.
package logsafe

import (
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
)

// MaxClip bounds a client string quoted in a log line or an error message.
const MaxClip = 200

// Clip shortens s to MaxClip bytes, on a rune boundary.
func Clip(s string) string {
	if len(s) <= MaxClip {
		return s
	}
	i := MaxClip
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// String returns s fit for one log line: control characters, separators,
// bidirectional overrides and other runes that do not print are written as
// Go escapes (\n, \x1b, \u202e) and bytes that are not UTF-8 as \xff. A
// string that needs none of it comes back as is.
func String(s string) string {
	if i := firstUnsafe(s, utf8.DecodeRuneInString); i >= 0 {
		return escapeLog(s, i)
	}
	return s
}

// firstUnsafe returns the offset of the first byte of s that cannot be
// written to a log line as it is (a rune that does not print, or a byte
// that is not UTF-8), or -1.
func firstUnsafe[T string | []byte](s T, decode func(T) (rune, int)) int {
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < utf8.RuneSelf && c != 0x7f {
			i++
			continue
		}
		r, size := decode(s[i:])
		if r == utf8.RuneError && size == 1 || !unicode.IsPrint(r) {
			return i
		}
		i += size
	}
	return -1
}

// escapeLog escapes s from byte i on, as String describes.
func escapeLog(s string, i int) string {
	b := make([]byte, 0, len(s)+16)
	b = append(b, s[:i]...)
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, '\\', 'x', jsonscan.HexDigits[s[i]>>4], jsonscan.HexDigits[s[i]&0xf])
		case r == ' ' || unicode.IsPrint(r):
			b = append(b, s[i:i+size]...)
		default:
			q := strconv.QuoteRuneToASCII(r) // '\n', '\x1b', '\u202e'
			b = append(b, q[1:len(q)-1]...)
		}
		i += size
	}
	return string(b)
}

// JSON returns a JSON message as one line of printable, valid UTF-8:
// whitespace between tokens (the only place a raw newline can be) becomes
// a space, a rune that does not print (it can only be inside a string)
// becomes a \u escape, and bytes that are not UTF-8 become U+FFFD, so the
// text stays the same JSON value.
func JSON(msg []byte) []byte {
	if i := firstUnsafe(msg, utf8.DecodeRune); i >= 0 {
		return escapeJSONLine(msg, i)
	}
	return msg
}

func escapeJSONLine(msg []byte, i int) []byte {
	b := make([]byte, 0, len(msg)+16)
	b = append(b, msg[:i]...)
	for i < len(msg) {
		r, size := utf8.DecodeRune(msg[i:])
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b = append(b, ' ')
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == ' ' || unicode.IsPrint(r):
			b = append(b, msg[i:i+size]...)
		default:
			units := []rune{r}
			if r > 0xffff {
				hi, lo := utf16.EncodeRune(r)
				units = []rune{hi, lo}
			}
			for _, u := range units {
				b = append(b, '\\', 'u', jsonscan.HexDigits[u>>12&0xf], jsonscan.HexDigits[u>>8&0xf], jsonscan.HexDigits[u>>4&0xf], jsonscan.HexDigits[u&0xf])
			}
		}
		i += size
	}
	return b
}

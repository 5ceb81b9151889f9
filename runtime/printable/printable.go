// Package printable makes text that came from a client or a file safe to show on a terminal or
// in a log line: a name an agent chose, a server file's name, a Host header. A terminal acts on
// some characters instead of showing them (a carriage return rewrites the line, ESC starts a
// colour, cursor or conceal sequence, a bidi override reverses what follows), so a hostile name
// could make one action read as another. Every such rune is written as a Go escape instead.
//
// It imports only the standard library, so that any package (the runtime, blocks, the MCP
// client library) can use it.
package printable

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxRunes bounds what Quote shows of a text: a name longer than this is cut, with an ellipsis.
const MaxRunes = 120

// Safe reports whether s shows as itself: valid UTF-8, and only printable runes (letters,
// marks, numbers, punctuation, symbols and the ASCII space), so no control character, no
// format character (bidi overrides, zero-width joiners) and no other kind of space.
func Safe(s string) bool { return safe(s, "") }

// safe is Safe, letting the ASCII controls in keep pass too.
func safe(s, keep string) bool {
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if (b < 0x20 || b == 0x7f) && strings.IndexByte(keep, b) < 0 {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return false
		}
		i += size
	}
	return true
}

// Escape returns s unchanged when it is Safe; otherwise with each rune that is not written as a
// Go escape: "\x1b", "\r", "\u202e". It is for showing text, not for reading it back (a
// backslash stays as it is, so text already escaped is not escaped twice): where the exact
// text matters, use Quote.
func Escape(s string) string { return escape(s, "") }

// EscapeText is Escape for text of several lines, such as an error with a quoted source line:
// line feeds and tabs stay, since they only move on to the next line or column.
func EscapeText(s string) string { return escape(s, "\n\t") }

// escape escapes the runes of s that are not Safe, but for those in keep (ASCII only).
func escape(s, keep string) string {
	if safe(s, keep) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			const hex = "0123456789abcdef"
			b.WriteString(`\x`)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&0xf])
		case safe(s[i:i+size], keep):
			b.WriteString(s[i : i+size])
		default:
			q := strconv.QuoteRune(r) // 'x' with the escape inside
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

// Quote returns s in double quotes with every rune that is not Safe escaped (as strconv.Quote
// does), cut to MaxRunes runes with an ellipsis: how a name is shown where the user decides
// something by it.
func Quote(s string) string {
	if n := utf8.RuneCountInString(s); n > MaxRunes {
		cut := 0
		for i := range s {
			if cut == MaxRunes {
				s = s[:i]
				break
			}
			cut++
		}
		return strconv.Quote(s) + "…"
	}
	return strconv.Quote(s)
}

// ShellQuote is s as one word for a POSIX shell, for commands printed to copy: as it is when
// every character is one no shell treats specially, else single-quoted.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Package uritemplate parses and matches RFC 6570 level-1 URI templates ("db://{table}/{id}"),
// as MCP resource templates use them: parsed once, matched with a few string scans, expanded
// with each value percent-encoded. It knows nothing of MCP beyond that.
package uritemplate

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Template is an RFC 6570 level-1 template ("db://{table}/{id}") as
// resource templates use it, parsed once so matching is a few string scans.
type Template struct {
	text string
	// lits has one more element than names: lits[0] names[0] lits[1] ...
	lits  []string
	names []string
}

// Parse parses a template of literals and simple {name}
// expressions. Everything beyond level 1 (operators, explode, prefixes, lists
// of variables) is refused with a precise error, as are two expressions with
// no literal between them, which could not be matched unambiguously.
func Parse(text string) (*Template, error) {
	if text == "" {
		return nil, fmt.Errorf("uri template is empty")
	}
	t := &Template{text: text}
	lit := 0 // start of the current literal
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '}':
			return nil, fmt.Errorf("uri template %q: unmatched \"}\" at offset %d", text, i)
		case '{':
			end := strings.IndexAny(text[i+1:], "{}")
			if end < 0 {
				return nil, fmt.Errorf("uri template %q: unclosed \"{\" at offset %d", text, i)
			}
			end += i + 1
			if text[end] == '{' {
				return nil, fmt.Errorf("uri template %q: \"{\" inside the expression opened at offset %d", text, i)
			}
			name := text[i+1 : end]
			if err := checkExpression(name); err != nil {
				return nil, fmt.Errorf("uri template %q: expression at offset %d: %w", text, i, err)
			}
			if len(t.names) > 0 && lit == i {
				return nil, fmt.Errorf("uri template %q: {%s} and {%s} at offset %d are adjacent; without a literal between them the match is ambiguous",
					text, t.names[len(t.names)-1], name, i)
			}
			for _, n := range t.names {
				if n == name {
					return nil, fmt.Errorf("uri template %q: variable %q appears twice", text, name)
				}
			}
			t.lits = append(t.lits, text[lit:i])
			t.names = append(t.names, name)
			i, lit = end, end+1
		}
	}
	t.lits = append(t.lits, text[lit:])
	return t, nil
}

// checkExpression accepts only a plain variable name.
func checkExpression(e string) error {
	if e == "" {
		return fmt.Errorf(`empty expression "{}"`)
	}
	if strings.ContainsRune("+#./;?&=,!@|", rune(e[0])) {
		return fmt.Errorf("operator %q in {%s} is not supported: only simple {name} expansion (level 1)", e[0], e)
	}
	switch {
	case strings.Contains(e, ","):
		return fmt.Errorf("{%s} lists several variables; only one per expression is supported", e)
	case strings.HasSuffix(e, "*"):
		return fmt.Errorf("explode modifier \"*\" in {%s} is not supported", e)
	case strings.Contains(e, ":"):
		return fmt.Errorf("prefix modifier %q in {%s} is not supported", e[strings.IndexByte(e, ':'):], e)
	}
	if !isIdentifier(e) {
		return fmt.Errorf("invalid variable name %q: must match [A-Za-z_][A-Za-z0-9_]*", e)
	}
	return nil
}

func isIdentifier(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// String returns the template text.
func (t *Template) String() string { return t.text }

// Names returns the variable names in order.
func (t *Template) Names() []string { return append([]string(nil), t.names...) }

// Match reports whether uri is an expansion of t and returns the variables.
// Literals must match exactly. A value runs up to the first occurrence of the
// literal that follows it (never greedily) and is never empty; the last one
// runs to the end. Values are percent-decoded; a value holding a raw "/", "?",
// "#" or control character, a broken escape, or bytes that decode to invalid
// UTF-8 means no match, since simple expansion would have encoded them.
func (t *Template) Match(uri string) (map[string]string, bool) {
	rest, ok := strings.CutPrefix(uri, t.lits[0])
	if !ok {
		return nil, false
	}
	vars := make(map[string]string, len(t.names))
	for k, name := range t.names {
		raw := rest
		if next := t.lits[k+1]; next != "" {
			j := strings.Index(rest, next)
			if j < 0 {
				return nil, false
			}
			raw, rest = rest[:j], rest[j+len(next):]
		} else {
			rest = ""
		}
		v, ok := decodeValue(raw)
		if !ok {
			return nil, false
		}
		vars[name] = v
	}
	if rest != "" {
		return nil, false
	}
	return vars, true
}

func decodeValue(raw string) (string, bool) {
	if raw == "" {
		return "", false
	}
	escaped := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '/' || c == '?' || c == '#' || c < 0x20 || c == 0x7f:
			return "", false
		case c == '%':
			if i+2 >= len(raw) || unhex(raw[i+1]) < 0 || unhex(raw[i+2]) < 0 {
				return "", false
			}
			escaped = true
			i += 2
		}
	}
	if !escaped {
		return raw, utf8.ValidString(raw)
	}
	b := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		if raw[i] == '%' {
			b = append(b, byte(unhex(raw[i+1])<<4|unhex(raw[i+2])))
			i += 2
			continue
		}
		b = append(b, raw[i])
	}
	return string(b), utf8.Valid(b)
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// Expand fills the template with vars by simple expansion: everything but
// RFC 3986 unreserved characters is percent-encoded; a missing variable
// expands to nothing.
func (t *Template) Expand(vars map[string]string) string {
	var b strings.Builder
	for k, name := range t.names {
		b.WriteString(t.lits[k])
		b.WriteString(escapeValue(vars[name]))
	}
	b.WriteString(t.lits[len(t.lits)-1])
	return b.String()
}

func escapeValue(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if isUnreserved(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte("0123456789ABCDEF"[c>>4])
		b.WriteByte("0123456789ABCDEF"[c&0xf])
	}
	return b.String()
}

func isUnreserved(c byte) bool {
	return c == '-' || c == '.' || c == '_' || c == '~' ||
		(c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

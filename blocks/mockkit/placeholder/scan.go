package placeholder

import "strings"

// context is where a tag sits, which decides how its value is written.
type context uint8

const (
	ctxText       context = iota // plain text: values as they are
	ctxJSONString                // inside a JSON string literal: values escaped
	ctxJSONValue                 // where a JSON value goes: values encoded as JSON
)

// piece is either literal text (escapes already applied) or one tag.
type piece struct {
	lit string
	tag *rawTag
}

// rawTag is a tag as found, before its body is understood.
type rawTag struct {
	body string // between the braces, untrimmed
	src  string // the whole tag as written, for messages
	pos  Pos
	ctx  context
}

// scan splits text into literal pieces and tags. A backslash right before "{{" makes it
// literal; backslashes in pairs are left alone, so "\\{{x}}" is an escaped backslash
// (as JSON reads it) followed by a tag. In a run of braces the tag opens at the last
// "{{", so "{{{x}}}" is a brace, a tag and a brace.
func scan(text string) ([]piece, []error) {
	var (
		pieces []piece
		errs   []error
		lit    strings.Builder
		pt     = newPosTracker(text)
	)
	flush := func() {
		if lit.Len() > 0 {
			pieces = append(pieces, piece{lit: lit.String()})
			lit.Reset()
		}
	}
	i := 0
	for {
		j := strings.Index(text[i:], "{{")
		if j < 0 {
			lit.WriteString(text[i:])
			break
		}
		j += i
		if backslashesBefore(text, i, j)%2 == 1 {
			lit.WriteString(text[i : j-1])
			lit.WriteString("{{")
			i = j + 2
			continue
		}
		for j+2 < len(text) && text[j+2] == '{' {
			j++
		}
		lit.WriteString(text[i:j])
		rest := text[j+2:]
		end := strings.Index(rest, "}}")
		inner := strings.Index(rest, "{{")
		if end < 0 || (inner >= 0 && inner < end) {
			errs = append(errs, newError(pt.at(j), firstLine(text[j:]),
				`"{{" has no closing "}}" (write \{{ for a literal {{)`))
			if end < 0 {
				break
			}
			i = j + 2 + inner // look for more mistakes from the next tag on
			continue
		}
		flush()
		pieces = append(pieces, piece{tag: &rawTag{body: rest[:end], src: text[j : j+4+end], pos: pt.at(j)}})
		i = j + 4 + end
	}
	flush()
	return pieces, errs
}

func backslashesBefore(text string, from, at int) int {
	n := 0
	for k := at - 1; k >= from && text[k] == '\\'; k-- {
		n++
	}
	return n
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// markContexts decides whether the template is JSON and, if so, whether each tag sits
// inside a string literal. A template is JSON when its first non-blank character is a
// literal '{' or '[', or when the whole of it is one string literal ("Hello {{name}}"),
// so a quoted answer is escaped too while text that merely opens with a quote stays text.
// Only the template's own text is read: inserted values never move the state, which is
// what keeps a client's quotes from breaking out of a string.
func markContexts(pieces []piece) {
	if len(pieces) == 0 || pieces[0].tag != nil {
		return
	}
	first := strings.TrimLeft(pieces[0].lit, " \t\r\n")
	if first == "" || !strings.Contains(`{["`, first[:1]) {
		return
	}
	if first[0] == '"' && !oneStringLiteral(pieces) {
		return
	}
	var c jsonCursor
	for _, p := range pieces {
		if p.tag == nil {
			c.read(p.lit)
			continue
		}
		p.tag.ctx = ctxJSONValue
		if c.inString {
			p.tag.ctx = ctxJSONString
		}
		c.escaped = false
	}
}

// oneStringLiteral reports whether the template, tags counted as string content, is a
// single JSON string literal with nothing but blanks after its closing quote.
func oneStringLiteral(pieces []piece) bool {
	var c jsonCursor
	for _, p := range pieces {
		if p.tag == nil {
			c.read(p.lit)
			continue
		}
		if c.closed > 0 { // a tag after the literal
			return false
		}
		c.escaped = false
	}
	return c.closed == 1 && !c.inString && !c.trailing
}

// jsonCursor follows a template's literal text as JSON far enough to know whether the
// next byte is inside a string literal.
type jsonCursor struct {
	inString, escaped bool
	closed            int  // string literals closed so far
	trailing          bool // text other than blanks came after the first of them
}

func (c *jsonCursor) read(lit string) {
	for k := 0; k < len(lit); k++ {
		b := lit[k]
		if c.closed > 0 && !c.inString && strings.IndexByte(" \t\r\n", b) < 0 {
			c.trailing = true
		}
		switch {
		case c.escaped:
			c.escaped = false
		case c.inString && b == '\\':
			c.escaped = true
		case b == '"':
			if c.inString {
				c.closed++
			}
			c.inString = !c.inString
		}
	}
}

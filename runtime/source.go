package runtime

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr/file"

	"github.com/octo-run/octo/runtime/config"
)

// A setting's text reaches the compiler as written, `${VAR}`s included (the
// loader keeps it, see config.Interpolation), and each variable becomes a
// literal of its value where it stands, so no value can change the structure
// of an expression, whatever quotes or comment ends it holds:
//
//   - in code, a value that is a JSON number is that number, true and false
//     are booleans, anything else (the empty value too) a string literal;
//   - inside a string literal, the value is part of the string, escaped for
//     its quotes;
//   - inside a comment, it is left out.

// plainText is text without variables, as CompileExpr and CompileTemplate take.
func plainText(s string) config.Interpolation {
	return config.Interpolation{Written: s, Parts: []config.Part{{Text: s}}}
}

// source is expression text built from a setting's parts, with what maps its
// offsets back to the text as written.
type source struct {
	text  string
	orig  string // the expression as written
	spans []span
	base  int // the written offset of the expression's start
}

// span is where one part starts in the source and in the text as written.
type span struct {
	src, at int
	value   bool // a variable's value: every offset inside maps to its `${`
}

// newSource builds the expression text of parts, which start at written
// offset base.
func newSource(parts []config.Part, base int) (*source, *problem) {
	s := &source{base: base}
	var b strings.Builder
	var lx lexState
	for _, p := range parts {
		s.spans = append(s.spans, span{src: b.Len(), at: p.At, value: p.Var != ""})
		if p.Var == "" {
			for i := 0; i < len(p.Text); i++ {
				lx.feed(p.Text[i])
			}
			b.WriteString(p.Text)
			continue
		}
		lit, err := lx.literal(p.Text)
		if err != "" {
			return nil, &problem{p.At, fmt.Sprintf(err, p.Var)}
		}
		b.WriteString(lit)
	}
	s.text = b.String()
	return s, nil
}

// The places a value can land in expr-lang source.
const (
	inCode = iota
	inDouble
	inSingle
	inRaw
	inLineComment
	inBlockComment
)

// lexState follows expr-lang's lexer through literal text just far enough to
// know where a value lands.
type lexState struct {
	mode    int
	escaped bool // the last byte was a backslash inside a quoted string
	prev    byte // the last byte, for //, /* and */
	tick    bool // a backquote inside a raw string: doubled, or the end, says the next byte
}

func (l *lexState) feed(c byte) {
	switch l.mode {
	case inCode:
		switch {
		case c == '"':
			l.mode = inDouble
		case c == '\'':
			l.mode = inSingle
		case c == '`':
			l.mode = inRaw
		case c == '/' && l.prev == '/':
			l.mode = inLineComment
		case c == '*' && l.prev == '/':
			l.mode, c = inBlockComment, 0 // so that "/*/" stays a comment
		}
	case inDouble, inSingle:
		switch {
		case l.escaped:
			l.escaped = false
		case c == '\\':
			l.escaped = true
		case c == '"' && l.mode == inDouble, c == '\'' && l.mode == inSingle:
			l.mode = inCode
		}
	case inRaw:
		switch {
		case l.tick && c == '`':
			l.tick = false // a doubled backquote is one backquote
		case l.tick:
			l.tick, l.mode = false, inCode
			l.feed(c)
			return
		case c == '`':
			l.tick = true
		}
	case inLineComment:
		if c == '\n' {
			l.mode = inCode
		}
	case inBlockComment:
		if c == '/' && l.prev == '*' {
			l.mode, c = inCode, 0
		}
	}
	l.prev = c
}

// literal writes value where the lexer stands; err (a format taking the
// variable's name) says why it cannot be written there.
func (l *lexState) literal(value string) (lit, err string) {
	if l.tick { // a backquote right before the value ended the raw string
		l.tick, l.mode = false, inCode
	}
	l.prev = 0
	switch l.mode {
	case inDouble, inSingle:
		if l.escaped {
			return "", escapesValue
		}
		quote := '"'
		if l.mode == inSingle {
			quote = '\''
		}
		return escapeIn(value, quote), ""
	case inRaw:
		return strings.ReplaceAll(value, "`", "``"), ""
	case inLineComment, inBlockComment:
		return "", ""
	}
	return exprLiteral(value), ""
}

// escapesValue says why a variable cannot follow a backslash in a string;
// it takes the variable's name.
const escapesValue = `a \ right before ${%s} would escape its value; write \\ for a backslash`

var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// isNumber reports a JSON number a float64 holds (1e999 is text).
func isNumber(value string) bool {
	_, err := strconv.ParseFloat(value, 64)
	return err == nil && jsonNumber.MatchString(value)
}

// exprLiteral is value as a literal in code: spaced, so it never runs into a
// name or number beside it, and a negative number in parentheses, so that
// `${N} ** 2` squares N. An integer past int64 is written as a float, as
// expr-lang reads no larger integer.
func exprLiteral(value string) string {
	if value == "true" || value == "false" {
		return " " + value + " "
	}
	if !isNumber(value) {
		return `"` + escapeIn(value, '"') + `"`
	}
	if _, err := strconv.ParseInt(value, 10, 64); err != nil && !strings.ContainsAny(value, ".eE") {
		value += ".0"
	}
	if value[0] == '-' {
		return " (" + value + ") "
	}
	return " " + value + " "
}

// escapeIn escapes value for a string literal between quote characters.
func escapeIn(value string, quote rune) string {
	var b strings.Builder
	for _, r := range value {
		switch {
		case r == '\\' || r == quote:
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// problem is a compile problem at an offset of the text as written.
type problem struct {
	off int
	msg string
}

// in locates p in the text as written.
func (p *problem) in(written string) *ExprError {
	line, col := lineCol(written, p.off)
	return &ExprError{Line: line, Column: col, Msg: p.msg}
}

// errorAt is a problem at offset off of the source text.
func (s *source) errorAt(off int, msg string) *problem {
	return &problem{s.back(off), msg}
}

// compileError locates an expr-lang compile error in the text as written.
func (s *source) compileError(err error) *problem {
	var fe *file.Error
	if !errors.As(err, &fe) {
		return &problem{s.base, err.Error()}
	}
	return s.errorAt(offsetOf(s.text, max(fe.Line, 1), fe.Column), suggestName(fe.Message))
}

// exprNames are the names an expression starts from (exprEnv's).
var exprNames = []string{"body", "vars", "headers", "env"}

// suggestName adds to expr-lang's "unknown name X" the name X was likely meant to be.
func suggestName(msg string) string {
	name, ok := strings.CutPrefix(msg, "unknown name ")
	if !ok {
		return msg
	}
	if s := config.Suggest(name, exprNames); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	return msg
}

// back maps an offset of the source text to the text as written.
func (s *source) back(off int) int {
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].src > off }) - 1
	if i < 0 {
		return s.base
	}
	if sp := s.spans[i]; !sp.value {
		return sp.at + off - sp.src
	}
	return s.spans[i].at
}

// offsetOf is the byte offset of rune column col (0-based) of line (1-based)
// in text, kept inside the line.
func offsetOf(text string, line, col int) int {
	off := 0
	for ; line > 1; line-- {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	for ; col > 0 && off < len(text) && text[off] != '\n'; col-- {
		_, size := utf8.DecodeRuneInString(text[off:])
		off += size
	}
	return off
}

// lineCol is the line and rune column (both 1-based) of byte offset off in
// text.
func lineCol(text string, off int) (int, int) {
	off = min(off, len(text))
	start := strings.LastIndexByte(text[:off], '\n') + 1
	return 1 + strings.Count(text[:off], "\n"), 1 + utf8.RuneCountInString(text[start:off])
}

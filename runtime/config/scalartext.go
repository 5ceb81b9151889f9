package config

import (
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// A compiler reports a problem at a line and column of a setting's text, the value YAML made of
// what the file holds; the file shows that text elsewhere: after a quote, with escapes ('' and
// \" stand for one character), folded over several lines (a line break between two lines of
// text is a space), or in a block scalar (| or >) on the lines below its indicator, indented.
// locate reads the file's text as YAML reads the scalar, character by character, until it
// reaches the one asked for.

// Sources holds the text of each file a config was read from, by the name diagnostics give it,
// so that a position inside a setting's text is found where that text was written.
type Sources map[string][]byte

// Position is NodePosition with the text of n's file at hand, for positions inside n's text.
func (s Sources) Position(n *yaml.Node, w Where) Position {
	p := NodePosition(n, w)
	if n != nil && n.Kind == yaml.ScalarNode {
		p.src = s[w.File]
	}
	return p
}

// scalarReader walks a scalar's text in the file, producing its value's characters with where
// each was written, until it reaches the value position sought.
type scalarReader struct {
	src        []byte
	off        int // the next byte of src
	line, col  int // of off, from 1; col in characters
	want, at   textPos
	last       textPos // where the last character produced was written
	found      textPos
	done, none bool // found; or no more characters
}

// textPos is a line and a column, both from 1.
type textPos struct{ line, col int }

// locate returns the line and column in the file of line and col of the value of the scalar p
// positions, false when src does not hold it (then the caller keeps its estimate).
func locate(src []byte, p Position, line, col int) (int, int, bool) {
	start, ok := offsetOfLine(src, p.Line)
	if !ok || p.Col < 1 {
		return 0, 0, false
	}
	r := &scalarReader{src: src, off: start, line: p.Line, col: 1, want: textPos{line, col}, at: textPos{1, 1}}
	for r.col < p.Col && !r.eof() && !r.isBreak() {
		r.advance()
	}
	if r.col != p.Col {
		return 0, 0, false
	}
	switch {
	case p.style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		r.block(p.style&yaml.FoldedStyle != 0, parentIndent(src[start:], p.Col))
	case p.style&yaml.DoubleQuotedStyle != 0:
		r.advance()
		r.quoted('"')
	case p.style&yaml.SingleQuotedStyle != 0:
		r.advance()
		r.quoted('\'')
	default:
		r.plain(parentIndent(src[start:], p.Col) + 1)
	}
	if !r.done && r.at == r.want && r.last.line > 0 {
		// One past the last character: where a compiler reports an end it did not expect.
		return r.last.line, r.last.col + 1, true
	}
	return r.found.line, r.found.col, r.done
}

// parentIndent is the indentation of the node that holds a scalar starting at column col of
// line: the mapping whose key starts the line (after any "- "), or the list whose item the
// scalar is. A block scalar's indentation indicator (|2) counts from it, and the lines of a
// plain scalar are indented more.
func parentIndent(line []byte, col int) int {
	i, parent := 0, 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	parent = i
	for i+1 < len(line) && line[i] == '-' && line[i+1] == ' ' {
		dash := i
		for i++; i < len(line) && line[i] == ' '; i++ {
		}
		if i == col-1 {
			return dash
		}
		parent = i
	}
	return parent
}

// offsetOfLine is the byte offset where line n (from 1) of src starts.
func offsetOfLine(src []byte, n int) (int, bool) {
	off := 0
	for ; n > 1; n-- {
		i := indexByte(src[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	return off, n == 1
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

func (r *scalarReader) eof() bool { return r.off >= len(r.src) }

func (r *scalarReader) peek() byte {
	if r.eof() {
		return 0
	}
	return r.src[r.off]
}

func (r *scalarReader) peekAt(i int) byte {
	if r.off+i >= len(r.src) {
		return 0
	}
	return r.src[r.off+i]
}

func (r *scalarReader) isBreak() bool { c := r.peek(); return c == '\n' || c == '\r' }

func (r *scalarReader) isBlank() bool { c := r.peek(); return c == ' ' || c == '\t' }

// advance moves past one character of the file.
func (r *scalarReader) advance() {
	if r.eof() {
		return
	}
	if r.src[r.off] == '\n' {
		r.off++
		r.line, r.col = r.line+1, 1
		return
	}
	_, size := utf8.DecodeRune(r.src[r.off:])
	r.off += size
	r.col++
}

// skipBreak moves past one line break (\n or \r\n).
func (r *scalarReader) skipBreak() {
	if r.peek() == '\r' {
		r.off++
		r.col++
	}
	if r.peek() == '\n' {
		r.advance()
	}
}

// emit produces one character of the value, written at pos; '\n' starts a new value line.
func (r *scalarReader) emit(c byte, pos textPos) {
	if r.done {
		return
	}
	if r.at == r.want {
		r.found, r.done = pos, true
		return
	}
	r.last = pos
	if c == '\n' {
		r.at = textPos{r.at.line + 1, 1}
	} else {
		r.at.col++
	}
}

// char produces the file's next character as the value's.
func (r *scalarReader) char() {
	r.emit(r.peek(), textPos{r.line, r.col})
	r.advance()
}

func (r *scalarReader) here() textPos { return textPos{r.line, r.col} }

// quoted reads a quoted scalar's text after its opening quote up to its closing one.
func (r *scalarReader) quoted(q byte) {
	for !r.done && !r.eof() {
		switch c := r.peek(); {
		case c == q && q == '\'' && r.peekAt(1) == '\'':
			r.char() // '' is one quote
			r.advance()
		case c == q:
			return
		case c == '\\' && q == '"':
			r.escape()
		case r.isBlank():
			r.blanks()
		case r.isBreak():
			r.fold()
		default:
			r.char()
		}
	}
}

// escape reads a backslash escape of a double-quoted scalar: one character of the value, or
// nothing for an escaped line break.
func (r *scalarReader) escape() {
	pos := r.here()
	r.advance()
	if r.isBreak() {
		r.skipBreak()
		for r.isBlank() {
			r.advance()
		}
		return
	}
	hex := map[byte]int{'x': 2, 'u': 4, 'U': 8}[r.peek()]
	r.emit(r.peek(), pos)
	for range 1 + hex {
		r.advance()
	}
}

// blanks reads spaces and tabs: text, unless a line break ends them.
func (r *scalarReader) blanks() {
	start, line, col := r.off, r.line, r.col
	for r.isBlank() {
		r.advance()
	}
	if r.isBreak() || r.eof() {
		return
	}
	for i := start; i < r.off; i++ {
		r.emit(r.src[i], textPos{line, col + i - start})
	}
}

// fold reads a line break inside flow text and the empty lines after it: a space, or a line
// break for each empty line.
func (r *scalarReader) fold() {
	pos := r.here()
	r.skipBreak()
	empty := 0
	for {
		for r.isBlank() {
			r.advance()
		}
		if !r.isBreak() {
			break
		}
		empty++
		r.skipBreak()
	}
	if empty == 0 {
		r.emit(' ', pos)
	}
	for range empty {
		r.emit('\n', pos)
	}
}

// plain reads a plain scalar: its lines go on while they are indented at least minIndent (more
// than the node that holds it), and it
// ends at ": ", " #" or a line that is empty or a comment.
func (r *scalarReader) plain(minIndent int) {
	for !r.done && !r.eof() {
		switch c := r.peek(); {
		case c == ':' && (r.peekAt(1) == ' ' || r.peekAt(1) == '\t' || r.peekAt(1) == '\n' || r.peekAt(1) == '\r' || r.peekAt(1) == 0):
			return
		case r.isBlank():
			if r.blankComment() {
				return
			}
			r.blanks()
		case r.isBreak():
			if !r.continues(minIndent) {
				return
			}
			r.fold()
		default:
			r.char()
		}
	}
}

// blankComment reports blanks followed by '#', which start a comment.
func (r *scalarReader) blankComment() bool {
	i := r.off
	for i < len(r.src) && (r.src[i] == ' ' || r.src[i] == '\t') {
		i++
	}
	return i < len(r.src) && r.src[i] == '#'
}

// continues reports whether the line after the break at r holds more of a plain scalar: it is
// indented at least minIndent and is not a comment.
func (r *scalarReader) continues(minIndent int) bool {
	i := r.off
	for i < len(r.src) && (r.src[i] == '\n' || r.src[i] == '\r' || r.src[i] == ' ' || r.src[i] == '\t') {
		indent := 0
		if r.src[i] == '\n' {
			i++
			for i < len(r.src) && r.src[i] == ' ' {
				i++
				indent++
			}
			if i < len(r.src) && r.src[i] != '\n' && r.src[i] != '\r' {
				return indent >= minIndent && r.src[i] != '#'
			}
			continue
		}
		i++
	}
	return false
}

// block reads a block scalar from its indicator: the text below it, at the indentation its first
// line of text sets, lines of a folded one joined as YAML joins them.
func (r *scalarReader) block(folded bool, parent int) {
	r.advance() // | or >
	explicit := 0
	for c := r.peek(); c >= '1' && c <= '9' || c == '+' || c == '-'; c = r.peek() {
		if c >= '1' && c <= '9' {
			explicit = int(c - '0')
		}
		r.advance()
	}
	for !r.eof() && !r.isBreak() {
		r.advance() // comments, to the end of the indicator's line
	}
	r.skipBreak()
	indent := r.blockIndent()
	if explicit > 0 {
		indent = parent + explicit
	}
	if indent < 1 {
		return
	}
	leading, trailing := "", ""
	leadingBlank := false
	for !r.done && !r.eof() {
		n := 0
		for r.peek() == ' ' && n < indent {
			r.advance()
			n++
		}
		if r.isBreak() || r.eof() {
			trailing += "\n"
			r.skipBreak()
			continue
		}
		if n < indent {
			return // less indented: the scalar has ended
		}
		trailingBlank := r.isBlank()
		brk := r.here()
		if folded && leading != "" && !leadingBlank && !trailingBlank {
			if trailing == "" {
				r.emit(' ', brk)
			}
		} else if leading != "" {
			r.emit('\n', brk)
		}
		for range len(trailing) {
			r.emit('\n', brk)
		}
		leading, trailing, leadingBlank = "", "", trailingBlank
		for !r.done && !r.eof() && !r.isBreak() {
			r.char()
		}
		if r.isBreak() {
			leading = "\n"
			r.emit0()
			r.skipBreak()
		}
	}
}

// emit0 notes the end of a block scalar's line, so that one past its last character is found
// even when the next character produced is on a later line.
func (r *scalarReader) emit0() {
	if !r.done && r.at == r.want {
		r.found, r.done = r.here(), true
	}
}

// blockIndent is the indentation of a block scalar's text, its first line that is not empty
// setting it; 0 when it has no text.
func (r *scalarReader) blockIndent() int {
	i := r.off
	for i < len(r.src) {
		n := 0
		for i < len(r.src) && r.src[i] == ' ' {
			i++
			n++
		}
		if i < len(r.src) && r.src[i] != '\n' && r.src[i] != '\r' {
			return n
		}
		for i < len(r.src) && r.src[i] != '\n' {
			i++
		}
		i++
	}
	return 0
}

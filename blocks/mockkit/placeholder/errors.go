package placeholder

import (
	"errors"
	"fmt"

	"github.com/octo-run/octo/runtime/config"
)

// Pos is where a tag starts in the template text.
type Pos struct {
	Offset int // byte offset of the tag's "{{"
	Line   int // 1-based line within the text
	Column int // 1-based column in characters (runes), as yaml.v3 counts them
}

// Error is a compile error in one tag; Compile joins one per bad tag.
type Error struct {
	Pos
	Tag string // the tag as written, shortened when long
	Msg string // what is wrong, lowercase
}

// Error formats as "line:col: what", so a caller can prefix the file and shift the line.
func (e *Error) Error() string {
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg)
}

// maxTagShown bounds Error.Tag: a stray "{{" in prose can swallow a long text.
const maxTagShown = 60

func newError(pos Pos, tag, format string, a ...any) *Error {
	if len(tag) > maxTagShown {
		tag = tag[:maxTagShown] + "…"
	}
	return &Error{Pos: pos, Tag: tag, Msg: fmt.Sprintf(format, a...)}
}

// posTracker turns byte offsets into lines and columns in one forward pass, because
// tags are met in order and a template may hold thousands of them.
type posTracker struct {
	text      string
	off       int
	line, col int
}

func newPosTracker(text string) *posTracker {
	return &posTracker{text: text, line: 1, col: 1}
}

// at returns the position of off; offsets must not decrease between calls.
func (p *posTracker) at(off int) Pos {
	for ; p.off < off; p.off++ {
		switch c := p.text[p.off]; {
		case c == '\n':
			p.line, p.col = p.line+1, 1
		case c&0xC0 != 0x80: // count a rune at its first byte only
			p.col++
		}
	}
	return Pos{Offset: off, Line: p.line, Column: p.col}
}

// suggest returns the candidate closest to name, or "" when none is close enough to be
// a likely typo; the runtime's rule, so every "did you mean" in octo agrees.
func suggest(name string, candidates []string) string { return config.Suggest(name, candidates) }

// didYouMean formats a suggestion as a parenthesised hint, or "" when there is none.
func didYouMean(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q)", s)
}

// CompileAt compiles text written in the setting at, each bad tag a diagnostic at its own line
// and column in the file.
func CompileAt(text string, vars map[string]string, at config.Position) (*Template, config.Diags) {
	t, err := Compile(text, vars)
	if err == nil {
		return t, nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	var ds config.Diags
	for _, e := range errs {
		var pe *Error
		if errors.As(e, &pe) {
			ds = append(ds, at.DiagInside(pe.Line, pe.Column, pe.Msg))
		} else {
			ds = append(ds, at.Diag(e.Error()))
		}
	}
	return nil, ds
}

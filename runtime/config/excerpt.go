package config

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// excerptWidth bounds the characters of a line an excerpt shows: a long line (minified JSON in a
// value) is cut to a window around the column.
const excerptWidth = 100

// Explain renders ds for people: each diagnostic on its line as Error writes it, followed, when
// it has a line and a column and its file can be read, by that line of the file and a caret under
// the column. Files are read once each, through ReadFile; the text Error gives (one line per
// diagnostic) stays the form for logs and machines.
func (ds Diags) Explain() string {
	files := map[string][]byte{}
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String())
		b.WriteByte('\n')
		if d.File == "" || d.Line < 1 || d.Col < 1 {
			continue
		}
		src, ok := files[d.File]
		if !ok {
			src, _ = ReadFile(d.File) // a file gone since is shown without its line
			files[d.File] = src
		}
		b.WriteString(d.Excerpt(src))
	}
	return b.String()
}

// Excerpt is the line of src that d points into, without its indentation, and a caret under d's
// column, each indented by four spaces and ending in a line break; "" when src has no such line or column. Control
// characters are shown as spaces, so a hostile file cannot drive the terminal; tabs are kept,
// on both lines, so the caret stays under its character.
func (d Diag) Excerpt(src []byte) string {
	if _, ok := offsetOfLine(src, d.Line); !ok || len(src) == 0 || d.Line < 1 {
		return ""
	}
	line := []rune(lineOf(src, d.Line))
	col := d.Col - 1
	if col < 0 || col > len(line) {
		return ""
	}
	lead := 0 // the line's indentation is left out: the caret shows where in it, not the file
	for lead < col && (line[lead] == ' ' || line[lead] == '\t') {
		lead++
	}
	line, col = line[lead:], col-lead
	from, to, pre, post := 0, len(line), "", ""
	if len(line) > excerptWidth {
		from = max(0, min(col-excerptWidth*2/3, len(line)-excerptWidth))
		to = from + excerptWidth
		if from > 0 {
			pre = "..."
		}
		if to < len(line) {
			post = "..."
		}
	}
	var text, caret strings.Builder
	text.WriteString("    " + pre)
	caret.WriteString("    " + strings.Repeat(" ", len(pre)))
	for i, r := range line[from:to] {
		if r != '\t' && (unicode.IsControl(r) || r == utf8.RuneError) {
			r = ' '
		}
		text.WriteRune(r)
		if from+i < col {
			switch {
			case r == '\t':
				caret.WriteByte('\t')
			case wide(r):
				caret.WriteString("  ")
			default:
				caret.WriteByte(' ')
			}
		}
	}
	return text.String() + post + "\n" + caret.String() + "^\n"
}

// wide reports a character terminals show two columns wide (East Asian wide and full-width
// characters, emoji), so the caret under a line holding them stays under its character.
func wide(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf && r != 0x303f, r >= 0xac00 && r <= 0xd7a3,
		r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f, r >= 0xff00 && r <= 0xff60,
		r >= 0xffe0 && r <= 0xffe6, r >= 0x1f300 && r <= 0x1f64f, r >= 0x1f900 && r <= 0x1f9ff,
		r >= 0x20000 && r <= 0x3fffd:
		return true
	}
	return false
}

package runtime

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/octo-run/octo/runtime/config"
)

// Template is text with {{ expression }} tags, split and compiled once.
type Template struct {
	text  string
	segs  []segment
	plain bool // no tags: the text is the answer
	size  int  // a first guess at a rendered length
}

// segment is a run of text or one tag.
type segment struct {
	text string
	tag  *Expr // nil for text
}

// CompileTemplate parses text and compiles each tag as an expression. The
// error, when any, is an *ExprError whose line and column are inside text.
func CompileTemplate(text string, env map[string]string) (*Template, error) {
	return compileTemplate(plainText(text), env)
}

// compileTemplate compiles a template written as w. Its tags are where w's
// literal text has them: a variable's value is text outside tags, never the
// start or end of one, and a literal inside them (see source.go). Error
// positions are in w.Written.
func compileTemplate(w config.Interpolation, env map[string]string) (*Template, error) {
	sk := newSkeleton(piecesOf(w), len(w.Written))
	t := &Template{text: w.Value()}
	tags := map[string]*Expr{}
	offset := 0
	for {
		i := strings.Index(sk.text[offset:], "{{")
		if i < 0 {
			t.addText(sk.value(offset, len(sk.text)))
			break
		}
		i += offset
		t.addText(sk.value(offset, i))
		j := strings.Index(sk.text[i+2:], "}}")
		if j < 0 {
			return nil, (&problem{sk.written(i), `"{{" is not closed by "}}"`}).in(w.Written)
		}
		j += i + 2
		src, p := newSource(sk.pieces(i+2, j), sk.written(i+2))
		if p != nil {
			return nil, p.in(w.Written)
		}
		src.orig = w.Written[sk.written(i+2):sk.written(j)]
		e, ok := tags[src.text]
		if !ok {
			if e, p = compileSource(src, env); p != nil {
				return nil, p.in(w.Written)
			}
			tags[src.text] = e
		}
		t.segs = append(t.segs, segment{tag: e})
		offset = j + 2
	}
	t.plain = len(tags) == 0
	for _, s := range t.segs {
		t.size += len(s.text) + 16
	}
	return t, nil
}

func (t *Template) addText(s string) {
	if s == "" {
		return
	}
	if n := len(t.segs); n > 0 && t.segs[n-1].tag == nil {
		t.segs[n-1].text += s
		return
	}
	t.segs = append(t.segs, segment{text: s})
}

// Text returns the template's text, variables replaced.
func (t *Template) Text() string { return t.text }

// Render fills every tag from the message: strings as they are, other
// values as JSON, nil as nothing.
func (t *Template) Render(m *Message) (string, error) {
	if t.plain {
		return t.text, nil
	}
	var b strings.Builder
	b.Grow(t.size)
	for _, s := range t.segs {
		if s.tag == nil {
			b.WriteString(s.text)
			continue
		}
		v, err := s.tag.Eval(m)
		if err != nil {
			return "", err
		}
		switch v := v.(type) {
		case nil:
		case string:
			b.WriteString(v)
		default:
			j, err := json.Marshal(v)
			if err != nil {
				return "", fmt.Errorf("template tag {{%s}}: %w", s.tag.Source(), err)
			}
			b.Write(j)
		}
	}
	return b.String(), nil
}

// skeleton is a template's pieces with each variable's value stood for by
// one byte that is no brace, so that only literal text can open or close a
// tag.
type skeleton struct {
	text   string
	ps     []piece
	starts []int // where each piece starts in text
	end    int   // the length of the text as written
}

func newSkeleton(ps []piece, end int) *skeleton {
	sk := &skeleton{ps: ps, starts: make([]int, len(ps)), end: end}
	var b strings.Builder
	for i, p := range ps {
		sk.starts[i] = b.Len()
		if p.name != "" {
			b.WriteByte(0)
		} else {
			b.WriteString(p.text)
		}
	}
	sk.text = b.String()
	return sk
}

// pieces returns the pieces of skeleton range [lo, hi).
func (sk *skeleton) pieces(lo, hi int) []piece {
	var out []piece
	for i, p := range sk.ps {
		start, end := sk.starts[i], sk.starts[i]+1
		if p.name == "" {
			end = start + len(p.text)
		}
		if end <= lo || start >= hi {
			continue
		}
		if p.name == "" {
			from, to := max(lo, start)-start, min(hi, end)-start
			p = piece{text: p.text[from:to], at: p.at + from}
		}
		out = append(out, p)
	}
	return out
}

// value is the text of skeleton range [lo, hi), variables replaced.
func (sk *skeleton) value(lo, hi int) string {
	var b strings.Builder
	for _, p := range sk.pieces(lo, hi) {
		b.WriteString(p.text)
	}
	return b.String()
}

// written maps a skeleton offset to the text as written.
func (sk *skeleton) written(off int) int {
	if off >= len(sk.text) {
		return sk.end
	}
	i := sort.SearchInts(sk.starts, off+1) - 1
	if p := sk.ps[i]; p.name == "" {
		return p.at + off - sk.starts[i]
	}
	return sk.ps[i].at
}

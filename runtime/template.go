package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/valyala/fasttemplate"

	"github.com/octo-run/octo/runtime/config"
)

// Template is text with {{ expression }} tags, split and compiled once.
type Template struct {
	text string                 // the text, variables replaced: the answer when there are no tags
	ft   *fasttemplate.Template // nil when there are no tags
	tags map[string]tag         // what each of ft's tags stands for
}

// tag is one tag of a template's fasttemplate: a compiled expression, or
// text fixed at build time (a run of text that holds a variable's value).
type tag struct {
	expr *Expr
	text string
}

// CompileTemplate parses text and compiles each tag as an expression. The
// error, when any, is an *ExprError whose line and column are inside text.
func CompileTemplate(text string, env map[string]string) (*Template, error) {
	return compileTemplate(plainText(text), &exprScope{env: env})
}

// compileTemplate compiles a template written as w. Its tags are where w's
// literal text has them: a variable's value is text outside tags, never the
// start or end of one, and a literal inside them (see source.go). Error
// positions are in w.Written; the names its tags read are checked against sc.
//
// fasttemplate splits w's skeleton (its literal text, each variable one byte
// that is no brace); a walk over that split compiles each tag once and
// writes the text fasttemplate renders from, where a run of text holding a
// variable is a tag too, so that no value is ever parsed for braces.
func compileTemplate(w config.Interpolation, sc *exprScope) (*Template, error) {
	wk := &walk{w: w, sc: sc, cur: cursor{parts: w.Parts, end: len(w.Written)},
		tags: map[string]tag{}, bySource: map[string]string{}}
	sk := skeleton(w.Parts)
	open := unclosed(sk)
	if open >= 0 {
		// The tags before it are compiled first: the first problem in the
		// text is the one reported.
		sk = sk[:open]
	}
	if _, err := fasttemplate.New(sk, "{{", "}}").ExecuteFunc(wk, wk.tag); err != nil {
		return nil, err
	}
	if open >= 0 {
		return nil, (&problem{wk.cur.at(), `"{{" is not closed by "}}"`}).in(w.Written)
	}
	t := &Template{text: w.Value()}
	if len(wk.bySource) == 0 {
		return t, nil // text and values only: rendering is the text
	}
	// Every "{{" of the walk's text opens a tag it wrote, as its runs of
	// literal text hold no "{{" and none ends in "{" before a tag.
	t.ft, t.tags = fasttemplate.New(wk.out.String(), "{{", "}}"), wk.tags
	return t, nil
}

// Static returns the text of a template without tags, and reports whether it has none: such a
// template renders the same for every message, so a block can check its value once, at build.
func (t *Template) Static() (string, bool) { return t.text, t.ft == nil }

// Lead is the text a template renders before its first expression tag, the same for every
// message: all of it when it has none. A block checks at build what a value can never change
// (http-request: a URL's scheme and host).
func (t *Template) Lead() string {
	if t.ft == nil {
		return t.text
	}
	var b strings.Builder
	_, _ = t.ft.ExecuteFunc(&b, func(w io.Writer, name string) (int, error) {
		tg := t.tags[name]
		if tg.expr != nil {
			return 0, errLeadEnds
		}
		return io.WriteString(w, tg.text)
	})
	return b.String()
}

// errLeadEnds stops Lead at the first expression tag.
var errLeadEnds = errors.New("the lead ends at an expression")

// Render fills every tag from the message: strings as they are, other
// values as JSON, nil as nothing.
func (t *Template) Render(m *Message) (string, error) {
	if t.ft == nil {
		return t.text, nil
	}
	return t.ft.ExecuteFuncStringWithErr(func(w io.Writer, key string) (int, error) {
		return t.tags[key].render(w, m)
	})
}

func (tg tag) render(w io.Writer, m *Message) (int, error) {
	if tg.expr == nil {
		return io.WriteString(w, tg.text)
	}
	v, err := tg.expr.Eval(m)
	if err != nil {
		return 0, err
	}
	switch v := v.(type) {
	case nil:
		return 0, nil
	case string:
		return io.WriteString(w, v)
	}
	j, err := json.Marshal(v)
	if err != nil {
		return 0, fmt.Errorf("template tag {{%s}}: %w", tg.expr.Source(), err)
	}
	return w.Write(j)
}

// skeleton is the literal text of parts with each variable as one byte that
// is no brace, so that only literal text can open or close a tag.
func skeleton(parts []config.Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Var != "" {
			b.WriteByte(0)
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// unclosed is where the "{{" that no "}}" closes opens in skeleton sk, or
// -1: the first "{{" after the last "}}", as every "{{" before that has a
// "}}" after it.
func unclosed(sk string) int {
	from := 0
	if i := strings.LastIndex(sk, "}}"); i >= 0 {
		from = i + len("}}")
	}
	if i := strings.Index(sk[from:], "{{"); i >= 0 {
		return from + i
	}
	return -1
}

// walk goes through a split skeleton in order (fasttemplate writes each run
// of text to it and hands it each tag), compiling the tags and writing the
// text the template renders from.
type walk struct {
	w        config.Interpolation
	sc       *exprScope
	cur      cursor
	out      strings.Builder
	tags     map[string]tag
	bySource map[string]string // the key of each compiled expression, by its source text
}

// Write takes a run of text between tags.
func (wk *walk) Write(run []byte) (int, error) {
	var text strings.Builder
	vars := false
	for _, p := range wk.cur.take(len(run)) {
		text.WriteString(p.Text)
		vars = vars || p.Var != ""
	}
	if vars {
		wk.add(tag{text: text.String()})
	} else {
		wk.out.Write(run)
	}
	return len(run), nil
}

// tag takes a tag, src being its skeleton text, and compiles it once.
func (wk *walk) tag(_ io.Writer, src string) (int, error) {
	wk.cur.take(len("{{"))
	from := wk.cur.at()
	parts := wk.cur.take(len(src))
	to := wk.cur.at()
	wk.cur.take(len("}}"))
	s, p := newSource(parts, from)
	if p != nil {
		return 0, p.in(wk.w.Written)
	}
	if key, ok := wk.bySource[s.text]; ok {
		wk.out.WriteString("{{" + key + "}}")
		return 0, nil
	}
	s.orig = wk.w.Written[from:to]
	e, p := compileSource(s, wk.sc)
	if p != nil {
		return 0, p.in(wk.w.Written)
	}
	wk.bySource[s.text] = wk.add(tag{expr: e})
	return 0, nil
}

// add writes a new tag and returns its key.
func (wk *walk) add(tg tag) string {
	key := strconv.Itoa(len(wk.tags))
	wk.tags[key] = tg
	wk.out.WriteString("{{" + key + "}}")
	return key
}

// cursor walks parts along their skeleton, where a variable is one byte.
type cursor struct {
	parts []config.Part
	off   int // how much of parts[0] is taken
	end   int // the length of the text as written
}

// take returns the parts of the next n skeleton bytes.
func (c *cursor) take(n int) []config.Part {
	var out []config.Part
	for n > 0 {
		p, size := c.parts[0], len(c.parts[0].Text)
		if p.Var != "" {
			size = 1
		}
		k := min(n, size-c.off)
		if k > 0 && p.Var == "" {
			p = config.Part{Text: p.Text[c.off : c.off+k], At: p.At + c.off}
		}
		if k > 0 {
			out = append(out, p)
		}
		n, c.off = n-k, c.off+k
		if c.off == size {
			c.parts, c.off = c.parts[1:], 0
		}
	}
	return out
}

// at is where the next skeleton byte is in the text as written.
func (c *cursor) at() int {
	if len(c.parts) == 0 {
		return c.end
	}
	return c.parts[0].At + c.off
}

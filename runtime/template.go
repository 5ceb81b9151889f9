package runtime

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/valyala/fasttemplate"
)

// Template is text with {{ expression }} tags, split and compiled once.
type Template struct {
	text  string
	ft    *fasttemplate.Template
	tags  map[string]*Expr
	plain bool
}

// CompileTemplate parses text and compiles each tag as an expression. The
// error, when any, is an *ExprError whose line and column are inside text.
func CompileTemplate(text string, env map[string]string) (*Template, error) {
	t := &Template{text: text, tags: map[string]*Expr{}}
	if !strings.Contains(text, "{{") {
		t.plain = true
		return t, nil
	}
	if err := checkBraces(text); err != nil {
		return nil, err
	}
	ft, err := fasttemplate.NewTemplate(text, "{{", "}}")
	if err != nil {
		return nil, &ExprError{Line: 1, Column: 1, Msg: err.Error()}
	}
	offset := 0
	for {
		i := strings.Index(text[offset:], "{{")
		if i < 0 {
			break
		}
		start := offset + i + 2
		end := start + strings.Index(text[start:], "}}")
		tag := text[start:end]
		if _, done := t.tags[tag]; !done {
			e, err := CompileExpr(tag, env)
			if err != nil {
				return nil, shiftExprError(err.(*ExprError), text, start)
			}
			t.tags[tag] = e
		}
		offset = end + 2
	}
	t.ft = ft
	return t, nil
}

// Text returns the template as written.
func (t *Template) Text() string { return t.text }

// Render fills every tag from the message: strings as they are, other
// values as JSON, nil as nothing.
func (t *Template) Render(m *Message) (string, error) {
	if t.plain {
		return t.text, nil
	}
	return t.ft.ExecuteFuncStringWithErr(func(w io.Writer, tag string) (int, error) {
		v, err := t.tags[tag].Eval(m)
		if err != nil {
			return 0, err
		}
		switch v := v.(type) {
		case nil:
			return 0, nil
		case string:
			return io.WriteString(w, v)
		default:
			b, err := json.Marshal(v)
			if err != nil {
				return 0, fmt.Errorf("template tag {{%s}}: %w", tag, err)
			}
			return w.Write(b)
		}
	})
}

// checkBraces rejects an opening {{ without its closing }}, which
// fasttemplate would otherwise report without a position.
func checkBraces(text string) error {
	offset := 0
	for {
		i := strings.Index(text[offset:], "{{")
		if i < 0 {
			return nil
		}
		start := offset + i
		j := strings.Index(text[start+2:], "}}")
		if j < 0 {
			line, col := lineCol(text, start)
			return &ExprError{Line: line, Column: col, Msg: `"{{" is not closed by "}}"`}
		}
		offset = start + 2 + j + 2
	}
}

// shiftExprError turns a position inside a tag into one inside the text.
func shiftExprError(e *ExprError, text string, tagStart int) *ExprError {
	line, col := lineCol(text, tagStart)
	if e.Line > 1 {
		return &ExprError{Line: line + e.Line - 1, Column: e.Column, Msg: e.Msg}
	}
	return &ExprError{Line: line, Column: col + e.Column - 1, Msg: e.Msg}
}

func lineCol(text string, offset int) (int, int) {
	line := 1 + strings.Count(text[:offset], "\n")
	col := offset - strings.LastIndex(text[:offset], "\n")
	return line, col
}

package runtime

import (
	"errors"
	"strings"
	"testing"
)

// FuzzTemplate compiles arbitrary template text and renders it against an arbitrary body and
// claims: nothing may panic, a compile error must be an *ExprError whose position lies inside
// the text, and text without tags must render as itself.
func FuzzTemplate(f *testing.F) {
	for _, seed := range []struct{ text, body string }{
		{"plain text", `{}`},
		{"# {{ body.city }}", `{"city":"São Paulo"}`},
		{"tags: {{body.tags}} n={{ body.n + 1 }}", `{"tags":["a","b"],"n":3}`},
		{"[{{ body.missing }}]", `null`},
		{"{{ vars.jwt.sub }} {{ headers['Authorization'] }} {{ env.HOME }}", `{}`},
		{"Hello {{ body.city", `{}`},
		{"line one\nsee {{ body.city + }}", `{}`},
		{"{{ city }}", `{}`},
		{"{{}}{{ }}}}{{{{", `[]`},
		{"{{ 1..100000000 | map(#) }}", `{}`},
		{"{{ body.a.b.c.d }}", `{"a":{"b":1}}`},
		{"{{ body / 0 }} {{ int(body) }}", `"x"`},
		{"{{ toJSON(body) }}", `{"nested":[[[[[1]]]]]}`},
		{"\xff{{ \"\xfe\" }}", `not json`},
	} {
		f.Add(seed.text, []byte(seed.body))
	}
	env := map[string]string{"HOME": "/home/octo"}
	f.Fuzz(func(t *testing.T, text string, body []byte) {
		tp, err := CompileTemplate(text, env)
		if err != nil {
			var ee *ExprError
			if !errors.As(err, &ee) {
				t.Fatalf("compile error %T %v is not an *ExprError", err, err)
			}
			if lines := strings.Count(text, "\n") + 1; ee.Line < 1 || ee.Line > lines || ee.Column < 1 {
				t.Fatalf("error position %d:%d outside a text of %d lines: %s", ee.Line, ee.Column, lines, ee.Msg)
			}
			return
		}
		m := NewMessage(body)
		m.SetVar("jwt", map[string]any{"sub": "user-1", "scope": "a b"})
		m.Attrs = Attributes{"Authorization": {"Bearer x"}}
		out, err := tp.Render(m)
		if !strings.Contains(text, "{{") && (err != nil || out != text) {
			t.Fatalf("text without tags rendered as %q, %v", out, err)
		}
	})
}

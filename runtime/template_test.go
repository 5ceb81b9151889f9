package runtime

import (
	"fmt"
	"strings"
	"testing"
)

func sprint(v any) string { return fmt.Sprint(v) }

func TestTemplatesRenderTags(t *testing.T) {
	m := NewMessage([]byte(`{"city":"São Paulo","tags":["a","b"],"n":3}`))
	cases := []struct{ name, text, want string }{
		{"text without tags is returned as is", "plain text", "plain text"},
		{"a string tag is inserted as text", "# {{ body.city }}", "# São Paulo"},
		{"an array is inserted as JSON", "tags: {{body.tags}}", `tags: ["a","b"]`},
		{"a number is inserted as JSON", "n={{ body.n + 1 }}", "n=4"},
		{"a missing field inserts nothing", "[{{ body.missing }}]", "[]"},
		{"the same tag twice is compiled once and rendered twice", "{{body.city}}/{{body.city}}", "São Paulo/São Paulo"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tp, err := CompileTemplate(c.text, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tp.Render(m)
			if err != nil || got != c.want {
				t.Fatalf("got %q %v, want %q", got, err, c.want)
			}
		})
	}
}

func TestATemplateWithoutTagsIsStatic(t *testing.T) {
	cases := []struct {
		name, text, want string
		static           bool
	}{
		{"plain text is static", "https://api.example.com/v1", "https://api.example.com/v1", true},
		{"a tag makes it dynamic", "https://api.example.com/{{ body.city }}", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tp, err := CompileTemplate(c.text, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, static := tp.Static(); static != c.static || static && got != c.want {
				t.Fatalf("Static() = %q, %v; want %q, %v", got, static, c.want, c.static)
			}
		})
	}
}

func TestTemplateErrorsPointAtTheTag(t *testing.T) {
	cases := []struct {
		name, text string
		line, col  int
		contains   string
	}{
		{"an unclosed tag", "Hello {{ body.city", 1, 7, "not closed"},
		{"a bad expression in the second line", "line one\nsee {{ body.city + }}", 2, 19, "unexpected token EOF"},
		{"an unknown name", "{{ city }}", 1, 4, "unknown name city"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := CompileTemplate(c.text, nil)
			ee, ok := err.(*ExprError)
			if !ok {
				t.Fatalf("got %T %v", err, err)
			}
			if ee.Line != c.line || ee.Column != c.col || !strings.Contains(ee.Msg, c.contains) {
				t.Fatalf("got %d:%d %q, want %d:%d %q", ee.Line, ee.Column, ee.Msg, c.line, c.col, c.contains)
			}
		})
	}
}

func BenchmarkTemplateRender(b *testing.B) {
	tp, _ := CompileTemplate("# {{ body.city }}\n\nA profile of {{ body.city }}.", nil)
	m := NewMessage(nil)
	m.SetBody(map[string]any{"city": "Lisbon"})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tp.Render(m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExprEval(b *testing.B) {
	e, _ := CompileExpr(`{"city": body.city, "summary": "Sunny, 24C"}`, nil)
	m := NewMessage(nil)
	m.SetBody(map[string]any{"city": "Lisbon"})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Eval(m); err != nil {
			b.Fatal(err)
		}
	}
}

func TestTheLeadIsTheTextBeforeTheFirstTag(t *testing.T) {
	for text, want := range map[string]string{
		"https://api.example.com/v1":                 "https://api.example.com/v1",
		"https://api.example.com/v1/{{ body.city }}": "https://api.example.com/v1/",
		"https://{{ body.host }}/v1":                 "https://",
		"{{ body.url }}":                             "",
	} {
		tp, err := CompileTemplate(text, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := tp.Lead(); got != want {
			t.Errorf("Lead(%q) = %q, want %q", text, got, want)
		}
	}
}

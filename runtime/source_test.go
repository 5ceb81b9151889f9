package runtime

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/octo-run/octo/runtime/config"
)

// withVar is the text before + ${X} + after, X having value.
func withVar(before, value, after string) config.Interpolation {
	return config.Interpolation{
		Written: before + "${X}" + after,
		Parts: []config.Part{
			{Text: before}, {Text: value, Var: "X", At: len(before)}, {Text: after, At: len(before) + 4},
		},
	}
}

func evalWritten(t *testing.T, w config.Interpolation) any {
	t.Helper()
	e, err := compileExpr(w, &exprScope{})
	if err != nil {
		t.Fatalf("%q: %v", w.Written, err)
	}
	v, err := e.Eval(NewMessage(nil))
	if err != nil {
		t.Fatalf("%q: %v", w.Written, err)
	}
	return v
}

func TestAVariableInCodeIsTypedLikeAJSONValue(t *testing.T) {
	cases := []struct {
		name, value string
		want        any
	}{
		{"an integer is a number", "8080", 8080},
		{"a negative integer is one number", "-3", -3},
		{"a fraction is a float", "0.5", 0.5},
		{"an exponent is a float", "1e3", 1000.0},
		{"an integer past int64 is a float", "99999999999999999999", 1e20},
		{"a number past float64 is text", "1e999", "1e999"},
		{"true is a boolean", "true", true},
		{"false is a boolean", "false", false},
		{"a leading zero makes text", "007", "007"},
		{"YAML's other spellings are text", "yes", "yes"},
		{"null is text", "null", "null"},
		{"the empty value is the empty text", "", ""},
		{"a name is text, not a name", "env", "env"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := evalWritten(t, withVar("", c.value, "")); got != c.want {
				t.Fatalf("got %#v, want %#v", got, c.want)
			}
		})
	}
	t.Run("a negative number keeps its sign under a power", func(t *testing.T) {
		if got := evalWritten(t, withVar("", "-3", " ** 2")); got != 9.0 {
			t.Fatalf("got %#v", got)
		}
	})
	t.Run("a number does not run into the name before it", func(t *testing.T) {
		if _, err := compileExpr(withVar("body", "1", ""), &exprScope{}); err == nil {
			t.Fatal("body${X} compiled as one name")
		}
	})
}

func TestAVariableInACommentIsLeftOut(t *testing.T) {
	for _, c := range []struct{ before, after string }{
		{"1 // ", ""}, {"1 /* ", " */"}, {"1 /*/ ", " */"},
	} {
		if got := evalWritten(t, withVar(c.before, "*/ + 2 /*\n + 3", c.after)); got != 1 {
			t.Errorf("%q: got %#v", c.before+"${X}"+c.after, got)
		}
	}
}

// FuzzAVariableIsAValue writes a fuzzed value in code and inside each kind of
// string literal: whatever it holds, the expression compiles and gives the
// value back, as text (or, in code, as the number or boolean it spells).
func FuzzAVariableIsAValue(f *testing.F) {
	for _, s := range []string{"", "x\" + env.SECRET + \"", "a'b`c", "``", "\\", "*/ 1 /*", "\n}}{{", "-1", "1e999", "99999999999999999999", "-0", "\x00\x7f", "é€😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		if !utf8.ValidString(value) {
			return // environment values are text
		}
		for _, q := range []string{`"`, `'`, "`", `b"`} {
			before, after := q, q[len(q)-1:]
			got := evalWritten(t, withVar(before, value, after))
			if q == `b"` {
				b, ok := got.([]byte)
				if !ok || string(b) != value {
					t.Fatalf("inside b\"...\": got %#v, want %q", got, value)
				}
				continue
			}
			if got != value {
				t.Fatalf("inside %s...%s: got %#v, want %q", before, after, got, value)
			}
		}
		got := evalWritten(t, withVar("", value, ""))
		if s, ok := got.(string); ok && s != value || !ok && !isNumber(value) && value != "true" && value != "false" {
			t.Fatalf("in code: got %#v for %q", got, value)
		}
	})
}

// written builds the text as written from literal runs and variables:
// "${NAME=value}" is a variable with its value, "$${" the escape.
func written(segs ...string) config.Interpolation {
	var w config.Interpolation
	for _, s := range segs {
		p := config.Part{At: len(w.Written)}
		switch {
		case s == "$${":
			p.Text = "${"
		case strings.HasPrefix(s, "${") && strings.Contains(s, "="):
			name, value, _ := strings.Cut(s[2:len(s)-1], "=")
			p.Var, p.Text, s = name, value, "${"+name+"}"
		default:
			p.Text = s
		}
		w.Parts = append(w.Parts, p)
		w.Written += s
	}
	return w
}

func TestTemplateTagsComeFromTheTextAsWritten(t *testing.T) {
	body := NewMessage([]byte(`{"a": "A"}`))
	cases := []struct {
		name string
		w    config.Interpolation
		want string
	}{
		{"braces in a value open and close no tag", written("a {{ ", "${X=}} {{}", " }} b"), "a }} {{ b"},
		{"a value that looks like a tag is text", written("<", "${X={{ body.a }}}", ">"), "<{{ body.a }}>"},
		{"a value between two braces keeps them apart", written("{", "${X=}", "{ body.a }}"), "{{ body.a }}"},
		{"a value right before the closing braces is inside the tag", written("{{ ", "${X=v}", "}}"), "v"},
		{"a value inside a tag is a literal", written("{{ body.a + ", "${X=}}{{\\}", " }}"), "A}}{{\\"},
		{"an escaped ${ next to a brace can open a tag", written("$${", "{ body.a }}"), "$A"},
		{"the same tag with different values is two tags", written("{{ ", "${X=1}", " }} {{ ", "${Y=2}", " }}"), "1 2"},
		{"text, values and tags in turn", written("", "${X=x}", "{{body.a}}", "${Y=y}", "-{{body.a}}-", "${X=x}"), "xAy-A-x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tp, err := compileTemplate(c.w, &exprScope{})
			if err != nil {
				t.Fatalf("%q: %v", c.w.Written, err)
			}
			if got, err := tp.Render(body); got != c.want || err != nil {
				t.Fatalf("%q rendered %q %v, want %q", c.w.Written, got, err, c.want)
			}
		})
	}
}

func TestTemplateErrorsWithVariablesPointAtTheTextAsWritten(t *testing.T) {
	cases := []struct {
		name     string
		w        config.Interpolation
		col      int
		contains string
	}{
		{"an unclosed tag after a value", written("", "${X={{}", " {{ body"), 6, "not closed"},
		{"a closed tag does not count as the unclosed one", written("{{ body }}", "${LONG=x}", " {{"), 19, "not closed"},
		{"a bad expression after a value", written("{{ ", "${X=1}", " + }}"), 10, "unexpected token"},
		{"a backslash before a value in a string", written(`{{ "\`, "${X=1}", `" }}`), 6, `a \ right before ${X}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := compileTemplate(c.w, &exprScope{})
			ee, ok := err.(*ExprError)
			if !ok || ee.Line != 1 || ee.Column != c.col || !strings.Contains(ee.Msg, c.contains) {
				t.Fatalf("%q: got %v (%d:%d), want 1:%d %q", c.w.Written, err, ee.Line, ee.Column, c.col, c.contains)
			}
		})
	}
}

func TestAVariableInJSONTextIsAJSONValue(t *testing.T) {
	cases := []struct {
		name string
		w    config.Interpolation
		want string
	}{
		{"inside a string it is part of the string", written(`{"d": "<`, `${X=", "x": {"type": "number"}, "y": "}`, `>"}`),
			`{"d": "<\", \"x\": {\"type\": \"number\"}, \"y\": \">"}`},
		{"inside a string backslashes and control characters are escaped", written(`["`, "${X=a\\b\n\x01<&>}", `"]`), `["a\\b\n\u0001<&>"]`},
		{"an escaped quote does not end the string", written(`["\"`, "${X=\"}", `"]`), `["\"\""]`},
		{"after a string it is a value", written(`{"a\\": `, "${X=x}", `}`), `{"a\\": "x"}`},
		{"a number stays a number", written(`[`, "${X=-12.5e3}", `]`), `[-12.5e3]`},
		{"an integer past int64 stays exact", written(`[`, "${X=12345678901234567890}", `]`), `[12345678901234567890]`},
		{"true, false and null stay literals", written(`[`, "${X=true}", `,`, "${Y=null}", `]`), `[true,null]`},
		{"anything else is a string", written(`{"n": `, `${X=5, "pattern": "^x"}`, `}`), `{"n": "5, \"pattern\": \"^x\""}`},
		{"a leading zero is text", written(`[`, "${X=007}", `]`), `["007"]`},
		{"the empty value is the empty string", written(`[`, "${X=}", `]`), `[""]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, p := jsonText(c.w)
			if p != nil || got != c.want {
				t.Fatalf("%q: got %s %v, want %s", c.w.Written, got, p, c.want)
			}
		})
	}
	t.Run("a backslash right before a value in a string is refused", func(t *testing.T) {
		_, p := jsonText(written(`["\`, "${X=x}", `"]`))
		if p == nil || p.off != 3 || p.msg != `a \ right before ${X} would escape its value; write \\ for a backslash` {
			t.Fatalf("got %+v", p)
		}
	})
}

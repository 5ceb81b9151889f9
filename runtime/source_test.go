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
	e, err := compileExpr(w, nil)
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
		if _, err := compileExpr(withVar("body", "1", ""), nil); err == nil {
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

func TestTemplateTagsComeFromTheTextAsWritten(t *testing.T) {
	w := withVar("a {{ ", "}} {{", " }} b")
	if _, err := compileTemplate(w, nil); err != nil {
		t.Fatal(err)
	}
	w = withVar("", "{{ body }}", "")
	tp, err := compileTemplate(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := tp.Render(NewMessage([]byte(`"x"`))); got != "{{ body }}" || err != nil {
		t.Fatalf("got %q %v", got, err)
	}
	if !strings.Contains(tp.Text(), "{{ body }}") {
		t.Fatalf("text %q", tp.Text())
	}
}

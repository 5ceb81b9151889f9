package runtime

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestExpressionsSeeTheMessage(t *testing.T) {
	m := NewMessage([]byte(`{"city":"Lisbon","n":2}`))
	m.Attrs = Attributes{"X-User": {"ada"}}
	m.SetVar("jwt", map[string]any{"sub": "user-1"})
	env := map[string]string{"REGION": "eu"}
	cases := []struct {
		name, src, want string
	}{
		{"a body field is read", `body.city`, `Lisbon`},
		{"arithmetic works on body numbers", `body.n * 21`, `42`},
		{"a map literal builds an object", `{"city": body.city, "summary": "Sunny, 24C"}`, `map[city:Lisbon summary:Sunny, 24C]`},
		{"vars left by earlier blocks are visible", `vars.jwt.sub`, `user-1`},
		{"headers are single strings by canonical name", `headers["X-User"]`, `ada`},
		{"declared env values are visible", `env.REGION + "-1"`, `eu-1`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := CompileExpr(c.src, env)
			if err != nil {
				t.Fatal(err)
			}
			v, err := e.Eval(m)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmtValue(v); got != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
}

func TestExpressionCompileErrorsCarryPositions(t *testing.T) {
	cases := []struct {
		name, src  string
		line, col  int
		msgContain string
	}{
		{"an unknown name is refused", `bodyy.city`, 1, 1, "unknown name bodyy"},
		{"a syntax error points into the text", `body.city +`, 1, 11, "unexpected token"},
		{"an empty expression is refused", `  `, 1, 1, "empty expression"},
		{"an error on the second line keeps its line", "body.city ==\n  ]", 2, 3, "unexpected token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := CompileExpr(c.src, nil)
			ee, ok := err.(*ExprError)
			if !ok {
				t.Fatalf("got %T %v, want *ExprError", err, err)
			}
			if ee.Line != c.line || ee.Column != c.col || !strings.Contains(ee.Msg, c.msgContain) {
				t.Fatalf("got %d:%d %q, want %d:%d containing %q", ee.Line, ee.Column, ee.Msg, c.line, c.col, c.msgContain)
			}
		})
	}
}

func TestABodyThatIsNotJSONIsA400(t *testing.T) {
	e, err := CompileExpr(`body.city`, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Eval(NewMessage([]byte(`{"city":`)))
	ee := ErrorOf(err)
	if ee.Kind != KindInvalid || !strings.HasPrefix(ee.Msg, "invalid JSON body:") {
		t.Fatalf("got %v %q", ee.Kind, ee.Msg)
	}
}

func TestTheBodyIsDecodedOnceAndOnlyWhenNeeded(t *testing.T) {
	m := NewMessage([]byte(`not json`))
	e, _ := CompileExpr(`vars`, nil)
	if _, err := e.Eval(m); err != nil {
		t.Fatalf("an expression that ignores the body must not decode it: %v", err)
	}
	m = NewMessage([]byte(`{"a":1}`))
	first, _ := m.Body()
	second, _ := m.Body()
	if fmtValue(first) != fmtValue(second) || !m.decoded {
		t.Fatal("body not cached")
	}
}

func fmtValue(v any) string {
	switch v := v.(type) {
	case string:
		return v
	default:
		return strings.TrimSpace(sprint(v))
	}
}

// env.NAME and vars.name are checked where what they can hold is known, at the name; read
// another way, or where it is not known, they are not.
func TestNamesAnExpressionReadsAreCheckedWhereTheyAreKnown(t *testing.T) {
	known := varSet{}.with("jwt", "http")
	checked := &exprScope{declared: []string{"REGION", "PORT"}, vars: &known}
	cases := []struct {
		name, src string
		sc        *exprScope
		col       int // 0: compiles
		msg       string
	}{
		{"a declared variable is read", `env.REGION + env["PORT"]`, checked, 0, ""},
		{"an undeclared one is refused at its name", `env.REGION + env.REGOIN`, checked, 18, `undeclared variable "REGOIN" (did you mean "REGION"?)`},
		{"an index by a constant is checked too", `env["HOST"]`, checked, 5, `undeclared variable "HOST"; declare it under env`},
		{"an optional read is checked too", `env?.HOST ?? ""`, checked, 6, `undeclared variable "HOST"`},
		{"a var set before is read, deep inside it too", `vars.jwt.sub + vars?.http.status`, checked, 0, ""},
		{"the first unknown var in the text is reported", "vars.http\n + vars.cart + vars.user", checked, 9, `unknown var "cart": no block before this one sets it`},
		{"a var read by a computed key is not checked", `vars[body.key] ?? env[body.key]`, checked, 0, ""},
		{"nothing is checked where nothing is known", `env.ANY + vars.any`, &exprScope{}, 0, ""},
		{"after a block that sets any name every var is read", `vars.any`, &exprScope{vars: &anyVars}, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := compileExpr(plainText(c.src), c.sc)
			if c.col == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			ee, ok := err.(*ExprError)
			if !ok || ee.Column != c.col || !strings.Contains(ee.Msg, c.msg) {
				t.Fatalf("got %v (%+v), want column %d: %s", err, ee, c.col, c.msg)
			}
		})
	}
}

func TestURLFunctionsEncodeValuesForAURL(t *testing.T) {
	m := NewMessage([]byte(`{"q":"a b&c=d","id":"x/y z","n":3}`))
	for src, want := range map[string]any{
		"urlEncode(body.q)":   "a+b%26c%3Dd",
		"pathEscape(body.id)": "x%2Fy%20z",
		"urlEncode(body.n)":   "3",
	} {
		e, err := CompileExpr(src, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := e.Eval(m); err != nil || got != want {
			t.Errorf("%s = %v %v, want %v", src, got, err, want)
		}
	}
	if _, err := CompileExpr("urlEncode(1)", nil); err == nil {
		t.Error("urlEncode of a number compiled")
	}
}

func TestPickKeepsTheKeysGivenAndNotNull(t *testing.T) {
	m := NewMessage([]byte(`{"name":"Rex","tag":null,"age":3,"other":true}`))
	e, err := CompileExpr(`pick(body, "name", "tag", "age", "missing")`, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Eval(m)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(got); string(b) != `{"age":3,"name":"Rex"}` {
		t.Errorf("pick = %s", b)
	}
	bad, _ := CompileExpr(`pick(body.name, "x")`, nil)
	if _, err := bad.Eval(m); err == nil || !strings.Contains(err.Error(), "want an object") {
		t.Errorf("pick of a string: %v", err)
	}
	if _, err := CompileExpr(`pick(body, 1)`, nil); err == nil {
		t.Error("pick with a number for a key compiled")
	}
}

func TestURLFunctionsCompileOnlyForStrings(t *testing.T) {
	if _, err := CompileExpr("urlEncode(1)", nil); err == nil {
		t.Error("urlEncode of a number compiled")
	}
}

package runtime

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
)

// evalJSON runs src over a message with the given raw body and returns the
// result as JSON, the way a connector writes a set-payload answer.
func evalJSON(t *testing.T, body, src string) (string, error) {
	t.Helper()
	e, err := CompileExpr(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Eval(NewMessage([]byte(body)))
	if err != nil {
		return "", err
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out), nil
}

func TestBodyNumbersKeepTheirExactValue(t *testing.T) {
	cases := []struct {
		name, body, src, want string
	}{
		{"an integer past 2^53 comes back exact", `{"n":9007199254740993}`, `body.n`, `9007199254740993`},
		{"a negative integer past -2^53 comes back exact", `{"n":-9007199254740993}`, `body.n`, `-9007199254740993`},
		{"an integer past int64 comes back exact", `{"n":12345678901234567890}`, `body.n`, `12345678901234567890`},
		{"a decimal comes back as written", `{"n":0.1}`, `body.n`, `0.1`},
		{"arithmetic on a large integer stays exact", `{"n":9007199254740993}`, `body.n + 1`, `9007199254740994`},
		{"comparison with a large integer works", `{"n":9007199254740993}`, `body.n > 5`, `true`},
		{"integers are integers, so modulo works", `{"n":7}`, `body.n % 2`, `1`},
		{"integers and decimals mix in arithmetic", `{"n":3,"f":0.5}`, `body.n * body.f`, `1.5`},
		{"nested numbers keep their value", `{"a":[1,2.5,{"b":9007199254740993,"c":12345678901234567890}]}`, `body`,
			`{"a":[1,2.5,{"b":9007199254740993,"c":12345678901234567890}]}`},
		{"a body that is only a number keeps it", `-9223372036854775808`, `body`, `-9223372036854775808`},
		{"a body without numbers decodes as before", `{"city":"Lisbon","tags":["a","b"],"ok":true,"none":null}`, `body`,
			`{"city":"Lisbon","none":null,"ok":true,"tags":["a","b"]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := evalJSON(t, c.body, c.src)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("%s over %s = %s, want %s", c.src, c.body, got, c.want)
			}
		})
	}
}

func TestBodyNumbersOutOfRangeAreA400(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"a number past float64 is refused", `{"n":1e400}`, `invalid JSON body: number 1e400 is out of range`},
		{"a negative one too", `[-1e400]`, `invalid JSON body: number -1e400 is out of range`},
		{"an integer with 400 digits is refused with its text cut short", `{"n":` + strings.Repeat("9", 400) + `}`,
			`invalid JSON body: number 99999999999999999999999999999999… is out of range`},
		{"a decimal written in more than 1000 characters is refused", `{"n":0.` + strings.Repeat("0", 1000) + `1}`,
			`invalid JSON body: number 0.000000000000000000000000000000… is longer than 1000 characters`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewMessage([]byte(c.body)).Body()
			var se *Error
			if !errors.As(err, &se) || se.Kind != KindInvalid || se.Msg != c.want {
				t.Fatalf("got %v, want a 400 %q", err, c.want)
			}
		})
	}
}

func TestBodySyntaxErrorsAreUnchanged(t *testing.T) {
	cases := []struct{ body, want string }{
		{`{bad`, `invalid JSON body: invalid character 'b' looking for beginning of object key string (at byte 2)`},
		{`{"n":1`, `invalid JSON body: unexpected end of JSON input (at byte 6)`},
		{`{"n":1} x`, `invalid JSON body: invalid character 'x' after top-level value (at byte 9)`},
		{`[1, 2,]`, `invalid JSON body: invalid character ']' looking for beginning of value (at byte 7)`},
	}
	for _, c := range cases {
		_, err := NewMessage([]byte(c.body)).Body()
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %q", c.body, err, c.want)
		}
	}
}

func TestAnIntegerPastInt64PassesThroughButIsNotComputedWith(t *testing.T) {
	_, err := evalJSON(t, `{"n":12345678901234567890}`, `body.n + 1`)
	if err == nil || !strings.Contains(err.Error(), "invalid operation: json.Number + int") {
		t.Fatalf("got %v, want an expression error naming the operation", err)
	}
	tpl, err := CompileTemplate("id {{ body.n }}", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tpl.Render(NewMessage([]byte(`{"n":12345678901234567890}`)))
	if err != nil || got != "id 12345678901234567890" {
		t.Fatalf("template = %q, %v; want the number as written", got, err)
	}
}

// Branches derived from one message may run at once (a batch's tool calls) and each set
// variables: each gets its own map, and the message they came from keeps its own.
func TestBranchesSetTheirOwnVariables(t *testing.T) {
	parent := NewMessage([]byte(`{}`))
	parent.SetVar("jwt", "claims")
	var wg sync.WaitGroup
	branches := make([]*Message, 8)
	for i := range branches {
		branches[i] = parent.Derive(nil)
		wg.Go(func() {
			for n := range 100 {
				branches[i].SetVar("http", n+i)
			}
		})
	}
	wg.Wait()
	if len(parent.Vars) != 1 || parent.Vars["jwt"] != "claims" {
		t.Fatalf("the parent's variables changed: %v", parent.Vars)
	}
	for i, b := range branches {
		if b.Vars["http"] != 99+i || b.Vars["jwt"] != "claims" {
			t.Fatalf("branch %d: %v", i, b.Vars)
		}
	}
}

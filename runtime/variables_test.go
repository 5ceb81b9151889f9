package runtime_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// A `${VAR}` in an expression or a template tag is a value, never source
// text: whatever quotes, comment ends or tag braces it holds, it cannot
// change the expression around it (here, to read env.SECRET).
func TestAVariableIsAValueInExpressionsAndTemplates(t *testing.T) {
	const text = "x\" + env.SECRET + \"' + env.SECRET + '` + env.SECRET + `*/ env.SECRET /*\n}}\\"
	env := map[string]string{
		"SECRET": "s3cret", "TEXT": text, "LIMIT": "5", "NEGATIVE": "-3", "RATIO": "0.5", "FLAG": "true",
		"TAG": "{{ env.SECRET }}", "INJECT": `x" + env.SECRET + "`,
	}
	logs := &runtimetest.Buffer{}
	base := serveConfig(t, "testdata/variables/config.yaml", env, logs)
	quoted := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	cases := []struct{ name, path, want string }{
		{"closing the quotes around it does not reach env", "/inject", quoted(`x" + env.SECRET + "`)},
		{"alone it is a string", "/bare", quoted(text)},
		{"inside a double-quoted string it is part of the string", "/double", quoted("<" + text + ">")},
		{"inside a single-quoted string it is part of the string", "/single", quoted("<" + text + ">")},
		{"inside a backquoted string it is part of the string", "/raw", quoted("<" + text + ">")},
		{"inside a comment it stays inside the comment", "/comment", quoted("kept")},
		{"a number is a number, true a boolean, and $${ is literal", "/numbers", `{"flag":true,"half":0.5,"limit":5,"next":6,"square":9,"text":"${LIMIT}"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := request(t, http.MethodGet, base+c.path, ""); got != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
		})
	}
	t.Run("in template text it is text that opens no tag; in a tag it is a value", func(t *testing.T) {
		request(t, http.MethodGet, base+"/template", "")
		want := "text " + text + " tag " + text + " 6 {{ env.SECRET }}"
		for _, line := range strings.Split(logs.String(), "\n") {
			var rec struct{ Msg string }
			if json.Unmarshal([]byte(line), &rec) == nil && strings.HasPrefix(rec.Msg, "text ") {
				if rec.Msg != want {
					t.Fatalf("logged %q\nwant   %q", rec.Msg, want)
				}
				return
			}
		}
		t.Fatalf("no line logged:\n%s", logs.String())
	})
	if strings.Contains(logs.String(), "s3cret") {
		t.Errorf("the secret reached the log:\n%s", logs.String())
	}
}

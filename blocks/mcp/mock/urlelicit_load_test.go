package mock

import (
	"strings"
	"testing"
)

// TestURLElicitStepsThatCannotBeUsed: a url elicit step's keys are checked at load, each
// reported where it was written.
func TestURLElicitStepsThatCannotBeUsed(t *testing.T) {
	cases := []struct{ name, step, want string }{
		{"a url step needs its url", `{ elicit: hi, mode: url }`,
			"an elicit step in mode url needs url"},
		{"a url step takes no schema", `{ elicit: hi, mode: url, url: "https://a.example", schema: { type: object } }`,
			"6:60: mcp.tools[0].steps[0].schema (server \"Test\"): schema belongs to an elicit step in mode form"},
		{"a form step takes no url keys", `{ elicit: hi, required: true }`,
			"required belongs to an elicit step in mode url"},
		{"a url must be absolute http or https as written", `{ elicit: hi, mode: url, url: "{{args.link}}" }`,
			`url "{{args.link}}": write an absolute http:// or https:// URL`},
		{"an unknown mode is refused", `{ elicit: hi, mode: browser, url: "https://a.example" }`, `"browser"`},
		{"a timeout of zero is refused", `{ elicit: hi, mode: url, url: "https://a.example", timeoutMs: 0 }`, "timeoutMs"},
		{"a decline text with an unknown argument is refused", `{ elicit: hi, mode: url, url: "https://a.example", onDecline: "{{args.who" }`, "onDecline"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, ds := load(parse(t, `
tools:
  - name: a
    result: x
    steps:
      - `+c.step), at)
			got := ds.Error()
			if v != nil && len(v.problems) > 0 {
				got += v.problems.Error()
			}
			if !strings.Contains(got, c.want) {
				t.Fatalf("diags:\n%s\nwant one containing %q", got, c.want)
			}
		})
	}
}

package mock_test

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/mcp"
)

// forecasting has a URI template whose parts have suggestions, and a fixed resource.
const forecasting = `
resources:
  - uri: "weather://{country}/{city}"
    name: forecast
    text: "sunny in {{params.city}}"
    completions: { city: [Lisbon, London, Lyon, Paris], country: [PT, UK] }
  - uri: "weather://today"
    name: today
    text: sunny
`

// The Go SDK client, at 2026-07-28 and at the session revision, gets a template part's
// suggestions from settings; other parts, templates and fixed URIs get none.
func TestTemplateCompletionsOnEveryRevision(t *testing.T) {
	s := serve(t, forecasting)
	for _, version := range []string{"", mcp.Version20251125} {
		t.Run("revision "+version, func(t *testing.T) {
			cs := connectAt(t, s.url, nil, version)
			ctx := testCtx(t)
			complete := func(uri, arg, typed string) []string {
				res, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/resource", URI: uri},
					Argument: sdk.CompleteParamsArgument{Name: arg, Value: typed}})
				if err != nil {
					t.Fatalf("complete %s %s: %v", uri, arg, err)
				}
				return res.Completion.Values
			}
			if got := strings.Join(complete("weather://{country}/{city}", "city", "L"), ","); got != "Lisbon,London,Lyon" {
				t.Fatalf("city L = %q", got)
			}
			if got := strings.Join(complete("weather://{country}/{city}", "country", ""), ","); got != "PT,UK" {
				t.Fatalf("country = %q", got)
			}
			for _, c := range [][2]string{{"weather://{country}/{city}", "day"}, {"weather://today", "city"}, {"weather://{x}", "city"}} {
				if got := complete(c[0], c[1], ""); len(got) != 0 {
					t.Fatalf("%s %s = %q", c[0], c[1], got)
				}
			}
		})
	}
}

// Suggestions for a part the template does not have, or for a fixed URI, are load errors.
func TestTemplateCompletionsForUnknownParts(t *testing.T) {
	for _, tt := range []struct{ from, to, want string }{
		{"{ city: [Lisbon", "{ town: [Lisbon", `completions for "town", which is not a part of the URI template "weather://{country}/{city}"`},
		{"name: today\n", "name: today\n    completions: { city: [Lisbon] }\n", `completions are for the {parts} of a URI template, and "weather://today" has none`},
	} {
		_, _, err := build(t, strings.Replace(forecasting, tt.from, tt.to, 1))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Fatalf("build: %v\nwant %s", err, tt.want)
		}
	}
}

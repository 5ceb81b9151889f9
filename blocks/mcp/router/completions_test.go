package router_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// suggesting offers completions from settings and from a branch, for a prompt's arguments and a
// URI template's parts.
const suggesting = `        resources:
          - uriTemplate: 'weather://{country}/{city}'
            name: weather
            completions: { country: [France, Finland, Portugal] }
            complete:
              process:
                - type: switch
                  cases:
                    - when: body.arguments.country == "France"
                      process:
                        - type: set-payload
                          settings: { value: 'filter(["Paris", "Lyon", "Lille"], {hasPrefix(#, body.value)})' }
                  default:
                    - type: set-payload
                      settings: { value: '[]' }
            process:
              - type: set-payload
                settings: { value: '"Sunny in " + body.city' }
        prompts:
          - name: trip
            description: Plan a trip
            arguments: [ { name: city, required: true }, { name: days } ]
            completions: { city: [Lisbon, London, Lyon] }
            complete:
              process:
                - type: set-payload
                  settings: { value: '[body.value + "0", body.value + "5"]' }
            process:
              - type: set-payload
                settings: { value: 'body.city' }
          - name: odd
            description: suggests what is not a list
            arguments: [ { name: x } ]
            complete:
              process:
                - type: set-payload
                  settings: { value: '"x"' }
            process:
              - type: set-payload
                settings: { value: '"odd"' }
`

// The official Go SDK client gets suggestions from settings (filtered by what was typed) and
// from a branch (which sees the argument, the value and the arguments already given).
func TestCompletionsFromSettingsAndABranch(t *testing.T) {
	base := serveRouter(t, suggesting)
	for _, version := range []string{"", runtimetest.SessionRevision} {
		t.Run("revision "+version, func(t *testing.T) {
			cs := runtimetest.ConnectMCPAt(t, base+"/mcp", nil, version)
			if cs.InitializeResult().Capabilities.Completions == nil {
				t.Fatal("the completions capability is not declared")
			}
			ctx := context.Background()
			for _, c := range []struct {
				ref     *sdk.CompleteReference
				arg     string
				value   string
				context map[string]string
				want    string
			}{
				{&sdk.CompleteReference{Type: "ref/prompt", Name: "trip"}, "city", "L", nil, "Lisbon,London,Lyon"},
				{&sdk.CompleteReference{Type: "ref/prompt", Name: "trip"}, "city", "Lo", nil, "London"},
				{&sdk.CompleteReference{Type: "ref/prompt", Name: "trip"}, "days", "1", nil, "10,15"},
				{&sdk.CompleteReference{Type: "ref/resource", URI: "weather://{country}/{city}"}, "country", "F", nil, "France,Finland"},
				{&sdk.CompleteReference{Type: "ref/resource", URI: "weather://{country}/{city}"}, "city", "L", map[string]string{"country": "France"}, "Lyon,Lille"},
				{&sdk.CompleteReference{Type: "ref/resource", URI: "weather://{country}/{city}"}, "city", "L", map[string]string{"country": "Peru"}, ""},
				{&sdk.CompleteReference{Type: "ref/prompt", Name: "unknown"}, "city", "L", nil, ""},
			} {
				p := &sdk.CompleteParams{Ref: c.ref, Argument: sdk.CompleteParamsArgument{Name: c.arg, Value: c.value}}
				if c.context != nil {
					p.Context = &sdk.CompleteContext{Arguments: c.context}
				}
				res, err := cs.Complete(ctx, p)
				if err != nil || strings.Join(res.Completion.Values, ",") != c.want {
					t.Errorf("%s %s %q %v: %+v %v, want %q", c.ref.Type, c.arg, c.value, c.context, res, err, c.want)
				}
			}
			_, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "odd"},
				Argument: sdk.CompleteParamsArgument{Name: "x", Value: ""}})
			if err == nil || !strings.Contains(err.Error(), "completing x: the branch must answer a list of strings") {
				t.Errorf("a branch answering a string: %v", err)
			}
		})
	}
}

package mock_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/mcp"
)

// suggesting is a server whose prompt offers completions and asks the user before it renders.
const suggesting = `
tools:
  - name: hello
    description: says hello
    result: hello
    icons: [ { src: "https://example.com/hello.png", mimeType: image/png, sizes: [48x48], theme: dark } ]
prompts:
  - name: trip
    description: Plan a trip
    arguments: [ { name: city, required: true } ]
    completions: { city: [Lisbon, London, Lyon, Paris] }
    steps:
      - elicit: How many days?
        schema: { type: object, properties: { days: { type: integer } } }
        as: length
    messages:
      - text: "{{args.length.content.days}} days in {{args.city}}"
`

// The Go SDK v1.8 client, at its default 2026-07-28 and at the session revision, gets the
// suggestions from settings and answers the prompt's question.
func TestCompletionsAndPromptStepsOnEveryRevision(t *testing.T) {
	s := serve(t, suggesting)
	for _, version := range []string{"", mcp.Version20251125} {
		t.Run("revision "+version, func(t *testing.T) {
			cs := connectAt(t, s.url, &sdk.ClientOptions{
				ElicitationHandler: func(_ context.Context, _ *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"days": 3}}, nil
				},
			}, version)
			ctx := testCtx(t)
			want := mcp.Version20260728
			if version != "" {
				want = version
			}
			if v := cs.InitializeResult().ProtocolVersion; v != want {
				t.Fatalf("protocol version %q", v)
			}
			res, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "trip"},
				Argument: sdk.CompleteParamsArgument{Name: "city", Value: "L"}})
			if err != nil || strings.Join(res.Completion.Values, ",") != "Lisbon,London,Lyon" || res.Completion.Total != 3 {
				t.Fatalf("complete = %+v, %v", res, err)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) != 1 || len(tools.Tools[0].Icons) != 1 || tools.Tools[0].Icons[0].Source != "https://example.com/hello.png" ||
				tools.Tools[0].Icons[0].Theme != "dark" {
				t.Fatalf("tools = %+v, %v", tools, err)
			}
			got, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "trip", Arguments: map[string]string{"city": "Lyon"}})
			if err != nil || len(got.Messages) != 1 || got.Messages[0].Content.(*sdk.TextContent).Text != "3 days in Lyon" {
				t.Fatalf("prompt = %+v, %v", got, err)
			}
		})
	}
}

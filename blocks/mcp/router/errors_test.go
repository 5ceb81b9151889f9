package router_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// failingTools are tools whose branches fail on purpose (fail, a caught error failed again) and
// by accident (an expression that cannot run).
const failingTools = `connectors: [ { name: api, type: http, settings: { port: %d } } ]
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        tools:
          - name: lookup
            description: finds a city
            process:
              - type: switch
                cases:
                  - when: body.city == "Atlantis"
                    process:
                      - type: fail
                        settings: { message: 'no such city: {{ body.city }}', kind: not found }
                default:
                  - type: set-payload
                    settings: { value: '"found " + body.city' }
          - name: caught
            description: fails, catches, and fails again in its own words
            process:
              - type: catch
                try:
                  - type: fail
                    settings: { message: the backend is busy, kind: unavailable }
                catch:
                  - type: fail
                    settings: { message: 'try again later ({{ vars.error.kind }}: {{ vars.error.message }})', kind: unavailable }
          - name: broken
            description: a bug in the config
            process:
              - type: set-payload
                settings: { value: 'body.city + 1' }
          - name: crash
            description: a bug in a block
            process:
              - type: set-payload
                settings: { value: body }
              - type: test-panic
`

// panicking is a block with a bug: it panics.
type panicking struct{}

func (panicking) Process(context.Context, *runtime.Message) (*runtime.Message, error) {
	panic("boom")
}

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-panic", Summary: "test: panics",
		Build: runtime.BlockFunc(func(*runtime.Build, *struct{}) (runtime.Block, error) { return panicking{}, nil })})
}

func TestABranchErrorReachesTheModelAsItsCauseAndABugOnlyAsFailed(t *testing.T) {
	log := &runtimetest.Buffer{}
	_, base := runtimetest.Serve(t, fmt.Sprintf(failingTools, 0), "api", log)
	cs := runtimetest.ConnectMCP(t, base+"/mcp", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cases := []struct {
		name, tool, city string
		isError          bool
		text             string
	}{
		{"a branch that succeeds answers", "lookup", "Lisbon", false, "found Lisbon"},
		{"a fail block's message is the isError text", "lookup", "Atlantis", true, "no such city: Atlantis"},
		{"a caught error failed again in the flow's words is the isError text", "caught", "x", true, "try again later (unavailable: the backend is busy)"},
		{"an expression that fails on the arguments tells the model its short cause", "broken", "x", true, `tool "broken" failed: expression "body.city + 1" failed: invalid operation: string + int`},
		{"a block that panics (a bug) tells the model only that the tool failed", "crash", "x", true, `tool "crash" failed: internal error`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: map[string]any{"city": c.city}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != c.isError || len(res.Content) != 1 {
				t.Fatalf("result %+v, want isError %v with one text", res, c.isError)
			}
			if text, ok := res.Content[0].(*sdk.TextContent); !ok || text.Text != c.text {
				t.Fatalf("result %+v, want the text %q", res.Content[0], c.text)
			}
		})
	}
	t.Run("the log names the failed block by its address and line", func(t *testing.T) {
		want := `msg="tool failed" flow=mcp block=mcp-router tool=broken kind=internal address=flows.mcp.process[0].tools[2].process[0] at=`
		line := ""
		for l := range strings.Lines(log.String()) {
			if strings.Contains(l, want) {
				line = l
			}
		}
		if !strings.Contains(line, `c.yaml:33:17 err="expression \"body.city + 1\"`) {
			t.Fatalf("no log line says %s...c.yaml:33:17 and the cause:\n%s", want, log)
		}
		crash := `tool=crash kind=internal address=flows.mcp.process[0].tools[3].process[1] at=`
		if !strings.Contains(log.String(), crash) || !strings.Contains(log.String(), `c.yaml:40:17 err="panic: boom`) {
			t.Errorf("no log line says %s...c.yaml:40:17 and the panic:\n%s", crash, log)
		}
		if strings.Contains(log.String(), "no such city") {
			t.Errorf("an error the flow meant was logged as a failure:\n%s", log)
		}
	})
}

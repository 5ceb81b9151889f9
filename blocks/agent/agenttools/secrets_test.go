package agenttools_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/blocks/agent/app"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// A workspace's secret variable is answered by its servers as usual, but no agent reads its
// value: call_server's answer and get_traffic's messages show *** where it was (a value with a
// quote included, as JSON writes it), while the server's own client gets the value. The save's
// approval says what the server answers and that it reads the secret.
func TestAgentsNeverReadASecretValue(t *testing.T) {
	const value = `sk-live-"q"-4242` // a quote: JSON writes it escaped, once or twice over
	pending := app.NewPending()
	a, _ := openApp(t, appdata.Agents{Allow: true, Approve: appdata.ApproveChanges}, app.Options{Approver: pending, Pending: pending},
		map[string]string{"workspace.yaml": "variables: {apiKey: '" + strings.ReplaceAll(value, "'", "''") + "', units: metric}\nsecrets: [apiKey]\n"})
	cs := connect(t, a, nil)
	port := runtimetest.FreePort(t)
	asked := make(chan app.Question, 2)
	go func() { // the user, in the console: approves the save and the start
		for range 2 {
			for len(pending.Waiting()) == 0 {
				<-pending.Changed()
			}
			w := pending.Waiting()[0]
			asked <- w.Question
			pending.Answer(w.ID, app.Approve)
		}
	}()
	works(t, cs, agenttools.SaveServer, map[string]any{"name": "Keyed", "kind": "mcp", "port": port, "mcp": map[string]any{
		"tools": []any{map[string]any{"name": "key", "result": "the key is {{apiKey}} in {{units}}"}}}})
	q := <-asked
	want := []string{`tool "key" answers "the key is {{apiKey}} in {{units}}"`, "it reads the variables apiKey (secret), units"}
	if q.Summary != `save_server "Keyed" (new, 1 tool)` || strings.Join(q.Detail, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the save was asked as %q with %q, want %q", q.Summary, q.Detail, want)
	}
	works(t, cs, agenttools.StartServer, map[string]any{"name": "Keyed"})
	<-asked

	direct := runtimetest.ConnectMCP(t, "http://127.0.0.1:"+itoa(port)+"/mcp", nil)
	res, err := direct.CallTool(context.Background(), &sdk.CallToolParams{Name: "key"})
	if err != nil || res.Content[0].(*sdk.TextContent).Text != "the key is "+value+" in metric" {
		t.Fatalf("the server's own client got %v %+v", err, res)
	}
	text := works(t, cs, agenttools.CallServer, map[string]any{"server": "Keyed", "tool": "key"})
	if strings.Contains(text, "sk-live") || !strings.Contains(text, "the key is *** in metric") {
		t.Fatalf("call_server showed the agent:\n%s", text)
	}
	waitFor(t, "the call in the traffic", func() bool {
		return strings.Contains(works(t, cs, agenttools.GetTraffic, map[string]any{"server": "Keyed"}), "the key is *** in metric")
	})
	if text := works(t, cs, agenttools.GetTraffic, map[string]any{"server": "Keyed"}); strings.Contains(text, "sk-live") {
		t.Fatalf("get_traffic showed the agent:\n%s", text)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

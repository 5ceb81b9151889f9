package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The README's "Branch, handle errors and shape the answer" config, run by the built binary: an
// orders flow with switch, catch, retry, fail and http-response in front of a stock flow, and a
// router tool over it. Its curl lines answer as printed (status included), the answers carry
// the headers the flow sets, and the Go SDK client reads a fail block's message as isError text.
func TestReadmeControlFlowAnswersWithStatusesHeadersAndErrors(t *testing.T) {
	section := docSection(t, "Branch, handle errors and shape the answer")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(readmeConfig(t, section)), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	p := startOcto(t, []string{"HTTP_PORT=" + strconv.Itoa(port)}, "run", "--config", dir)

	t.Run("the README's curl lines answer as printed", func(t *testing.T) {
		checkCurlTranscripts(t, base, section, 5)
	})
	t.Run("an order taken answers 201 with its Location", func(t *testing.T) {
		a := do(t, "POST", base+"/orders", "application/json", `{"item":"coffee"}`)
		if a.status != 201 || a.header.Get("Location") != "/orders/coffee" || a.body != `{"item":"coffee","left":2}` {
			t.Fatalf("%d %v %s", a.status, a.header, a.body)
		}
	})
	t.Run("a caught outage answers 503 with Retry-After, after one retry", func(t *testing.T) {
		before := strings.Count(p.Log(), "attempt failed, trying again")
		a := do(t, "POST", base+"/orders", "application/json", `{"item":"cocoa"}`)
		if a.status != 503 || a.header.Get("Retry-After") != "30" {
			t.Fatalf("%d %v %s", a.status, a.header, a.body)
		}
		p.waitCount(t, "attempt failed, trying again", before+1)
	})
	t.Run("a fail block is logged where it is written", func(t *testing.T) {
		p.waitCount(t, `octo.yaml:19:17: flows.stock.process[0].cases[1].process[0] (fail): the cocoa supplier is down`, 1)
	})

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, c := range []struct {
		name, item string
		isError    bool
		text       string
	}{
		{"the tool answers what the stock service says", "tea", false, `{"item":"tea","left":12}`},
		{"a fail block's message is what the model reads", "rum", true, "we do not sell rum; ask for tea or coffee"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "stock", Arguments: map[string]any{"item": c.item}})
			if err != nil {
				t.Fatal(err)
			}
			if text, ok := res.Content[0].(*mcp.TextContent); res.IsError != c.isError || !ok || text.Text != c.text {
				t.Fatalf("result %s, want isError %v and the text %s", jsonText(res), c.isError, c.text)
			}
		})
	}
}

// A router tool whose branch fails by a bug: the Go SDK client reads only that the tool failed,
// and the log has the failing block's address and file:line:col, and the cause.
func TestAnUncaughtToolErrorIsShortForTheModelAndPreciseInTheLog(t *testing.T) {
	dir := t.TempDir()
	const config = `env: [ { name: HTTP_PORT } ]
connectors: [ { name: api, type: http, settings: { port: "${HTTP_PORT}" } } ]
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        tools:
          - name: total
            description: adds up an order
            process:
              - type: catch
                on: [upstream]
                try:
                  - type: set-payload
                    settings: { value: 'body.price * body.count' }
                catch:
                  - type: set-payload
                    settings: { value: '"never"' }
`
	if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	p := startOcto(t, []string{"HTTP_PORT=" + strconv.Itoa(port)}, "run", "--config", dir)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "total", Arguments: map[string]any{"price": "ten", "count": 2}})
	if err != nil {
		t.Fatal(err)
	}
	const short = `tool "total" failed: expression "body.price * body.count" failed: invalid operation: string * int`
	if text, ok := res.Content[0].(*mcp.TextContent); !res.IsError || !ok || text.Text != short {
		t.Fatalf("result %s, want the short cause %s", jsonText(res), short)
	}
	p.waitCount(t, `msg="tool failed"`, 1)
	want := []string{`tool=total kind=internal address=flows.mcp.process[0].tools[0].process[0].try[0] at=`,
		filepath.Join(dir, "octo.yaml") + `:15:21 err="expression \"body.price * body.count\"`}
	for _, w := range want {
		if !strings.Contains(p.Log(), w) {
			t.Errorf("the log does not say %s:\n%s", w, p.Log())
		}
	}
}

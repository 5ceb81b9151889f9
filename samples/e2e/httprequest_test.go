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

// readmeConfig is the first ```yaml block of a README section.
func readmeConfig(t *testing.T, section string) string {
	t.Helper()
	_, rest, ok := strings.Cut(section, "```yaml\n")
	if ok {
		var text string
		if text, _, ok = strings.Cut(rest, "```"); ok {
			return text
		}
	}
	t.Fatal("the README section has no ```yaml block")
	return ""
}

// The README's "Call an HTTP API from a tool" config, run by the built binary: a router tool
// whose branch is an http-request to a JSON API served by another flow of the same config. Its
// curl lines answer as printed, and the Go SDK client calls both tools.
func TestReadmeToolCallsAnHTTPAPI(t *testing.T) {
	section := docSection(t, "Call an HTTP API from a tool")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(readmeConfig(t, section)), 0o644); err != nil {
		t.Fatal(err)
	}
	const token = "e2e-token-4a7f19"
	port := freePort(t)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	p := startOcto(t, []string{"HTTP_PORT=" + strconv.Itoa(port), "API_TOKEN=" + token}, "run", "--config", dir)

	t.Run("the README's curl lines answer as printed", func(t *testing.T) {
		for _, tr := range curlTranscripts(t, section, 3) {
			a := do(t, "POST", base+tr.path, "application/x-www-form-urlencoded", tr.body)
			if a.status != 200 || a.body != tr.want {
				t.Errorf("curl %s -d '%s'\ngot %d\n%s\nREADME prints\n%s", tr.path, tr.body, a.status, a.body, tr.want)
			}
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	cases := []struct {
		name, tool, city string
		isError          bool
		text             string
	}{
		{"a tool's branch calls the API and shapes its answer", "forecast", "Porto", false, `{"city":"Porto","summary":"clear, 21C"}`},
		{"an API's error reaches the model with its status and body", "alerts", "Porto", true,
			`the backend answered 404 Not Found: {"error":"no route for /api/alerts"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: map[string]any{"city": c.city}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != c.isError || len(res.Content) != 1 {
				t.Fatalf("result %s, want isError %v with one text", jsonText(res), c.isError)
			}
			if text, ok := res.Content[0].(*mcp.TextContent); !ok || text.Text != c.text {
				t.Fatalf("result %s\nwant the text %s", jsonText(res), c.text)
			}
		})
	}
	t.Run("the log names the failed request without its credential", func(t *testing.T) {
		p.waitCount(t, `tool failed`, 2) // the curl line's call and the client's
		log := p.Log()
		if !strings.Contains(log, `GET http://127.0.0.1:`+strconv.Itoa(port)+`/api/alerts?city=***: the backend answered 404 Not Found`) {
			t.Errorf("no log line names the failed request:\n%s", log)
		}
		if strings.Contains(log, token) {
			t.Errorf("the log holds the API token:\n%s", log)
		}
	})
}

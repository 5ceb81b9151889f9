package router_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// revisionsRouter is a router whose settings are filled in by the test.
const revisionsRouter = `connectors: [ { name: api, type: http, settings: { port: %d } } ]
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        %s
        tools:
          - name: hello
            description: says hello
            process:
              - type: set-payload
                settings: { value: '"hello"' }
`

// startRouter serves a router with extra settings and returns a function posting a body
// with headers (name, value, ...) that gives the status and body of the answer.
func startRouter(t *testing.T, extra string) func(body string, header ...string) (int, string) {
	return startConfig(t, fmt.Sprintf(revisionsRouter, 0, extra))
}

// startConfig serves config, whose http connector api listens on port 0, at /mcp, as
// startRouter does.
func startConfig(t *testing.T, config string) func(body string, header ...string) (int, string) {
	_, base := runtimetest.Serve(t, config, "api", &runtimetest.Buffer{})
	return poster(t, base+"/mcp")
}

// poster returns a function posting a body with headers (name, value, ...) to url that gives
// the status and body of the answer.
func poster(t *testing.T, url string) func(body string, header ...string) (int, string) {
	return func(body string, header ...string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
}

const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func TestInitializeAgreesOn20251125OnlyWhenTheSettingSaysSo(t *testing.T) {
	for _, tt := range []struct{ extra, want string }{
		{"", `"protocolVersion":"2025-06-18"`},
		{"initializeUpTo: 2025-06-18", `"protocolVersion":"2025-06-18"`},
		{"initializeUpTo: 2025-11-25", `"protocolVersion":"2025-11-25"`},
	} {
		t.Run(tt.extra, func(t *testing.T) {
			post := startRouter(t, tt.extra)
			if status, body := post(initialize); status != 200 || !strings.Contains(body, tt.want) {
				t.Fatalf("got %d %s, want %s", status, body, tt.want)
			}
		})
	}
}

func TestCacheHintsComeFromTheSettings(t *testing.T) {
	post := startRouter(t, "cache: { ttlMs: 60000, scope: public }")
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	status, body := post(list, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list")
	if want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":60000,"cacheScope":"public","tools":[`; status != 200 || !strings.HasPrefix(body, want) {
		t.Fatalf("got %d %s", status, body)
	}
}

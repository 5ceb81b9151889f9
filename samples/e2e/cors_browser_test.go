package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// corsConfig serves, to pages of one other origin, a router and a mock whose tools mirror an
// argument in Mcp-Param-Region.
const corsConfig = `env:
  - { name: HTTP_PORT }
  - { name: PAGE }
connectors:
  - { name: api, type: http, settings: { port: "${HTTP_PORT}", cors: [ "${PAGE}" ] } }
flows:
  - name: router
    source: { connector: api, settings: { path: /router } }
    process:
      - type: mcp-router
        tools:
          - name: route
            inputSchema:
              type: object
              properties:
                region: { type: string, x-mcp-header: Region }
            process:
              - type: set-payload
                settings: { value: '"routed"' }
  - name: mock
    source: { connector: api, settings: { path: /mock } }
    process:
      - type: mcp-mock
        name: Regions
        settings:
          tools:
            - name: route
              inputSchema: '{"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}'
              result: 'mocked {{args.region}}'
`

// A page on another origin calls a router and a mock as a browser-based 2026-07-28 client: the
// fetch carries Mcp-Method, Mcp-Name and Mcp-Param-Region, which Chromium sends only once the
// connector's preflight allows them, as it now does from what the flows' blocks read.
func TestABrowserOnAnotherOriginCallsTools2026(t *testing.T) {
	node, browser, dir := chromiumScripts(t)
	page := servePage(t)
	cfgDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(cfgDir, "mcp.yaml"), []byte(corsConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(freePort(t))
	p := startOcto(t, []string{"HTTP_PORT=" + port, "PAGE=" + page}, "run", "--config", cfgDir)
	base := "http://127.0.0.1:" + port

	t.Run("the preflight names the headers (curl)", func(t *testing.T) {
		req, _ := http.NewRequest("OPTIONS", base+"/router", nil)
		req.Header.Set("Origin", page)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type, mcp-method, mcp-name, mcp-param-region, mcp-protocol-version")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := "Content-Type, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name, Mcp-Param-Region"
		if got := resp.Header.Get("Access-Control-Allow-Headers"); resp.StatusCode != 204 || got != want {
			t.Fatalf("got %d, Access-Control-Allow-Headers %q\nwant 204, %q", resp.StatusCode, got, want)
		}
	})

	call := func(path string) map[string]any {
		return map[string]any{"url": base + path, "body": `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"route","arguments":{"region":"eu"},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			"headers": map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
				"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "route", "Mcp-Param-Region": "eu"}}
	}
	calls, _ := json.Marshal([]any{call("/router"), call("/mock")})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "cors.mjs", page+"/", string(calls))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CHROMIUM="+browser)
	cmd.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || lines[len(lines)-1] != "ok" {
		t.Fatalf("node cors.mjs: %v\n%s%s\n%s", err, out, stderr.String(), p.Log())
	}
	for i, want := range []string{`"text":"routed"`, `"text":"mocked eu"`} {
		var got struct {
			URL, Body, Error string
			Status           int
		}
		if err := json.Unmarshal([]byte(lines[i]), &got); err != nil || got.Status != 200 || !strings.Contains(got.Body, want) {
			t.Errorf("call %d from the page: %s (%v), want 200 with %s", i, lines[i], err, want)
		}
	}
}

// servePage serves an empty page on a loopback port of its own, another origin than octo's,
// and returns its origin.
func servePage(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><title>a client on another origin</title>")
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

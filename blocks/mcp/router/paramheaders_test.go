package router_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// mirroringRouter serves one tool whose region argument is mirrored in Mcp-Param-Region.
const mirroringRouter = `connectors: [ { name: api, type: http, settings: { port: %d } } ]
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        tools:
          - name: route
            description: routes by region
            inputSchema:
              type: object
              properties:
                region: { type: string, x-mcp-header: Region }
            process:
              - type: set-payload
                settings: { value: '"routed"' }`

// routeCall is a 2026-07-28 tools/call of route with region set to "eu".
const routeCall = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"route","arguments":{"region":"eu"},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

// The router checks a 2026-07-28 call's Mcp-Param headers against the arguments as the mock
// does: matching (plain or base64) is served, missing or different is HTTP 400, -32020.
func TestRouterChecksParamHeaders(t *testing.T) {
	post := startConfig(t, fmt.Sprintf(mirroringRouter, 0))
	std := []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "route"}
	for _, tt := range []struct {
		name   string
		header []string
		status int
		want   string
	}{
		{"a matching header", []string{"Mcp-Param-Region", "eu"}, 200, `"result":{"resultType":"complete","content":[{"type":"text","text":"routed"}]`},
		{"a matching base64 header", []string{"Mcp-Param-Region", "=?base64?ZXU=?="}, 200, `"text":"routed"`},
		{"no header", nil, 400,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32020,"message":"Header mismatch: missing the Mcp-Param-Region header that mirrors arguments.region"}}`},
		{"another value", []string{"Mcp-Param-Region", "us"}, 400, `"code":-32020`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, body := post(routeCall, append(std, tt.header...)...)
			if status != tt.status || !strings.Contains(body, tt.want) {
				t.Fatalf("got %d %s\nwant %d with %s", status, body, tt.status, tt.want)
			}
		})
	}
}

// A router tool whose annotation clients would refuse does not build.
func TestRouterRefusesABadParamHeader(t *testing.T) {
	bad := strings.Replace(mirroringRouter, "x-mcp-header: Region", "x-mcp-header: 'My Region'", 1)
	_, err := runtimetest.BuildConfig(t, fmt.Sprintf(bad, 0), &runtimetest.Buffer{})
	if err == nil || !strings.Contains(err.Error(), `x-mcp-header "My Region" at /properties/region must be a non-empty HTTP header name token`) {
		t.Fatalf("build: %v", err)
	}
}

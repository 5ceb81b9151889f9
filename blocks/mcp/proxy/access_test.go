package proxy_test

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/blocks/jwtvalidate"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// upstreamRouter serves a router with two tools over HTTP: the gateway's upstream.
func upstreamRouter(t *testing.T) string {
	t.Helper()
	_, base := runtimetest.Serve(t, `connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        tools:
          - name: read
            process: [ { type: set-payload, settings: { value: '"read"' } } ]
          - name: write
            process: [ { type: set-payload, settings: { value: '"written"' } } ]
`, "api", &runtimetest.Buffer{})
	return base + "/mcp"
}

func mint(t *testing.T, sub, scope string) string {
	t.Helper()
	tok, err := jwtvalidate.Mint(jwtvalidate.MintOptions{KeyFile: filepath.Join("..", "..", "..", "samples", "mcp-oauth", "dev-only-private.jwk"),
		Issuer: "https://auth.example.com", Audience: "http://localhost/mcp", Subject: sub, Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// Behind jwt-validate, a gateway serves an upstream's tools to the tokens its access admits
// and counts each caller's calls of each tool: two tokens see different lists; one past the
// rate is told when to retry.
func TestTheGatewayServesAnUpstreamToWhoMay(t *testing.T) {
	up := upstreamRouter(t)
	jwks, _ := filepath.Abs(filepath.Join("..", "..", "..", "samples", "mcp-oauth", "dev-jwks.json"))
	_, base := runtimetest.Serve(t, `connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: gateway
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: jwt-validate
        settings: { jwksFile: "`+jwks+`", issuer: https://auth.example.com, audience: http://localhost/mcp }
      - type: mcp-proxy
        settings:
          upstreams:
            - { name: open, url: "`+up+`", tools: { allow: [read] }, rateLimit: { calls: 2, per: 1m } }
            - { name: admin, url: "`+up+`", access: { scopes: [ admin ] } }
`, "api", &runtimetest.Buffer{})
	connect := func(tok string) *sdk.ClientSession {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(),
			&sdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer(tok)}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	bob, alice := connect(mint(t, "bob", "")), connect(mint(t, "alice", "admin"))
	if got := runtimetest.ToolNames(t, bob); !slices.Equal(got, []string{"open_read"}) {
		t.Errorf("bob sees %v", got)
	}
	if got := runtimetest.ToolNames(t, alice); !slices.Equal(got, []string{"open_read", "admin_read", "admin_write"}) {
		t.Errorf("alice sees %v", got)
	}
	ctx := context.Background()
	if _, err := bob.CallTool(ctx, &sdk.CallToolParams{Name: "admin_write", Arguments: map[string]any{}}); err == nil ||
		!strings.Contains(err.Error(), `tool "admin_write" needs scope admin`) {
		t.Errorf("bob calls admin_write: %v", err)
	}
	if res, err := alice.CallTool(ctx, &sdk.CallToolParams{Name: "admin_write", Arguments: map[string]any{}}); err != nil || res.Content[0].(*sdk.TextContent).Text != "written" {
		t.Errorf("alice calls admin_write: %v %+v", err, res)
	}
	for i := range 2 {
		if _, err := bob.CallTool(ctx, &sdk.CallToolParams{Name: "open_read", Arguments: map[string]any{}}); err != nil {
			t.Fatalf("bob's call %d: %v", i+1, err)
		}
	}
	if _, err := bob.CallTool(ctx, &sdk.CallToolParams{Name: "open_read", Arguments: map[string]any{}}); err == nil ||
		!strings.Contains(err.Error(), `Rate limited: tool "open_read" allows 2 calls per 1m for each caller; retry in `) {
		t.Errorf("bob's third call: %v", err)
	}
	if _, err := alice.CallTool(ctx, &sdk.CallToolParams{Name: "open_read", Arguments: map[string]any{}}); err != nil {
		t.Errorf("alice was counted with bob: %v", err)
	}
}

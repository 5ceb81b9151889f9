package router_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/blocks/jwtvalidate"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// guardedRouter checks tokens with the mcp-oauth sample's development keys, then serves tools
// for anyone, for weather.admin, for a header, and one each caller may call twice a second.
func guardedRouter(t *testing.T) string {
	t.Helper()
	jwks, err := filepath.Abs(filepath.Join("..", "..", "..", "samples", "mcp-oauth", "dev-jwks.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, base := runtimetest.Serve(t, `connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: jwt-validate
        settings: { jwksFile: "`+jwks+`", issuer: https://auth.example.com, audience: http://localhost/mcp }
      - type: mcp-router
        tools:
          - name: open
            process: [ { type: set-payload, settings: { value: '"open to " + vars.jwt.sub' } } ]
          - name: admin
            access: { scopes: [ weather.admin ] }
            process: [ { type: set-payload, settings: { value: '"admin for " + vars.jwt.sub' } } ]
          - name: staff
            access: { when: 'headers["X-Role"] == "staff"' }
            process: [ { type: set-payload, settings: { value: '"staff"' } } ]
          - name: limited
            rateLimit: { calls: 2, per: 600ms }
            process: [ { type: set-payload, settings: { value: '"counted"' } } ]
`, "api", &runtimetest.Buffer{})
	return base + "/mcp"
}

// token mints a development token for sub with scope.
func token(t *testing.T, sub, scope string) string {
	t.Helper()
	key := filepath.Join("..", "..", "..", "samples", "mcp-oauth", "dev-only-private.jwk")
	tok, err := jwtvalidate.Mint(jwtvalidate.MintOptions{KeyFile: key, Issuer: "https://auth.example.com",
		Audience: "http://localhost/mcp", Subject: sub, Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// bearer adds a token and headers to every request of an SDK client.
type bearer struct {
	token  string
	header map[string]string
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	for k, v := range b.header {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func connectAs(t *testing.T, url string, b bearer) *sdk.ClientSession {
	t.Helper()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "access-test", Version: "1"}, nil).Connect(context.Background(),
		&sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: b}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Two tokens with different scopes, seen through the official Go SDK client, get different
// tools/list answers and calls; a tool's when sees the request's headers.
func TestToolsAreSeenAndCalledByWhoMay(t *testing.T) {
	url := guardedRouter(t)
	reader := connectAs(t, url, bearer{token: token(t, "bob", "weather.read")})
	admin := connectAs(t, url, bearer{token: token(t, "alice", "weather.read weather.admin"), header: map[string]string{"X-Role": "staff"}})
	if got := runtimetest.ToolNames(t, reader); !slices.Equal(got, []string{"open", "limited"}) {
		t.Errorf("bob sees %v", got)
	}
	if got := runtimetest.ToolNames(t, admin); !slices.Equal(got, []string{"open", "admin", "staff", "limited"}) {
		t.Errorf("alice sees %v", got)
	}
	ctx := context.Background()
	res, err := admin.CallTool(ctx, &sdk.CallToolParams{Name: "admin", Arguments: map[string]any{}})
	if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != "admin for alice" {
		t.Fatalf("alice calls admin: %v %+v", err, res)
	}
	if _, err := reader.CallTool(ctx, &sdk.CallToolParams{Name: "admin", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), `Forbidden: tool "admin" needs scope weather.admin`) {
		t.Fatalf("bob calls admin: %v, want refused", err)
	}
}

// post sends one JSON-RPC message with a token and returns the answer's status, headers and body.
func post(t *testing.T, url, tok, body string) (int, http.Header, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%d %s: %v", resp.StatusCode, data, err)
	}
	return resp.StatusCode, resp.Header, m
}

func callOf(id int, tool string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
}

// A call without the scope is a scope challenge (403, insufficient_scope, every scope the tool
// needs with those the token has) carrying the JSON-RPC error with the call's id.
func TestACallWithoutTheScopeIsAScopeChallenge(t *testing.T) {
	url := guardedRouter(t)
	status, h, m := post(t, url, token(t, "bob", "weather.read"), callOf(7, "admin"))
	if status != http.StatusForbidden {
		t.Fatalf("status %d: %v", status, m)
	}
	if got := h.Get("WWW-Authenticate"); !strings.HasPrefix(got, `Bearer error="insufficient_scope", scope="weather.admin weather.read"`) {
		t.Errorf("WWW-Authenticate: %s", got)
	}
	e, _ := m["error"].(map[string]any)
	if m["id"] != float64(7) || e["code"] != float64(-32003) || !strings.Contains(e["message"].(string), `tool "admin" needs scope weather.admin`) {
		t.Errorf("body: %v", m)
	}
	// A tool's when refuses too, with no scope to ask for.
	status, h, m = post(t, url, token(t, "bob", "weather.read"), callOf(8, "staff"))
	if e, _ := m["error"].(map[string]any); status != http.StatusForbidden || h.Get("WWW-Authenticate") != "" ||
		!strings.Contains(e["message"].(string), `tool "staff" is not for this caller (its access.when)`) {
		t.Errorf("staff without the header: %d %v %v", status, h, m)
	}
}

// Each caller may call a limited tool as often as its rate says; one past it gets 429 with
// Retry-After and an error that says when, and after that long the call goes through.
func TestARateLimitIsHitAndRecovered(t *testing.T) {
	url := guardedRouter(t)
	alice, bob := token(t, "alice", ""), token(t, "bob", "")
	for i := range 2 {
		if status, _, m := post(t, url, alice, callOf(i, "limited")); status != http.StatusOK || m["result"] == nil {
			t.Fatalf("call %d: %d %v", i+1, status, m)
		}
	}
	status, h, m := post(t, url, alice, callOf(3, "limited"))
	e, _ := m["error"].(map[string]any)
	if status != http.StatusTooManyRequests || h.Get("Retry-After") != "1" || e["code"] != float64(-32029) ||
		!strings.Contains(e["message"].(string), `tool "limited" allows 2 calls per 600ms for each caller; retry in `) {
		t.Fatalf("a third call: %d %v %v", status, h, m)
	}
	if status, _, _ := post(t, url, bob, callOf(4, "limited")); status != http.StatusOK {
		t.Fatalf("bob was counted with alice: %d", status)
	}
	wait := time.Duration(e["data"].(map[string]any)["retryAfterMs"].(float64)) * time.Millisecond
	time.Sleep(wait + 20*time.Millisecond)
	if status, _, m := post(t, url, alice, callOf(5, "limited")); status != http.StatusOK {
		t.Fatalf("after waiting as told: %d %v", status, m)
	}
}

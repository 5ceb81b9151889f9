package e2e

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// doAs sends an initialize with the given Host, Origin and token (each empty: the URL's own
// Host, no Origin, no token).
func doAs(t *testing.T, target, host, origin, token string) answer {
	t.Helper()
	req, err := http.NewRequest("POST", target, strings.NewReader(initialize))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`

// rebinding are the DNS-rebinding cases of the MCP conformance suite and their neighbours,
// for a server listening on every interface and reached over loopback.
func rebinding(port string, foreignOriginStatus int) []struct {
	name, host, origin string
	status             int
} {
	return []struct {
		name, host, origin string
		status             int
	}{
		{"a rebound page (foreign Host and Origin) is refused", "evil.example.com:" + port, "http://evil.example.com:" + port, 403},
		{"a foreign Host without Origin is refused", "evil.example.com:" + port, "", 403},
		{"Host and Origin naming the own 127.0.0.1 address are accepted", "127.0.0.1:" + port, "http://127.0.0.1:" + port, 200},
		{"Host and Origin naming localhost are accepted", "localhost:" + port, "http://localhost:" + port, 200},
		{"Host [::1] is accepted", "[::1]:" + port, "", 200},
		{"a foreign Origin with the own Host", "127.0.0.1:" + port, "https://evil.example.com", foreignOriginStatus},
	}
}

func TestTheRouterSampleRefusesDNSRebinding(t *testing.T) {
	base, _ := runSample(t, "mcp-router")
	u, _ := url.Parse(base)
	for _, c := range rebinding(u.Port(), 403) {
		t.Run(c.name, func(t *testing.T) {
			a := doAs(t, base+"/mcp", c.host, c.origin, "")
			if a.status != c.status {
				t.Fatalf("got %d %s, want %d", a.status, a.body, c.status)
			}
		})
	}
}

// The OAuth sample sets cors: true, so a foreign page passes the Origin check and meets the
// token check instead; the Host check against rebinding stays.
func TestTheOAuthSampleRefusesDNSRebindingAndAsksForeignPagesForAToken(t *testing.T) {
	resource, base := oauthSample(t)
	u, _ := url.Parse(base)
	token := mintToken(t, "--aud", resource, "--iss", oauthIssuer, "--scope", "weather.read")
	for _, c := range rebinding(u.Port(), 401) {
		t.Run(c.name, func(t *testing.T) {
			status := c.status
			a := doAs(t, resource, c.host, c.origin, "")
			if status == 200 {
				status = 401 // without a token; below, with one
			}
			if a.status != status {
				t.Fatalf("without a token got %d %s, want %d", a.status, a.body, status)
			}
			if c.status == 200 {
				if a := doAs(t, resource, c.host, c.origin, token); a.status != 200 {
					t.Fatalf("with a token got %d %s, want 200", a.status, a.body)
				}
			}
		})
	}
	t.Run("a foreign page's 401 exposes the challenge to it", func(t *testing.T) {
		a := doAs(t, resource, "", "https://app.example.net", "")
		if a.status != 401 || a.header.Get("Access-Control-Allow-Origin") != "https://app.example.net" ||
			a.header.Get("Access-Control-Expose-Headers") != "Mcp-Session-Id, WWW-Authenticate" {
			t.Fatalf("got %d %v", a.status, a.header)
		}
	})
	t.Run("a browser preflight is answered without a token", func(t *testing.T) {
		req, _ := http.NewRequest("OPTIONS", resource, nil)
		req.Header.Set("Origin", "https://app.example.net")
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, content-type, mcp-protocol-version")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 204 || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
			t.Fatalf("got %d %v", resp.StatusCode, resp.Header)
		}
	})
}

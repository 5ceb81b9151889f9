package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

const (
	oauthIssuer = "https://auth.example.com" // the sample's default AUTH_ISSUER
	devKey      = "samples/mcp-oauth/dev-only-private.jwk"
)

// oauthSample runs samples/mcp-oauth on a free port, telling it the URL clients use, and
// returns that URL (the resource) and the base URL.
func oauthSample(t *testing.T) (resource, base string) {
	t.Helper()
	port := strconv.Itoa(freePort(t))
	base = "http://127.0.0.1:" + port
	resource = base + "/mcp"
	startOcto(t, []string{"HTTP_PORT=" + port, "MCP_RESOURCE=" + resource}, "run", "--config", "samples/mcp-oauth")
	return resource, base
}

// mintToken runs the built binary's `octo token`, as the docs tell a developer to.
func mintToken(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(octoBin, append([]string{"token", "--key", devKey}, args...)...)
	cmd.Dir = repoRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("octo token: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// bearer adds a token to every request of the SDK client, the way a host app would.
type bearer struct {
	token string
	mu    sync.Mutex
	seen  []int // statuses, for the test's checks
}

func (b *bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil {
		b.mu.Lock()
		b.seen = append(b.seen, resp.StatusCode)
		b.mu.Unlock()
	}
	return resp, err
}

func (b *bearer) statuses() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]int(nil), b.seen...)
}

func TestGoSDKClientIsRefusedWithoutATokenAndFindsTheMetadata(t *testing.T) {
	resource, _ := oauthSample(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	var (
		mu        sync.Mutex
		challenge []string
	)
	rt := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err == nil && resp.StatusCode == http.StatusUnauthorized {
			mu.Lock()
			challenge = resp.Header.Values("WWW-Authenticate")
			mu.Unlock()
		}
		return resp, err
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e", Version: "1"}, nil)
	_, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: resource, HTTPClient: &http.Client{Transport: rt}}, nil)
	if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Fatalf("connect without a token: %v, want an Unauthorized failure", err)
	}

	mu.Lock()
	defer mu.Unlock()
	challenges, err := oauthex.ParseWWWAuthenticate(challenge)
	if err != nil || len(challenges) != 1 || challenges[0].Scheme != "bearer" {
		t.Fatalf("WWW-Authenticate %q parses as %+v (%v), want one Bearer challenge", challenge, challenges, err)
	}
	metadataURL := challenges[0].Params["resource_metadata"]
	if want := strings.Replace(resource, "/mcp", "/.well-known/oauth-protected-resource/mcp", 1); metadataURL != want {
		t.Fatalf("resource_metadata = %q, want %q", metadataURL, want)
	}
	if scope := challenges[0].Params["scope"]; scope != "weather.read" {
		t.Fatalf("scope = %q, want weather.read", scope)
	}
	// The SDK's own discovery: it checks that the document names the resource it connected to.
	md, err := oauthex.GetProtectedResourceMetadata(ctx, metadataURL, resource, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(md.AuthorizationServers, []string{oauthIssuer}) || !reflect.DeepEqual(md.ScopesSupported, []string{"weather.read", "weather.admin"}) ||
		!reflect.DeepEqual(md.BearerMethodsSupported, []string{"header"}) {
		t.Fatalf("metadata = %+v", md)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestGoSDKClientWithATokenCallsTheToolsAsItsSubject(t *testing.T) {
	resource, _ := oauthSample(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	token := mintToken(t, "--aud", resource, "--iss", oauthIssuer, "--scope", "weather.read", "--sub", "alice")
	rt := &bearer{token: token}
	client := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: resource, HTTPClient: &http.Client{Transport: rt}}, nil)
	if err != nil {
		t.Fatalf("connect with a token: %v", err)
	}
	defer cs.Close()

	t.Run("the tools are listed", func(t *testing.T) {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		if strings.Join(names, ",") != "forecast,whoami" { // set_alert needs weather.admin
			t.Fatalf("tools = %v", names)
		}
	})
	t.Run("a token with weather.admin sees set_alert", func(t *testing.T) {
		admin := mintToken(t, "--aud", resource, "--iss", oauthIssuer, "--scope", "weather.read weather.admin", "--sub", "carol")
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: resource, HTTPClient: &http.Client{Transport: &bearer{token: admin}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.ListTools(ctx, nil)
		if err != nil || len(res.Tools) != 3 || res.Tools[2].Name != "set_alert" {
			t.Fatalf("tools = %+v, %v", res, err)
		}
	})
	t.Run("whoami answers with the token's subject and scope", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(res.Content)
		if res.IsError || string(got) != `[{"type":"text","text":"{\"scope\":\"weather.read\",\"sub\":\"alice\"}"}]` {
			t.Fatalf("whoami = %s (isError %v)", got, res.IsError)
		}
	})
	t.Run("the guide resource is rendered for the caller", func(t *testing.T) {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "octo://guide"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Contents) != 1 || !strings.HasPrefix(res.Contents[0].Text, "# Weather tools for alice\n") {
			t.Fatalf("guide = %+v", res.Contents)
		}
	})
	for _, status := range rt.statuses() {
		if status == http.StatusUnauthorized || status == http.StatusForbidden {
			t.Fatalf("a request with the token was refused: statuses %v", rt.statuses())
		}
	}
}

// The docs' curl lines, sent as curl sends them, each with its exact status and challenge.
func TestOAuthSampleAnswersEveryDocumentedRequest(t *testing.T) {
	resource, base := oauthSample(t)
	metadataURL := base + "/.well-known/oauth-protected-resource/mcp"
	missing := `Bearer resource_metadata="` + metadataURL + `", scope="weather.read"`
	invalid := `Bearer resource_metadata="` + metadataURL + `", error="invalid_token", scope="weather.read"`
	good := mintToken(t, "--aud", resource, "--iss", oauthIssuer, "--scope", "weather.read", "--sub", "alice")
	cases := []struct {
		name, token string
		status      int
		challenge   string
		body        string
	}{
		{"without a token the answer is 401 naming the metadata", "", 401, missing,
			`{"error":"unauthorized","error_description":"this resource needs a bearer token in the Authorization header"}`},
		{"with a token the tool answers", good, 200, "",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"city\":\"Lisbon\",\"summary\":\"Sunny, 24C\"}"}],"structuredContent":{"city":"Lisbon","summary":"Sunny, 24C"}}}`},
		{"a token for another server is refused", mintToken(t, "--aud", "http://127.0.0.1:1/mcp", "--iss", oauthIssuer, "--scope", "weather.read"), 401, invalid, ""},
		{"a token from another issuer is refused", mintToken(t, "--aud", resource, "--iss", "https://evil.example", "--scope", "weather.read"), 401, invalid, ""},
		{"a token without the scope is forbidden", mintToken(t, "--aud", resource, "--iss", oauthIssuer, "--scope", "profile"), 403,
			`Bearer error="insufficient_scope", scope="weather.read", resource_metadata="` + metadataURL + `"`, ""},
	}
	// Per-tool access (docs/guides/oauth.md, "Who may call which tool"): set_alert needs
	// weather.admin, and each caller may call it three times a minute.
	admin := mintToken(t, "--aud", resource, "--iss", oauthIssuer, "--scope", "weather.read weather.admin", "--sub", "carol")
	alert := `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"set_alert","arguments":{"city":"Oslo"}}}`
	guide, err := os.ReadFile(filepath.Join(repoRoot(), "docs", "guides", "oauth.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		token, challenge, body string
		status                 int
	}{
		{good, `Bearer error="insufficient_scope", scope="weather.admin weather.read", error_description="Forbidden: tool 'set_alert' needs scope weather.admin, which the caller's token does not grant"`,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32003,"message":"Forbidden: tool \"set_alert\" needs scope weather.admin, which the caller's token does not grant"}}`, 403},
		{admin, "", `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"Alert set for Oslo, for carol"}]}}`, 200},
		{admin, "", "", 200},
		{admin, "", "", 200},
		{admin, "", "", 429},
	} {
		a := do(t, "POST", resource, "application/x-www-form-urlencoded", alert, "Authorization", "Bearer "+step.token)
		if a.status != step.status || a.header.Get("WWW-Authenticate") != step.challenge || step.body != "" && a.body != step.body {
			t.Fatalf("set_alert: got %d %q %s\nwant %d %q %s", a.status, a.header.Get("WWW-Authenticate"), a.body, step.status, step.challenge, step.body)
		}
		if step.status == 429 && (a.header.Get("Retry-After") == "" || !strings.Contains(a.body, `"Rate limited: tool \"set_alert\" allows 3 calls per 1m for each caller; retry in `)) {
			t.Fatalf("the fourth call: %v %s", a.header, a.body)
		}
		for _, shown := range []string{step.challenge, step.body} {
			if !strings.Contains(string(guide), shown) {
				t.Errorf("docs/guides/oauth.md does not show %s", shown)
			}
		}
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Lisbon"}}}`
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var headers []string
			if c.token != "" {
				headers = []string{"Authorization", "Bearer " + c.token}
			}
			a := do(t, "POST", resource, "application/x-www-form-urlencoded", call, headers...)
			if a.status != c.status || a.header.Get("WWW-Authenticate") != c.challenge || c.body != "" && a.body != c.body {
				t.Fatalf("got %d %q %s\nwant %d %q %s", a.status, a.header.Get("WWW-Authenticate"), a.body, c.status, c.challenge, c.body)
			}
		})
	}
	t.Run("the metadata names the resource and the issuer", func(t *testing.T) {
		a := do(t, "GET", metadataURL, "", "")
		want := `{"resource":"` + resource + `","authorization_servers":["` + oauthIssuer + `"],"scopes_supported":["weather.read","weather.admin"],"bearer_methods_supported":["header"],"resource_name":"Weather tools"}`
		if a.status != 200 || a.body != want {
			t.Fatalf("got %d %s\nwant %s", a.status, a.body, want)
		}
	})
}

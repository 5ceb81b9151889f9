package oauthmetadata_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	_ "github.com/octo-run/octo/blocks/oauthmetadata"
	_ "github.com/octo-run/octo/blocks/setpayload"
	octohttp "github.com/octo-run/octo/connectors/http"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// site serves an endpoint at /mcp and its metadata on both well-known paths; the metadata
// settings come from the environment, as a deployment would give them.
const site = `
env:
  - { name: MCP_RESOURCE }
  - { name: AUTH_ISSUER }
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, cors: true } }
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process: [ { type: set-payload, settings: { value: '"the mcp endpoint"' } } ]
  - name: metadata
    source: { connector: api, settings: { path: /.well-known/oauth-protected-resource/mcp } }
    process: &metadata
      - type: oauth-metadata
        settings:
          resource: ${MCP_RESOURCE}
          authorizationServers: [ "${AUTH_ISSUER}" ]
          scopesSupported: [ weather.read ]
          resourceName: Weather tools
  - name: metadata-root
    source: { connector: api, settings: { path: /.well-known/oauth-protected-resource } }
    process: *metadata
`

var env = map[string]string{"MCP_RESOURCE": "https://mcp.example.net/mcp", "AUTH_ISSUER": "https://login.example.net"}

const document = `{"resource":"https://mcp.example.net/mcp","authorization_servers":["https://login.example.net"],"scopes_supported":["weather.read"],"bearer_methods_supported":["header"],"resource_name":"Weather tools"}`

func load(t *testing.T, yaml string) (*runtime.Service, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	cfg, err := config.Load(dir, lookup)
	if err != nil {
		return nil, err
	}
	return runtime.NewService(cfg, runtime.Options{LookupEnv: lookup})
}

func TestTheMetadataIsServedOnBothWellKnownPaths(t *testing.T) {
	svc, err := load(t, site)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer svc.Stop(context.Background())
	base := "http://" + svc.Connector("api").(*octohttp.Connector).Addr()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()

	cases := []struct {
		name, method, path, origin string
		status                     int
		body                       string
		header                     map[string]string
	}{
		{"the path-inserted document is served as JSON", "GET", "/.well-known/oauth-protected-resource/mcp", "", 200, document,
			map[string]string{"Content-Type": "application/json"}},
		{"the root document is the same", "GET", "/.well-known/oauth-protected-resource", "", 200, document, nil},
		{"HEAD is answered without a body", "HEAD", "/.well-known/oauth-protected-resource/mcp", "", 200, "", nil},
		{"the /mcp route does not swallow the well-known path", "GET", "/mcp", "", 200, `"the mcp endpoint"`, nil},
		{"a longer well-known path is not served", "GET", "/.well-known/oauth-protected-resource/mcp/x", "", 404, "", nil},
		{"POST is refused with 405 and Allow", "POST", "/.well-known/oauth-protected-resource", "", 405,
			`{"error":"method POST is not allowed on protected resource metadata; allowed: GET, HEAD"}`, map[string]string{"Allow": "GET, HEAD"}},
		{"a browser on another origin can read it", "GET", "/.well-known/oauth-protected-resource/mcp", "https://app.example.net", 200, document,
			map[string]string{"Access-Control-Allow-Origin": "https://app.example.net"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, base+c.path, nil)
			if c.origin != "" {
				req.Header.Set("Origin", c.origin)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status || c.body != "" && string(b) != c.body || c.method == "HEAD" && len(b) > 0 {
				t.Fatalf("got %d %s, want %d %s", resp.StatusCode, b, c.status, c.body)
			}
			for k, v := range c.header {
				if resp.Header.Get(k) != v {
					t.Errorf("%s = %q, want %q", k, resp.Header.Get(k), v)
				}
			}
		})
	}
}

func TestBadMetadataIsReportedAtItsLines(t *testing.T) {
	cases := []struct{ name, settings, want string }{
		{"a resource not in canonical form is refused", `{ resource: "HTTPS://MCP.example.net/mcp", authorizationServers: [ "https://login.example.net" ] }`,
			`c.yaml:7:55: flows[0].process[0].settings.resource (oauth-metadata): use the canonical form https://mcp.example.net/mcp`},
		{"an empty list of authorization servers is refused", `{ resource: "https://mcp.example.net/mcp", authorizationServers: [] }`,
			`c.yaml:7:108: flows[0].process[0].settings.authorizationServers (oauth-metadata): required: at least one authorization server issuer url`},
		{"a query bearer method is refused", `{ resource: "https://mcp.example.net/mcp", authorizationServers: [ "https://login.example.net" ], bearerMethodsSupported: [ query ] }`,
			`flows[0].process[0].settings.bearerMethodsSupported (oauth-metadata): "query" is not supported`},
		{"an unknown key is refused", `{ resource: "https://mcp.example.net/mcp", authorizationServers: [ "https://login.example.net" ], scopes: [ a ] }`,
			`unknown key "scopes"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := load(t, `
connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: metadata
    source: { connector: api, settings: { path: /.well-known/oauth-protected-resource } }
    process:
      - { type: oauth-metadata, settings: `+c.settings+` }
`)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v\nwant it to contain %s", err, c.want)
			}
		})
	}
}

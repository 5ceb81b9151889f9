package http_test

import (
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	octohttp "github.com/octo-run/octo/connectors/http"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// guardCase is one request and the answer the guard must give it.
type guardCase struct {
	name, method, path string
	header             []string // name, value pairs; "Host" sets the Host header
	status             int
	body               string            // exact; "" skips the check
	want               map[string]string // response headers; "" means absent
}

func runGuardCases(t *testing.T, base string, cases []guardCase) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method := c.method
			if method == "" {
				method = http.MethodPost
			}
			path := c.path
			if path == "" {
				path = "/echo"
			}
			req, err := http.NewRequest(method, base+path, strings.NewReader(`{"a":1}`))
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i+1 < len(c.header); i += 2 {
				if c.header[i] == "Host" {
					req.Host = c.header[i+1]
				} else {
					req.Header.Add(c.header[i], c.header[i+1])
				}
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status || c.body != "" && string(b) != c.body {
				t.Fatalf("got %d %s, want %d %s", resp.StatusCode, b, c.status, c.body)
			}
			for k, v := range c.want {
				if got := strings.Join(resp.Header.Values(k), ", "); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

const guarded = `
connectors:
  - name: api
    type: http
    settings: { port: 0, host: 127.0.0.1, cors: [ "https://App.example.com/", "http://localhost:3000" ] }
flows:
  - name: echo
    source: { connector: api, settings: { path: /echo } }
    process: []
`

var (
	noCORS  = map[string]string{"Access-Control-Allow-Origin": "", "Access-Control-Expose-Headers": ""}
	appCORS = map[string]string{
		"Access-Control-Allow-Origin":   "https://app.example.com",
		"Access-Control-Expose-Headers": "Mcp-Session-Id, WWW-Authenticate",
		"Vary":                          "Origin",
	}
	preflightAnswer = map[string]string{
		"Access-Control-Allow-Origin":  "https://app.example.com",
		"Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
		"Access-Control-Allow-Headers": "Content-Type, Authorization",
		"Access-Control-Max-Age":       "7200",
	}
)

func TestTheGuardRefusesForeignOriginsAndHostsOnLoopback(t *testing.T) {
	base, _ := start(t, guarded)
	own := strings.TrimPrefix(base, "http://")
	port := own[strings.LastIndexByte(own, ':')+1:]
	foreign := `{"error":"origin https://evil.example is not allowed (add it to the connector's cors setting)"}`
	runGuardCases(t, base, []guardCase{
		{name: "a request without Origin (curl, an SDK) is served", status: 200, body: `{"a":1}`, want: noCORS},
		{name: "a same-origin request is served without CORS headers", header: []string{"Origin", base}, status: 200, want: noCORS},
		{name: "a foreign Origin is refused with 403 naming it", header: []string{"Origin", "https://evil.example"}, status: 403, body: foreign, want: noCORS},
		{name: "a foreign Origin is refused before routing", path: "/nowhere", header: []string{"Origin", "https://evil.example"}, status: 403, body: foreign},
		{name: "the null Origin of a sandboxed page is refused", header: []string{"Origin", "null"}, status: 403},
		{name: "two Origin headers are refused", header: []string{"Origin", base, "Origin", base}, status: 403},
		{name: "the same host on another port is another origin", header: []string{"Origin", "http://127.0.0.1:1"}, status: 403},
		{name: "an Origin listed under cors is served with CORS headers", header: []string{"Origin", "https://app.example.com"}, status: 200, body: `{"a":1}`, want: appCORS},
		{name: "a listed Origin is matched without regard to case", header: []string{"Origin", "HTTPS://APP.EXAMPLE.COM"}, status: 200},
		{name: "a listed Origin with a port is matched", header: []string{"Origin", "http://localhost:3000"}, status: 200},
		{name: "a preflight from a listed Origin is answered 204 by the connector", method: "OPTIONS",
			header: []string{"Origin", "https://app.example.com", "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization, content-type"},
			status: 204, body: "", want: preflightAnswer},
		{name: "a preflight from a foreign Origin is refused", method: "OPTIONS",
			header: []string{"Origin", "https://evil.example", "Access-Control-Request-Method", "POST"}, status: 403, want: noCORS},
		{name: "a foreign Host on a loopback address is refused (DNS rebinding)", header: []string{"Host", "evil.example:" + port}, status: 403,
			body: `{"error":"host evil.example:` + port + ` is not allowed on a loopback address (add it to the connector's allowedHosts)"}`},
		{name: "a rebound page sending its own Host and Origin is refused", header: []string{"Host", "evil.example.com:" + port, "Origin", "http://evil.example.com:" + port}, status: 403},
		{name: "Host and Origin naming the own 127.0.0.1 address are served", header: []string{"Host", own, "Origin", "http://" + own}, status: 200},
		{name: "Host localhost with any port is served", header: []string{"Host", "localhost:9"}, status: 200},
		{name: "Host [::1] is served", header: []string{"Host", "[::1]:" + port}, status: 200},
		{name: "a Host that only starts like localhost is refused", header: []string{"Host", "localhost.evil.example:" + port}, status: 403},
	})
}

func TestCORSTrueAllowsAnyOriginAndAllowedHostsWidensTheHostCheck(t *testing.T) {
	base, _ := start(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, cors: true, allowedHosts: [mcp.internal, "[fd00::1]"] } }
flows:
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`)
	runGuardCases(t, base, []guardCase{
		{name: "any Origin is served and echoed", header: []string{"Origin", "https://anything.example"}, status: 200,
			want: map[string]string{"Access-Control-Allow-Origin": "https://anything.example", "Vary": "Origin"}},
		{name: "a preflight from any Origin is answered", method: "OPTIONS",
			header: []string{"Origin", "https://anything.example", "Access-Control-Request-Method", "DELETE"}, status: 204},
		{name: "an OPTIONS request that is not a preflight reaches the flow", method: "OPTIONS",
			header: []string{"Origin", "https://anything.example"}, status: 200, body: `{"a":1}`},
		{name: "a host in allowedHosts is served on loopback", header: []string{"Host", "mcp.internal:8443"}, status: 200},
		{name: "an IPv6 literal in allowedHosts is served", header: []string{"Host", "[fd00::1]:80"}, status: 200},
		{name: "a host not listed is still refused", header: []string{"Host", "evil.example"}, status: 403},
	})
}

func TestAllowedHostsStarTurnsTheHostCheckOff(t *testing.T) {
	base, _ := start(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, allowedHosts: ["*"] } }
flows:
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`)
	runGuardCases(t, base, []guardCase{
		{name: "a proxy's public Host is served", header: []string{"Host", "mcp.example.net"}, status: 200},
		{name: "the Origin check still holds", header: []string{"Host", "mcp.example.net", "Origin", "https://evil.example"}, status: 403},
		{name: "a page served by that proxy is same-origin", header: []string{"Host", "mcp.example.net", "Origin", "https://mcp.example.net"}, status: 200},
	})
}

func TestAConnectorOnEveryInterfaceChecksHostOnLoopbackConnections(t *testing.T) {
	base, _ := start(t, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 0.0.0.0 } }
flows:
  - { name: echo, source: { connector: api, settings: { path: /echo } }, process: [] }
`)
	u, _ := url.Parse(base)
	local := "http://127.0.0.1:" + u.Port()
	runGuardCases(t, local, []guardCase{
		{name: "a loopback connection naming localhost is served", header: []string{"Host", "localhost:" + u.Port()}, status: 200},
		{name: "a loopback connection naming a foreign host is refused", header: []string{"Host", "evil.example:" + u.Port()}, status: 403},
	})
}

func TestAConnectorListensOnLoopbackOnlyUnlessAHostIsSet(t *testing.T) {
	for _, c := range []struct {
		name, settings string
		want           func(netip.Addr) bool
	}{
		{"without host it binds 127.0.0.1", `port: 0`, func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.1") }},
		{"host: 0.0.0.0 binds every interface", `port: 0, host: 0.0.0.0`, netip.Addr.IsUnspecified},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, svc := start(t, "connectors:\n  - { name: api, type: http, settings: { "+c.settings+" } }\n")
			addr := svc.Connector("api").(*octohttp.Connector).Addr()
			if ap, err := netip.ParseAddrPort(addr); err != nil || !c.want(ap.Addr()) {
				t.Fatalf("bound %s (%v)", addr, err)
			}
		})
	}
}

func TestGuardSettingsAreCheckedAtBuild(t *testing.T) {
	cases := []struct{ name, settings, want string }{
		{"cors must be a bool or a list", `cors: "yes"`, `c.yaml:6:13: connectors[0].settings.cors (connector "api"): expected true, false or a list of origins such as [https://app.example.com]`},
		{"a cors entry must be an origin", `cors: [ "https://a.example/path" ]`, `c.yaml:6:15: connectors[0].settings.cors[0] (connector "api"): "https://a.example/path" is not an origin: write scheme://host[:port], e.g. https://app.example.com`},
		{"an allowed host must be a bare name", `allowedHosts: [ "http://a.example" ]`, `c.yaml:6:23: connectors[0].settings.allowedHosts[0] (connector "api"): "http://a.example" is not a host name: give the name alone, without scheme or port, or "*" to turn the check off`},
		{"maxInFlight must be positive", `maxInFlight: 0`, `c.yaml:6:20: connectors[0].settings.maxInFlight (connector "api"): maxInFlight must be positive`},
		{"maxStreams must be positive", `maxStreams: -1`, `c.yaml:6:19: connectors[0].settings.maxStreams (connector "api"): maxStreams must be positive`},
		{"bodyTimeout must be positive", `bodyTimeout: 0s`, `c.yaml:6:20: connectors[0].settings.bodyTimeout (connector "api"): bodyTimeout must be positive`},
		{"writeTimeout must be positive", `writeTimeout: -1s`, `c.yaml:6:21: connectors[0].settings.writeTimeout (connector "api"): writeTimeout must be positive`},
		{"maxStreamsPerClient must be positive", `maxStreamsPerClient: -2`, `c.yaml:6:28: connectors[0].settings.maxStreamsPerClient (connector "api"): maxStreamsPerClient must be positive`},
		{"maxConnsPerClient must be positive", `maxConnsPerClient: 0`, `c.yaml:6:26: connectors[0].settings.maxConnsPerClient (connector "api"): maxConnsPerClient must be positive`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := buildOnly(t, "connectors:\n  - name: api\n    type: http\n    settings:\n      port: 0\n      "+c.settings+"\n")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v\nwant %s", err, c.want)
			}
		})
	}
}

// buildOnly builds a config without starting it and returns the diagnostics.
func buildOnly(t *testing.T, yaml string) error {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir, func(string) (string, bool) { return "", false })
	if err != nil {
		return err
	}
	_, err = runtime.NewService(cfg, runtime.Options{})
	return err
}

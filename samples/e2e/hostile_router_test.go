package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// numbersConfig is a router whose tools hand numbers through a branch: echo
// returns its arguments, next computes with them; /calc does the same on a
// plain HTTP flow, whose body is decoded by the runtime rather than the router.
const numbersConfig = `
service: { name: numbers }
env:
  - { name: HTTP_PORT, default: "8080" }
connectors:
  - { name: api, type: http, settings: { port: "${HTTP_PORT}", host: 127.0.0.1 } }
flows:
  - name: mcp
    source: { connector: api, type: http, settings: { path: /mcp } }
    process:
      - type: mcp-router
        name: numbers
        tools:
          - name: echo
            inputSchema: '{"type":"object","properties":{"n":{"type":"number"}}}'
            outputSchema: '{"type":"object","properties":{"n":{"type":"number"}}}'
            process:
              - type: set-payload
                settings: { value: 'body' }
          - name: next
            inputSchema: '{"type":"object","required":["n"],"properties":{"n":{"type":"integer"}}}'
            process:
              - type: set-payload
                settings: { value: '{"next": body.n + 1, "big": body.n > 5}' }
  - name: calc
    source: { connector: api, type: http, settings: { path: /calc } }
    process:
      - type: set-payload
        settings: { value: '{"n": body.n, "next": body.n + 1, "big": body.n > 5}' }
`

// runConfig writes a config to a temporary folder and serves it on a free
// port given through HTTP_PORT, with env added; it returns the base URL.
func runConfig(t *testing.T, config string, env ...string) (string, *proc) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(freePort(t))
	p := startOcto(t, append([]string{"HTTP_PORT=" + port}, env...), "run", "--config", dir)
	return "http://127.0.0.1:" + port, p
}

// Numbers go through a router branch as the client wrote them: integers past
// 2^53 and past int64 are not rounded through float64 on the way, and a
// number no float64 can hold is refused with a result naming it.
func TestRouterToolsKeepNumbersExact(t *testing.T) {
	base, _ := runConfig(t, numbersConfig)
	call := func(tool, args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	}
	echoed := func(n string) string {
		return `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"n\":` + n + `}"}],"structuredContent":{"n":` + n + `}}}`
	}
	cases := []struct{ name, body, want string }{
		{"2^53+1 comes back exact", call("echo", `{"n":9007199254740993}`), echoed("9007199254740993")},
		{"-(2^53+1) comes back exact", call("echo", `{"n":-9007199254740993}`), echoed("-9007199254740993")},
		{"an integer past int64 comes back exact", call("echo", `{"n":12345678901234567890}`), echoed("12345678901234567890")},
		{"0.1 comes back as 0.1", call("echo", `{"n":0.1}`), echoed("0.1")},
		{"1e400 is an error result naming the number", call("echo", `{"n":1e400}`),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"invalid arguments for tool \"echo\": number 1e400 is out of range"}],"isError":true}}`},
		{"arithmetic and comparison on 2^53+1 are exact", call("next", `{"n":9007199254740993}`),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"big\":true,\"next\":9007199254740994}"}]}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := do(t, "POST", base+"/mcp", "application/json", c.body)
			if a.status != 200 || a.body != c.want {
				t.Fatalf("got %d\n%s\nwant\n%s", a.status, a.body, c.want)
			}
		})
	}
	t.Run("a plain HTTP flow computes on the exact value", func(t *testing.T) {
		a := do(t, "POST", base+"/calc", "application/json", `{"n":9007199254740993}`)
		if want := `{"big":true,"n":9007199254740993,"next":9007199254740994}`; a.status != 200 || a.body != want {
			t.Fatalf("got %d %s, want 200 %s", a.status, a.body, want)
		}
	})
	t.Run("a plain HTTP body with 1e400 is a 400 naming the number", func(t *testing.T) {
		a := do(t, "POST", base+"/calc", "application/json", `{"n":1e400}`)
		if want := `{"error":"invalid JSON body: number 1e400 is out of range"}`; a.status != 400 || a.body != want {
			t.Fatalf("got %d %s, want 400 %s", a.status, a.body, want)
		}
	})
}

// guardedConfig is an MCP endpoint behind jwt-validate whose keys come from a JWKS URL; a miss
// may refetch them at once (minRefreshInterval 1ms), which is what a flood of random kids aims at.
const guardedConfig = `
service: { name: guarded }
env:
  - { name: HTTP_PORT }
  - { name: JWKS_URL }
connectors:
  # The flood plays many hosts from 127.0.2.x, which count as one client: its cap is raised.
  - { name: api, type: http, settings: { port: "${HTTP_PORT}", host: 127.0.0.1, maxConnsPerClient: 4096 } }
flows:
  - name: mcp
    source: { connector: api, type: http, settings: { path: /mcp } }
    process:
      - type: jwt-validate
        settings: { jwksUrl: "${JWKS_URL}", audience: "http://127.0.0.1/mcp", refreshInterval: 1h, minRefreshInterval: 1ms }
      - type: mcp-router
        tools:
          - name: whoami
            process: [ { type: set-payload, settings: { value: 'vars.jwt.sub' } } ]
`

// slowJWKS publishes the development keys and, once stalled, holds every fetch until released,
// as an authorization server that has become slow.
type slowJWKS struct {
	*httptest.Server
	hits, stalled, abandoned atomic.Int64
	stall                    chan struct{}
	stalling                 atomic.Bool
}

func newSlowJWKS(t *testing.T) *slowJWKS {
	t.Helper()
	keys, err := os.ReadFile(filepath.Join(repoRoot(), "samples", "mcp-oauth", "dev-jwks.json"))
	if err != nil {
		t.Fatal(err)
	}
	j := &slowJWKS{stall: make(chan struct{})}
	j.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		j.hits.Add(1)
		if j.stalling.Load() {
			j.stalled.Add(1)
			defer j.stalled.Add(-1)
			select {
			case <-j.stall:
			case <-r.Context().Done():
				j.abandoned.Add(1)
				return
			}
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		_, _ = w.Write(keys)
	}))
	t.Cleanup(j.Close)
	return j
}

// floodClient posts from many loopback addresses (127.0.2.1 to 127.0.2.40), as a flood from
// many hosts would come, and never reuses a connection.
func floodClient() *http.Client {
	var next atomic.Uint32
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		src := &net.TCPAddr{IP: net.IPv4(127, 0, 2, byte(1+next.Add(1)%40))}
		return (&net.Dialer{LocalAddr: src}).DialContext(ctx, network, addr)
	}
	return &http.Client{Transport: &http.Transport{DialContext: dial, DisableKeepAlives: true}}
}

// randomKidToken is a well-formed token for a key id nobody published, with no real signature.
func randomKidToken(i int) string {
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	return enc(fmt.Sprintf(`{"alg":"ES256","kid":"random-%d"}`, i)) + "." + enc(`{"sub":"mallory"}`) + "." + enc("not a signature")
}

type floodAnswer struct {
	status           int
	retryAfter, body string
	err              error
}

func postToken(client *http.Client, url, token string) floodAnswer {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		return floodAnswer{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return floodAnswer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return floodAnswer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), body: string(b), err: err}
}

// maxRefreshWaiters is jwt-validate's bound on requests waiting for a key fetch.
const maxRefreshWaiters = 16

// While the JWKS host hangs on the refresh that an unknown kid started, 2,000 concurrent
// requests with random kids must neither queue behind it nor hold the connector's in-flight
// slots (1,024): 16 wait for the fetch, the rest get 503 with Retry-After at once, a valid token
// gets its 200 while the fetch still hangs, and the JWKS host sees a single refresh. Peak RSS
// stays under 150 MB (49 to 62 MB measured).
func TestJWTValidateFloodOfUnknownKidsWhileTheJWKSHostIsSlow(t *testing.T) {
	const flood = 2000
	jwks := newSlowJWKS(t)
	base, p := runConfig(t, guardedConfig, "JWKS_URL="+jwks.URL)
	url := base + "/mcp"
	valid := mintToken(t, "--aud", "http://127.0.0.1/mcp", "--sub", "alice")
	released := sync.OnceFunc(func() { close(jwks.stall) })
	jwks.stalling.Store(true)

	answers := make(chan floodAnswer, flood)
	client := floodClient()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer released() // first, so a failing test does not wait out octo's fetch timeout
	for i := range flood {
		wg.Go(func() { answers <- postToken(client, url, randomKidToken(i)) })
	}
	// counts sorts the answers: "busy" is the block's 503 for a request finding no place to
	// wait, "in flight" the connector's 503 should the flood fill its slots on a slow machine,
	// "401" a refused token. Anything else is a problem.
	counts := map[string]int{}
	var problems []string
	collect := func(n int) {
		for range n {
			a := <-answers
			switch {
			case a.err != nil:
				problems = append(problems, a.err.Error())
			case a.status == http.StatusServiceUnavailable && a.retryAfter == "1" &&
				a.body == `{"error":"temporarily_unavailable","error_description":"the signing keys are being refreshed; retry shortly"}`:
				counts["busy"]++
			case a.status == http.StatusServiceUnavailable && a.retryAfter == "1" && strings.Contains(a.body, "in flight"):
				counts["in flight"]++
			case a.status == http.StatusUnauthorized && strings.Contains(a.body, `"invalid_token"`):
				counts["401"]++
			default:
				problems = append(problems, fmt.Sprintf("%d (Retry-After %q) %s", a.status, a.retryAfter, a.body))
			}
		}
	}
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		collect(flood - maxRefreshWaiters)
	}()
	select {
	case <-answered:
	case <-p.done:
		t.Fatal("octo exited during the flood")
	case <-jwksGaveUp(jwks):
		t.Fatal("the flood was held until octo's JWKS fetch gave up")
	}
	if len(problems) > 0 || counts["401"] > 0 || jwks.stalled.Load() != 1 {
		t.Fatalf("answered %v with %d fetch(es) hanging, problems %q; want only 503s while one hangs",
			counts, jwks.stalled.Load(), problems[:min(len(problems), 5)])
	}
	t.Logf("while the fetch hangs: %v", counts)
	t.Run("a valid token gets its answer while the fetch still hangs", func(t *testing.T) {
		a := postToken(http.DefaultClient, url, valid)
		if a.err != nil || a.status != 200 || a.body != `{"jsonrpc":"2.0","id":1,"result":{}}` {
			t.Fatalf("got %+v, want 200 with the ping result", a)
		}
		if jwks.stalled.Load() != 1 {
			t.Fatal("the fetch ended before the check")
		}
	})
	released()
	collect(maxRefreshWaiters)
	t.Run("the requests that waited get 401 and the JWKS host saw one refresh", func(t *testing.T) {
		if counts["401"] != maxRefreshWaiters || len(problems) > 0 {
			t.Fatalf("answered %v, problems %q; want %d 401s", counts, problems, maxRefreshWaiters)
		}
		if got := jwks.hits.Load(); got != 2 {
			t.Fatalf("JWKS fetches = %d, want 2 (start and one refresh)", got)
		}
	})
	assertPeakRSSUnder(t, p, 150)
}

// jwksGaveUp is closed once a stalled fetch was abandoned by octo (its 10s fetch timeout).
func jwksGaveUp(j *slowJWKS) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for j.abandoned.Load() == 0 && !isClosed(j.stall) {
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return done
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// Two Authorization headers are a malformed request (RFC 6750 §3.1), even when both carry the
// same valid token: which one counts would depend on whoever reads them.
func TestJWTValidateRefusesTwoAuthorizationHeaders(t *testing.T) {
	resource, _ := oauthSample(t)
	token := mintToken(t, "--aud", resource, "--iss", oauthIssuer, "--scope", "weather.read")
	for _, second := range []string{"Bearer " + token, "Basic YTpi", ""} {
		req, err := http.NewRequest(http.MethodPost, resource, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Add("Authorization", "Bearer "+token)
		req.Header.Add("Authorization", second)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		wantBody := `{"error":"invalid_request","error_description":"the request has more than one Authorization header"}`
		wantChallenge := `Bearer resource_metadata="` + strings.Replace(resource, "/mcp", "/.well-known/oauth-protected-resource/mcp", 1) + `", error="invalid_request"`
		if resp.StatusCode != 400 || string(body) != wantBody || resp.Header.Get("WWW-Authenticate") != wantChallenge {
			t.Errorf("second header %.12q: got %d %s (WWW-Authenticate %s)\nwant 400 %s (%s)",
				second, resp.StatusCode, body, resp.Header.Get("WWW-Authenticate"), wantBody, wantChallenge)
		}
	}
}

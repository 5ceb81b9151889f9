package jwtvalidate

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"

	_ "github.com/octo-run/octo/blocks/setpayload"
	octohttp "github.com/octo-run/octo/connectors/http"
	"github.com/octo-run/octo/runtime"
	octoconfig "github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// protected is an MCP-like endpoint behind jwt-validate; the block after it answers with what
// the claims say, so a test sees that vars.jwt reached later blocks.
const protected = `
env:
  - { name: JWKS_URL }
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1, cors: [ "https://app.example.net" ] } }
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: jwt-validate
        settings:
          jwksUrl: ${JWKS_URL}
          issuer: https://login.example.net
          audience: https://mcp.example.net/mcp
          requiredScopes: [ inventory.read ]
          leeway: 30s
          refreshInterval: 1h
          minRefreshInterval: 1ms
      - type: set-payload
        settings: { value: '{"sub": vars?.jwt?.sub ?? "none", "scope": vars?.jwt?.scope ?? ""}' }
`

const (
	bodyMissing      = `{"error":"unauthorized","error_description":"this resource needs a bearer token in the Authorization header"}`
	bodyInvalid      = `{"error":"invalid_token","error_description":"the bearer token is invalid or expired"}`
	bodyInsufficient = `{"error":"insufficient_scope","error_description":"the bearer token lacks a required scope (this resource needs: inventory.read)"}`
	bodyValid        = `{"scope":"openid inventory.read","sub":"user-1"}`
	bodyRepeated     = `{"error":"invalid_request","error_description":"the request has more than one Authorization header"}`
	wantRepeated     = `Bearer resource_metadata="` + testMetadataURL + `", error="invalid_request"`
)

// loadService builds a config written to dir with env as the process environment.
func loadService(t *testing.T, dir, yaml string, env map[string]string, logs io.Writer) (*runtime.Service, error) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	cfg, err := octoconfig.Load(dir, lookup)
	if err != nil {
		return nil, err
	}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return runtime.NewService(cfg, runtime.Options{Logger: logger, LookupEnv: lookup})
}

// serve builds and starts a config and returns the connector's base URL.
func serve(t *testing.T, yaml string, env map[string]string, logs io.Writer) string {
	t.Helper()
	svc, err := loadService(t, t.TempDir(), yaml, env, logs)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Stop(context.Background()) })
	return "http://" + svc.Connector("api").(*octohttp.Connector).Addr()
}

type blockCase struct {
	name, method, query string
	header              []string
	status              int
	challenge, body     string
}

func TestTheBlockAnswersEveryTokenWithTheExactStatusAndChallenge(t *testing.T) {
	ec := newECKey(t, "ec-a")
	rs := newRSAKey(t, "rsa-a")
	srv := newJWKSServer(t, ec, rs)
	logs := &runtimetest.Buffer{}
	base := serve(t, protected, map[string]string{"JWKS_URL": srv.URL}, logs)
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections)

	now := time.Now().Unix()
	set := func(name string, value any) func(map[string]any) {
		return func(c map[string]any) { c[name] = value }
	}
	rsaPEM := rsaPublicPEM(t)
	valid := sign(t, ec, claims(nil), nil)
	tokens := map[string]string{
		"valid":     valid,
		"expired":   sign(t, ec, claims(set("exp", now-120)), nil),
		"early":     sign(t, ec, claims(set("nbf", now+120)), nil),
		"issuer":    sign(t, ec, claims(set("iss", "https://evil.example.net")), nil),
		"audience":  sign(t, ec, claims(set("aud", "https://other.example/mcp")), nil),
		"scope":     sign(t, ec, claims(set("scope", "inventory.write")), nil),
		"none":      unsigned(t, map[string]any{"alg": "none", "kid": "ec-a"}, claims(nil), ""),
		"hs256":     sign(t, testKey{kid: "rsa-a", alg: jwa.HS256(), priv: rsaPEM}, claims(nil), nil),
		"oversized": sign(t, ec, claims(set("pad", strings.Repeat("x", 9000))), nil),
	}
	bearer := func(name string) []string { return []string{"Authorization", "Bearer " + tokens[name]} }
	invalid := func(name, token string) blockCase {
		return blockCase{name: name, header: bearer(token), status: 401, challenge: wantInvalid, body: bodyInvalid}
	}
	cases := []blockCase{
		{name: "a valid token reaches the next block with its claims in vars.jwt", header: bearer("valid"), status: 200, body: bodyValid},
		{name: "a request without a token is asked for one", status: 401, challenge: wantMissing, body: bodyMissing},
		{name: "basic credentials are asked for a bearer token", header: []string{"Authorization", "Basic dXNlcjpwYXNz"}, status: 401, challenge: wantMissing, body: bodyMissing},
		invalid("an expired token is refused", "expired"),
		invalid("a token not valid yet is refused", "early"),
		invalid("a token from another issuer is refused", "issuer"),
		invalid("a token for another audience is refused", "audience"),
		{name: "a token without the required scope is forbidden", header: bearer("scope"), status: 403, challenge: wantInsufficient, body: bodyInsufficient},
		invalid(`an alg "none" token is refused`, "none"),
		invalid("an HS256 token keyed with the public key is refused", "hs256"),
		{name: "a malformed token is refused", header: []string{"Authorization", "Bearer not.a.jwt!"}, status: 401, challenge: wantInvalid, body: bodyInvalid},
		invalid("an oversized token is refused", "oversized"),
		{name: "two Authorization headers are a bad request", header: append(bearer("valid"), bearer("valid")...),
			status: 400, challenge: wantRepeated, body: bodyRepeated},
		{name: "a second, empty Authorization header is a bad request too", header: append(bearer("valid"), "Authorization", ""),
			status: 400, challenge: wantRepeated, body: bodyRepeated},
		{name: "a token in the query string is ignored", method: "GET", query: "?access_token=" + valid, status: 401, challenge: wantMissing, body: bodyMissing},
		{name: "an OPTIONS request passes untouched to the next block", method: "OPTIONS", status: 200, body: `{"scope":"","sub":"none"}`},
		{name: "a CORS preflight is answered by the connector before authentication", method: "OPTIONS",
			header: []string{"Origin", "https://app.example.net", "Access-Control-Request-Method", "POST"}, status: 204},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkBlock(t, client, base, c) })
	}

	t.Run("a token signed by a new key is refused, then accepted once the JWKS rotates", func(t *testing.T) {
		next := newECKey(t, "ec-b")
		tokens["rotated"] = sign(t, next, claims(nil), nil)
		checkBlock(t, client, base, invalid("", "rotated"))
		srv.serve(t, next)
		// The refusal above fetched the keys; the next fetch is due minRefreshInterval (1ms) after
		// that one began. Sleeping past it makes the window certain instead of a race with the clock.
		time.Sleep(5 * time.Millisecond)
		checkBlock(t, client, base, blockCase{header: bearer("rotated"), status: 200, body: bodyValid})
		checkBlock(t, client, base, invalid("", "valid")) // the old key is gone
	})
	t.Run("a browser can read the challenge of a cross-origin 401", func(t *testing.T) {
		resp := checkBlock(t, client, base, blockCase{header: []string{"Origin", "https://app.example.net"}, status: 401, challenge: wantMissing, body: bodyMissing})
		if resp.Get("Access-Control-Allow-Origin") != "https://app.example.net" || !strings.Contains(resp.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
			t.Fatalf("CORS headers = %v", resp)
		}
	})
	t.Run("the log names the reason and kid but never the token", func(t *testing.T) {
		log := logs.String()
		for _, want := range []string{`reason="token expired" kid=ec-a`, `reason="issuer mismatch"`, `status=403 reason="token lacks required scope inventory.read" kid=ec-a`} {
			if !strings.Contains(log, want) {
				t.Errorf("log lacks %q:\n%s", want, log)
			}
		}
		for name, tok := range tokens {
			for _, part := range strings.Split(tok, ".") {
				if len(part) > 16 && strings.Contains(log, part) {
					t.Errorf("the log holds part of the %s token", name)
				}
			}
		}
	})
}

func checkBlock(t *testing.T, client *http.Client, base string, c blockCase) http.Header {
	t.Helper()
	method := c.method
	if method == "" {
		method = http.MethodPost
	}
	req, err := http.NewRequest(method, base+"/mcp"+c.query, strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(c.header); i += 2 {
		req.Header.Add(c.header[i], c.header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != c.status || string(b) != c.body {
		t.Fatalf("got %d %s\nwant %d %s", resp.StatusCode, b, c.status, c.body)
	}
	if got := resp.Header.Get("WWW-Authenticate"); got != c.challenge {
		t.Fatalf("WWW-Authenticate =\n  %s\nwant\n  %s", got, c.challenge)
	}
	return resp.Header
}

func TestTheBlockReadsAKeyFileBesideItsConfig(t *testing.T) {
	dir := t.TempDir()
	pub, err := os.ReadFile("testdata/es256-public.jwks")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "keys.jwks"), pub, 0o644); err != nil {
		t.Fatal(err)
	}
	svc, err := loadService(t, dir, `
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1 } }
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - { type: jwt-validate, settings: { jwksFile: keys.jwks, audience: "http://127.0.0.1:8080/mcp" } }
      - { type: set-payload, settings: { value: 'vars.jwt.sub' } }
`, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer svc.Stop(context.Background())
	tok, err := Mint(MintOptions{KeyFile: "testdata/es256-private.jwk", Audience: "http://127.0.0.1:8080/mcp", Subject: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	base := "http://" + svc.Connector("api").(*octohttp.Connector).Addr()
	checkBlock(t, client, base, blockCase{header: []string{"Authorization", "Bearer " + tok}, status: 200, body: `"alice"`})
	checkBlock(t, client, base, blockCase{status: 401, body: bodyMissing,
		challenge: `Bearer resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"`})
}

func TestBadBlockSettingsAreReportedAtTheirLines(t *testing.T) {
	cases := []struct{ name, settings, want string }{
		{"an unknown key is refused", `{ jwksFile: k.jwks, audience: "https://a.example/mcp", audiences: [x] }`,
			`c.yaml:9:74: flows[0].process[0].settings.audiences (jwt-validate): unknown key "audiences" (did you mean "audience"?)`},
		{"a missing audience is refused", `{ jwksUrl: "https://login.example.net/jwks" }`,
			`c.yaml:9:19: flows[0].process[0].settings.audience (jwt-validate): required: this server's resource identifier`},
		{"alg none is refused at its line", "\n          jwksUrl: https://login.example.net/jwks\n          audience: https://a.example/mcp\n          algorithms: [none]",
			`c.yaml:12:24: flows[0].process[0].settings.algorithms[0] (jwt-validate): unknown algorithm "none"; expected one of: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, HS256, HS384, HS512`},
		{"two key sources are refused", `{ jwksFile: k.jwks, jwksUrl: "https://login.example.net/jwks", audience: "https://a.example/mcp" }`,
			`flows[0].process[0].settings.jwksUrl (jwt-validate): set exactly one of jwksUrl or jwksFile (both are set)`},
		{"a missing key file is refused at build", `{ jwksFile: missing.jwks, audience: "https://a.example/mcp" }`,
			`c.yaml:9:31: flows[0].process[0].settings.jwksFile (jwt-validate): open `},
		{"an audience that is no URL needs an explicit metadata URL", `{ jwksUrl: "https://login.example.net/jwks", audience: "api://inventory" }`,
			`flows[0].process[0].settings.resourceMetadataUrl (jwt-validate): resourceMetadataUrl is required when audience is not this server's URL`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadService(t, t.TempDir(), `
connectors:
  - { name: api, type: http, settings: { port: 0 } }
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: jwt-validate
        settings: `+c.settings+"\n", nil, io.Discard)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v\nwant it to contain %s", err, c.want)
			}
			if n := strings.Count(err.Error(), "\n") + 1; n != 1 {
				t.Fatalf("got %d diagnostics, want 1:\n%v", n, err)
			}
		})
	}
}

func TestAnUnreachableJWKSStopsTheServiceFromStarting(t *testing.T) {
	srv := newJWKSServer(t)
	srv.status.Store(http.StatusInternalServerError)
	svc, err := loadService(t, t.TempDir(), protected, map[string]string{"JWKS_URL": srv.URL}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	err = svc.Start(context.Background())
	if err == nil {
		_ = svc.Stop(context.Background())
		t.Fatal("started without keys")
	}
	if want := `flow "mcp": jwt-validate: jwksUrl: jwks endpoint ` + srv.URL + ` answered 500 Internal Server Error`; err.Error() != want {
		t.Fatalf("got %q\nwant %q", err, want)
	}
}

// rsaPublicPEM is the shared RSA key's public half as PEM bytes: what an attacker can read,
// and so what an alg-confusion attack uses as an HMAC secret.
func rsaPublicPEM(t *testing.T) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(&sharedRSA(t).PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

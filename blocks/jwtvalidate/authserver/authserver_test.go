package authserver_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/octo-run/octo/blocks/jwtvalidate"
	"github.com/octo-run/octo/blocks/jwtvalidate/authserver"
)

const (
	devKey   = "../../../samples/mcp-oauth/dev-only-private.jwk"
	resource = "http://localhost:8080/mcp"
	callback = "http://localhost:1/callback"
	verifier = "a-verifier-of-at-least-forty-three-characters-long-0123456789"
)

func challenge(v string) string {
	sum := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

type harness struct {
	t   *testing.T
	url string
}

func start(t *testing.T) *harness {
	t.Helper()
	s := httptest.NewServer(nil)
	as, err := authserver.New(authserver.Options{Issuer: s.URL, KeyFile: devKey, User: "alice", Scopes: []string{"weather.read", "weather.admin"}})
	if err != nil {
		t.Fatal(err)
	}
	s.Config.Handler = as.Handler()
	t.Cleanup(s.Close)
	return &harness{t, s.URL}
}

// noRedirects is a client that shows a redirect instead of following it.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func (h *harness) do(req *http.Request) (int, http.Header, map[string]any) {
	h.t.Helper()
	resp, err := noRedirects.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	if m == nil {
		m = map[string]any{"text": string(data)}
	}
	return resp.StatusCode, resp.Header, m
}

func (h *harness) register(meta string) map[string]any {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, h.url+"/register", strings.NewReader(meta))
	req.Header.Set("Content-Type", "application/json")
	status, _, m := h.do(req)
	if status != http.StatusCreated {
		h.t.Fatalf("register: %d %v", status, m)
	}
	return m
}

// authorize asks for a code and returns where the server sent the browser.
func (h *harness) authorize(q url.Values) (int, *url.URL, string) {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, h.url+"/authorize?"+q.Encode(), nil)
	status, header, m := h.do(req)
	loc, _ := url.Parse(header.Get("Location"))
	text, _ := m["text"].(string)
	return status, loc, text
}

func (h *harness) token(form url.Values, basic ...string) (int, map[string]any) {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, h.url+"/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if len(basic) == 2 {
		req.SetBasicAuth(basic[0], basic[1])
	}
	status, _, m := h.do(req)
	return status, m
}

func loginQuery(clientID string) url.Values {
	return url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {callback}, "state": {"s1"},
		"code_challenge": {challenge(verifier)}, "code_challenge_method": {"S256"}, "scope": {"weather.read"}, "resource": {resource}}
}

// The whole login of a public client: register, authorize (approved at once, with state and
// iss), exchange the code with its verifier for a token jwt-validate accepts for the
// resource, refresh it; a code and a refresh token are each good once.
func TestALoginGivesATokenForTheResource(t *testing.T) {
	h := start(t)
	c := h.register(`{"client_name":"test","redirect_uris":["` + callback + `"],"token_endpoint_auth_method":"none"}`)
	id := c["client_id"].(string)
	if _, secret := c["client_secret"]; secret {
		t.Fatalf("a public client got a secret: %v", c)
	}
	status, loc, _ := h.authorize(loginQuery(id))
	code := loc.Query().Get("code")
	if status != http.StatusFound || code == "" || loc.Query().Get("state") != "s1" || loc.Query().Get("iss") != h.url {
		t.Fatalf("authorize: %d %v", status, loc)
	}
	exchange := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {callback}, "client_id": {id}, "code_verifier": {verifier}, "resource": {resource}}
	status, tok := h.token(exchange)
	if status != http.StatusOK || tok["token_type"] != "Bearer" || tok["scope"] != "weather.read" {
		t.Fatalf("token: %d %v", status, tok)
	}
	// Checked as a server behind jwt-validate checks it, with the keys the server publishes.
	v, err := jwtvalidate.New(jwtvalidate.Settings{JWKSURL: h.url + "/jwks", Issuer: h.url, Audience: resource,
		RequiredScopes: []string{"weather.read"}, ResourceMetadataURL: "http://localhost:8080/.well-known/oauth-protected-resource/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	claims, failure := v.Validate(t.Context(), "Bearer "+tok["access_token"].(string))
	if failure != nil || claims["sub"] != "alice" {
		t.Fatalf("the token as jwt-validate reads it: %v %+v", claims, failure)
	}
	if status, m := h.token(exchange); status != http.StatusBadRequest || m["error"] != "invalid_grant" {
		t.Fatalf("the code a second time: %d %v", status, m)
	}
	refresh := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}, "client_id": {id}}
	if status, m := h.token(refresh); status != http.StatusOK || m["access_token"] == nil {
		t.Fatalf("refresh: %d %v", status, m)
	}
	if status, m := h.token(refresh); status != http.StatusBadRequest || m["error"] != "invalid_grant" {
		t.Fatalf("a refresh token a second time: %d %v", status, m)
	}
}

// What a login must get right, each refused as OAuth says: to the browser when the code could
// go astray, else back to the client with an error.
func TestALoginThatIsWrongIsRefused(t *testing.T) {
	h := start(t)
	id := h.register(`{"redirect_uris":["` + callback + `"],"token_endpoint_auth_method":"none"}`)["client_id"].(string)
	for _, c := range []struct {
		name        string
		change      func(url.Values)
		status      int
		error, text string
	}{
		{"an unknown client", func(q url.Values) { q.Set("client_id", "nobody") }, 400, "", "unknown client_id nobody"},
		{"a redirect URI it did not register", func(q url.Values) { q.Set("redirect_uri", "http://localhost:2/evil") }, 400, "", "is not one the client registered"},
		{"no PKCE", func(q url.Values) { q.Del("code_challenge") }, 302, "invalid_request", ""},
		{"plain PKCE", func(q url.Values) { q.Set("code_challenge_method", "plain") }, 302, "invalid_request", ""},
		{"no resource", func(q url.Values) { q.Del("resource") }, 302, "invalid_target", ""},
		{"an unknown scope", func(q url.Values) { q.Set("scope", "weather.read root") }, 302, "invalid_scope", ""},
		{"another response type", func(q url.Values) { q.Set("response_type", "token") }, 302, "unsupported_response_type", ""},
	} {
		q := loginQuery(id)
		c.change(q)
		status, loc, text := h.authorize(q)
		if status != c.status || c.status == 302 && (loc.Query().Get("error") != c.error || loc.Query().Get("code") != "") || !strings.Contains(text, c.text) {
			t.Errorf("%s: %d %v %q", c.name, status, loc, text)
		}
	}
	_, loc, _ := h.authorize(loginQuery(id))
	bad := url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")}, "redirect_uri": {callback}, "client_id": {id}, "code_verifier": {verifier + "x"}}
	if status, m := h.token(bad); status != http.StatusBadRequest || !strings.Contains(m["error_description"].(string), "code_verifier") {
		t.Errorf("a wrong verifier: %d %v", status, m)
	}
}

// A confidential client gets a secret and must send it; a redirect URI in the clear to
// another host is refused at registration.
func TestAConfidentialClientProvesItself(t *testing.T) {
	h := start(t)
	c := h.register(`{"redirect_uris":["` + callback + `"]}`)
	id, secret := c["client_id"].(string), c["client_secret"].(string)
	_, loc, _ := h.authorize(loginQuery(id))
	form := url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")}, "redirect_uri": {callback}, "code_verifier": {verifier}}
	if status, m := h.token(form, id, "wrong"); status != http.StatusUnauthorized || m["error"] != "invalid_client" {
		t.Fatalf("a wrong secret: %d %v", status, m)
	}
	_, loc, _ = h.authorize(loginQuery(id))
	form.Set("code", loc.Query().Get("code"))
	if status, m := h.token(form, id, secret); status != http.StatusOK {
		t.Fatalf("the right secret: %d %v", status, m)
	}
	req, _ := http.NewRequest(http.MethodPost, h.url+"/register", strings.NewReader(`{"redirect_uris":["http://example.com/cb"]}`))
	if status, _, m := h.do(req); status != http.StatusBadRequest || m["error"] != "invalid_redirect_uri" {
		t.Fatalf("an http redirect to another host: %d %v", status, m)
	}
}

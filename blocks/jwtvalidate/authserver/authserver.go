// Package authserver is `octo auth-server`: an OAuth 2.1 authorization server for development,
// so the interactive login of an MCP client (discovery, dynamic client registration, the
// authorization code flow with PKCE, refresh) can be tried on one machine against a server
// behind jwt-validate, such as samples/mcp-oauth. It approves every login as one user, without a
// page to log in on, and signs access tokens with a local key as `octo token` does. It keeps
// everything in memory, bounded, and listens on loopback only. DEVELOPMENT ONLY: it checks
// nobody's identity.
package authserver

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/octo-run/octo/blocks/jwtvalidate"
	"github.com/octo-run/octo/runtime/printable"
)

// Options configure the server.
type Options struct {
	// Issuer is the server's URL, its metadata's issuer and its tokens' iss.
	Issuer string
	// KeyFile is the private key access tokens are signed with (a JWK, a JWKS or PEM).
	KeyFile string
	// User is the subject every login is approved as.
	User string
	// Scopes are the scopes it grants; a request for another is refused. None: any.
	Scopes []string
	// TTL is how long an access token lasts.
	TTL    time.Duration
	Logger *slog.Logger
}

// Bounds on what a client can make the server keep: it is for one developer's clients, and a
// runaway script must not fill memory.
const (
	maxClients   = 1000
	maxCodes     = 1000
	maxRefreshes = 10_000
	codeTTL      = time.Minute
	maxBody      = 64 << 10
)

// Server is the authorization server's state and handlers.
type Server struct {
	o    Options
	jwks []byte

	mu        sync.Mutex
	clients   map[string]*client
	codes     map[string]*grant
	refreshes map[string]*grant
}

type client struct {
	id, secret, name string
	redirectURIs     []string
	authMethod       string // none, client_secret_post or client_secret_basic
}

// grant is what a code or a refresh token stands for.
type grant struct {
	clientID, redirectURI, challenge string
	scope, resource                  string
	expires                          time.Time // codes only
}

// New checks o and loads its key.
func New(o Options) (*Server, error) {
	if o.User == "" {
		return nil, fmt.Errorf("--user: name the subject logins are approved as")
	}
	jwks, err := jwtvalidate.PublicKeySet(o.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("--key: %w", err)
	}
	if o.TTL <= 0 {
		o.TTL = time.Hour
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Server{o: o, jwks: jwks, clients: map[string]*client{}, codes: map[string]*grant{}, refreshes: map[string]*grant{}}, nil
}

// Handler serves the metadata (RFC 8414, and at the OpenID Connect path some clients try),
// registration (RFC 7591), authorization, token and key endpoints.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.metadata)
	mux.HandleFunc("GET /.well-known/openid-configuration", s.metadata)
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.jwks)
	})
	return mux
}

func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	md := map[string]any{
		"issuer":                                         s.o.Issuer,
		"authorization_endpoint":                         s.o.Issuer + "/authorize",
		"token_endpoint":                                 s.o.Issuer + "/token",
		"registration_endpoint":                          s.o.Issuer + "/register",
		"jwks_uri":                                       s.o.Issuer + "/jwks",
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none", "client_secret_post", "client_secret_basic"},
		"authorization_response_iss_parameter_supported": true,
	}
	if len(s.o.Scopes) > 0 {
		md["scopes_supported"] = s.o.Scopes
	}
	writeJSON(w, http.StatusOK, md)
}

// register registers a client (RFC 7591): its redirect URIs, and a secret unless it is a
// public client (token_endpoint_auth_method none).
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var m struct {
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
		Name         string   `json:"client_name"`
		GrantTypes   []string `json:"grant_types"`
		Scope        string   `json:"scope"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody)).Decode(&m); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "the body must be a JSON object of client metadata: "+err.Error())
		return
	}
	if len(m.RedirectURIs) == 0 {
		oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris: give at least one")
		return
	}
	for _, u := range m.RedirectURIs {
		if problem := redirectProblem(u); problem != "" {
			oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", problem)
			return
		}
	}
	switch m.AuthMethod {
	case "":
		m.AuthMethod = "client_secret_basic" // RFC 7591 §2's default
	case "none", "client_secret_post", "client_secret_basic":
	default:
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "token_endpoint_auth_method: one of none, client_secret_post, client_secret_basic")
		return
	}
	c := &client{id: "octo-dev-" + random(12), name: m.Name, redirectURIs: m.RedirectURIs, authMethod: m.AuthMethod}
	if c.authMethod != "none" {
		c.secret = random(24)
	}
	s.mu.Lock()
	full := len(s.clients) >= maxClients
	if !full {
		s.clients[c.id] = c
	}
	s.mu.Unlock()
	if full {
		oauthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", fmt.Sprintf("%d clients are registered, the most this development server keeps: restart it", maxClients))
		return
	}
	out := map[string]any{
		"client_id": c.id, "client_id_issued_at": time.Now().Unix(), "redirect_uris": c.redirectURIs,
		"token_endpoint_auth_method": c.authMethod, "grant_types": []string{"authorization_code", "refresh_token"},
		"response_types": []string{"code"},
	}
	if c.secret != "" {
		out["client_secret"], out["client_secret_expires_at"] = c.secret, 0
	}
	if c.name != "" {
		out["client_name"] = c.name
	}
	if m.Scope != "" {
		out["scope"] = m.Scope
	}
	s.o.Logger.Info("client registered", "client", printable.Escape(c.name), "client_id", c.id)
	writeJSON(w, http.StatusCreated, out)
}

// redirectProblem says what is wrong with a redirect URI, "" when nothing is: an absolute URI
// without a fragment (RFC 6749 §3.1.2); http only to loopback, since a code sent in the clear
// elsewhere could be read on the way.
func redirectProblem(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Scheme == "":
		return fmt.Sprintf("redirect_uris: %q is not an absolute URI", raw)
	case u.Fragment != "":
		return fmt.Sprintf("redirect_uris: %q has a fragment", raw)
	case u.Scheme == "http" && !loopback(u.Hostname()):
		return fmt.Sprintf("redirect_uris: %q is http to a host that is not this machine: use https, or http to localhost", raw)
	}
	return ""
}

func loopback(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

// authorize approves the request as the user at once, or says what is wrong with it: to the
// browser when the client or its redirect URI is unknown (a code must never go to a URI the
// client did not register), else to the redirect URI.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	c := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	switch {
	case c == nil:
		http.Error(w, "octo auth-server: unknown client_id "+printable.Escape(q.Get("client_id"))+": register it first (POST /register)", http.StatusBadRequest)
		return
	case !slices.Contains(c.redirectURIs, q.Get("redirect_uri")):
		http.Error(w, "octo auth-server: redirect_uri "+printable.Escape(q.Get("redirect_uri"))+" is not one the client registered", http.StatusBadRequest)
		return
	}
	back := func(params url.Values) {
		u, _ := url.Parse(q.Get("redirect_uri"))
		v := u.Query()
		for k, vs := range params {
			v[k] = vs
		}
		if st := q.Get("state"); st != "" {
			v.Set("state", st)
		}
		v.Set("iss", s.o.Issuer) // RFC 9207
		u.RawQuery = v.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	}
	refuse := func(code, why string) { back(url.Values{"error": {code}, "error_description": {why}}) }
	scope := q.Get("scope")
	switch {
	case q.Get("response_type") != "code":
		refuse("unsupported_response_type", "response_type must be code")
		return
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		refuse("invalid_request", "PKCE is required: code_challenge with code_challenge_method S256")
		return
	case q.Get("resource") == "":
		refuse("invalid_target", "resource is required (RFC 8707): the URL of the MCP server the token is for, which becomes its audience")
		return
	}
	if unknown := s.unknownScopes(scope); len(unknown) > 0 {
		refuse("invalid_scope", "not a scope of this server: "+strings.Join(unknown, " "))
		return
	}
	if scope == "" {
		scope = strings.Join(s.o.Scopes, " ")
	}
	code := random(24)
	s.mu.Lock()
	s.sweepCodes(time.Now())
	full := len(s.codes) >= maxCodes
	if !full {
		s.codes[code] = &grant{clientID: c.id, redirectURI: q.Get("redirect_uri"), challenge: q.Get("code_challenge"),
			scope: scope, resource: q.Get("resource"), expires: time.Now().Add(codeTTL)}
	}
	s.mu.Unlock()
	if full {
		refuse("temporarily_unavailable", "too many logins are waiting for their code to be exchanged")
		return
	}
	s.o.Logger.Info("login approved", "user", s.o.User, "client", printable.Escape(c.name), "scope", scope, "resource", printable.Escape(q.Get("resource")))
	back(url.Values{"code": {code}})
}

func (s *Server) unknownScopes(scope string) []string {
	if len(s.o.Scopes) == 0 {
		return nil
	}
	var out []string
	for _, sc := range strings.Fields(scope) {
		if !slices.Contains(s.o.Scopes, sc) {
			out = append(out, sc)
		}
	}
	return out
}

// sweepCodes drops the codes past their time; s.mu is held.
func (s *Server) sweepCodes(now time.Time) {
	for k, g := range s.codes {
		if now.After(g.expires) {
			delete(s.codes, k)
		}
	}
}

// token exchanges a code (with its PKCE verifier) or a refresh token for an access token
// for the resource the login named, and a new refresh token (rotated: each is used once).
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "the body must be a form: "+err.Error())
		return
	}
	c, ok := s.authenticate(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Basic realm="octo auth-server"`)
		oauthError(w, http.StatusUnauthorized, "invalid_client", "unknown client, or its credentials do not match how it registered")
		return
	}
	var g *grant
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		s.mu.Lock()
		g = s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code")) // a code is used once, whatever comes of it
		s.mu.Unlock()
		switch {
		case g == nil || time.Now().After(g.expires) || g.clientID != c.id:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "the code is unknown, used, expired or another client's")
			return
		case r.PostForm.Get("redirect_uri") != g.redirectURI:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri differs from the authorization request's")
			return
		case !pkceMatches(r.PostForm.Get("code_verifier"), g.challenge):
			oauthError(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge (S256)")
			return
		}
	case "refresh_token":
		s.mu.Lock()
		g = s.refreshes[r.PostForm.Get("refresh_token")]
		delete(s.refreshes, r.PostForm.Get("refresh_token"))
		s.mu.Unlock()
		if g == nil || g.clientID != c.id {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "the refresh token is unknown, used or another client's")
			return
		}
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
		return
	}
	if res := r.PostForm.Get("resource"); res != "" && res != g.resource {
		oauthError(w, http.StatusBadRequest, "invalid_target", "resource differs from the one the login was for: "+printable.Escape(g.resource))
		return
	}
	access, err := jwtvalidate.Mint(jwtvalidate.MintOptions{KeyFile: s.o.KeyFile, Issuer: s.o.Issuer, Audience: g.resource,
		Subject: s.o.User, Scope: g.scope, TTL: s.o.TTL})
	if err != nil {
		s.o.Logger.Error("signing an access token failed", "err", err)
		oauthError(w, http.StatusInternalServerError, "server_error", "signing the token failed: see the server's log")
		return
	}
	refresh := random(24)
	s.mu.Lock()
	if len(s.refreshes) >= maxRefreshes {
		clear(s.refreshes) // the oldest logins sign in again: a development server forgets
	}
	s.refreshes[refresh] = &grant{clientID: c.id, scope: g.scope, resource: g.resource}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"access_token": access, "token_type": "Bearer",
		"expires_in": int(s.o.TTL / time.Second), "refresh_token": refresh, "scope": g.scope})
}

// authenticate finds the client a token request is from, checking its secret as it
// registered to send it.
func (s *Server) authenticate(r *http.Request) (*client, bool) {
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id) // RFC 6749 §2.3.1: form-encoded before Basic
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	s.mu.Lock()
	c := s.clients[id]
	s.mu.Unlock()
	if c == nil {
		return nil, false
	}
	switch c.authMethod {
	case "none":
		return c, !basic && secret == ""
	case "client_secret_basic", "client_secret_post":
		// A client may use either way of sending its secret; what matters is the secret.
		return c, subtle.ConstantTimeCompare([]byte(secret), []byte(c.secret)) == 1
	}
	return nil, false
}

// pkceMatches checks a verifier against an S256 challenge (RFC 7636 §4.6).
func pkceMatches(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) == 1
}

func random(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}

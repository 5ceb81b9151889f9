package jwtvalidate

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const (
	testIssuer      = "https://login.example.net"
	testAudience    = "https://mcp.example.net/mcp"
	testMetadataURL = "https://mcp.example.net/.well-known/oauth-protected-resource/mcp"
	testScope       = "inventory.read"

	wantMissing      = `Bearer resource_metadata="` + testMetadataURL + `", scope="inventory.read"`
	wantInvalid      = `Bearer resource_metadata="` + testMetadataURL + `", error="invalid_token", scope="inventory.read"`
	wantInsufficient = `Bearer error="insufficient_scope", scope="inventory.read", resource_metadata="` + testMetadataURL + `"`
)

// testKey is a signing key made in the test, with its public half for the JWKS server.
type testKey struct {
	kid  string
	alg  jwa.SignatureAlgorithm
	priv any
	pub  jwk.Key
}

var (
	rsaOnce sync.Once
	rsaPriv *rsa.PrivateKey
)

// sharedRSA keeps RSA key generation (slow under -race) to one per test binary.
func sharedRSA(t testing.TB) *rsa.PrivateKey {
	rsaOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		rsaPriv = k
	})
	return rsaPriv
}

func newECKey(t testing.TB, kid string) testKey {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return makeTestKey(t, kid, jwa.ES256(), priv)
}

func newRSAKey(t testing.TB, kid string) testKey {
	t.Helper()
	return makeTestKey(t, kid, jwa.RS256(), sharedRSA(t))
}

func makeTestKey(t testing.TB, kid string, alg jwa.SignatureAlgorithm, priv any) testKey {
	t.Helper()
	pk, err := jwk.PublicKeyOf(priv)
	if err != nil {
		t.Fatal(err)
	}
	for name, value := range map[string]any{jwk.KeyIDKey: kid, jwk.AlgorithmKey: alg, jwk.KeyUsageKey: "sig"} {
		if err := pk.Set(name, value); err != nil {
			t.Fatal(err)
		}
	}
	return testKey{kid: kid, alg: alg, priv: priv, pub: pk}
}

// claims returns valid claims for the test resource, changed by edit.
func claims(edit func(map[string]any)) map[string]any {
	now := time.Now().Unix()
	c := map[string]any{
		"iss": testIssuer, "aud": testAudience, "sub": "user-1", "scope": "openid " + testScope,
		"iat": now, "exp": now + 300,
	}
	if edit != nil {
		edit(c)
	}
	return c
}

// sign makes a compact JWS; extra headers are added to alg and kid.
func sign(t testing.TB, k testKey, c any, extra map[string]any) string {
	t.Helper()
	payload, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	h := jws.NewHeaders()
	if k.kid != "" {
		_ = h.Set(jws.KeyIDKey, k.kid)
	}
	for name, value := range extra {
		if err := h.Set(name, value); err != nil {
			t.Fatal(err)
		}
	}
	tok, err := jws.Sign(payload, jws.WithKey(k.alg, k.priv, jws.WithProtectedHeaders(h)))
	if err != nil {
		t.Fatal(err)
	}
	return string(tok)
}

// unsigned builds header.payload.signature by hand, for algorithms jws.Sign refuses.
func unsigned(t testing.TB, header, payload any, signature string) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(header) + "." + enc(payload) + "." + signature
}

// jwksServer is a real JWKS endpoint on loopback whose keys a test can rotate.
type jwksServer struct {
	*httptest.Server
	body   atomic.Pointer[[]byte]
	status atomic.Int32
	hits   atomic.Int64
	stall  atomic.Pointer[chan struct{}] // when set, requests hang until it closes
	// stalled counts requests hanging on stall; abandoned those whose client gave up first.
	stalled, abandoned atomic.Int64
}

func newJWKSServer(t testing.TB, keys ...testKey) *jwksServer {
	t.Helper()
	s := &jwksServer{}
	s.status.Store(http.StatusOK)
	s.serve(t, keys...)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if stall := s.stall.Load(); stall != nil {
			s.stalled.Add(1)
			defer s.stalled.Add(-1)
			select {
			case <-*stall:
			case <-r.Context().Done():
				s.abandoned.Add(1)
			}
			return
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.WriteHeader(int(s.status.Load()))
		_, _ = w.Write(*s.body.Load())
	}))
	t.Cleanup(s.Close)
	return s
}

// serve replaces the published keys.
func (s *jwksServer) serve(t testing.TB, keys ...testKey) {
	t.Helper()
	set := jwk.NewSet()
	for _, k := range keys {
		if err := set.AddKey(k.pub); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	s.body.Store(&b)
}

// newValidator builds a Validator closed at the end of the test.
func newValidator(t testing.TB, s Settings) *Validator {
	t.Helper()
	v, err := New(s)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = v.Close() })
	return v
}

// urlSettings are valid settings against a JWKS server, requiring testScope.
func urlSettings(url string) Settings {
	return Settings{
		JWKSURL:             url,
		Issuer:              testIssuer,
		Audience:            testAudience,
		RequiredScopes:      []string{testScope},
		Leeway:              30 * time.Second,
		ResourceMetadataURL: testMetadataURL,
		RefreshInterval:     time.Hour,
		MinRefreshInterval:  time.Hour,
	}
}

// eventually polls cond until it holds or a generous deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// fakeClock is a Validator clock that moves only when a test advances it, so refresh windows
// are exact however slowly the machine runs the test.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Now()} }

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

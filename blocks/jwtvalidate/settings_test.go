package jwtvalidate

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwk"
	"gopkg.in/yaml.v3"
)

func fileSettings(edit func(*Settings)) Settings {
	s := Settings{JWKSFile: "testdata/es256-public.jwks", Audience: testAudience, ResourceMetadataURL: testMetadataURL}
	if edit != nil {
		edit(&s)
	}
	return s
}

func TestNewRefusesBadSettings(t *testing.T) {
	answering := func(status int, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	failing, notJSON, empty := answering(500, "oops"), answering(200, "<html>"), answering(200, `{"keys":[]}`)
	dir := t.TempDir()
	weak := writeWeakRSA(t, dir)
	short := filepath.Join(dir, "short.jwks")
	if err := os.WriteFile(short, []byte(`{"keys":[{"kty":"oct","k":"c2VjcmV0c2VjcmV0"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	mixed := filepath.Join(dir, "mixed.jwks")
	pub, _ := os.ReadFile("testdata/es256-public.jwks")
	mixedBody := strings.Replace(string(pub), `"keys": [`, `"keys": [{"kty":"oct","k":"c2VjcmV0c2VjcmV0"},`, 1)
	if err := os.WriteFile(mixed, []byte(mixedBody), 0o600); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name string
		edit func(*Settings)
		want []string
	}{
		{"no key source is refused", func(s *Settings) { s.JWKSFile = "" },
			[]string{"jwksUrl: set exactly one of jwksUrl or jwksFile (neither is set)"}},
		{"two key sources are refused", func(s *Settings) { s.JWKSURL = "https://login.example.net/jwks" },
			[]string{"(both are set)"}},
		{"a jwks url over plain http to a remote host is refused",
			func(s *Settings) { s.JWKSFile, s.JWKSURL = "", "http://login.example.net/jwks" },
			[]string{"jwksUrl: must be an https url (plain http only on loopback)"}},
		{"a jwks url carrying credentials is refused",
			func(s *Settings) { s.JWKSFile, s.JWKSURL = "", "https://u:p@login.example.net/jwks" },
			[]string{"jwksUrl: must not carry credentials"}},
		{"a missing audience is refused", func(s *Settings) { s.Audience = "" }, []string{"audience: required"}},
		{"a relative audience is refused", func(s *Settings) { s.Audience = "/mcp" }, []string{"audience: must be an absolute uri"}},
		{"an audience with a fragment is refused", func(s *Settings) { s.Audience = testAudience + "#x" },
			[]string{"audience: must not have a fragment"}},
		{"a missing metadata url is refused", func(s *Settings) { s.ResourceMetadataURL = "" },
			[]string{"resourceMetadataUrl: required"}},
		{"a metadata url with a quote is refused", func(s *Settings) { s.ResourceMetadataURL = `https://mcp.example.net/"x` },
			[]string{"resourceMetadataUrl: must not contain spaces, quotes"}},
		{`the "none" algorithm is refused`, func(s *Settings) { s.Algorithms = []string{"ES256", "none"} },
			[]string{`algorithms: "none" is never allowed`}},
		{"an unknown algorithm is refused", func(s *Settings) { s.Algorithms = []string{"RS999"} },
			[]string{`algorithms: unknown algorithm "RS999" (known: ES256, ES384, ES512, EdDSA, HS256`}},
		{"a repeated algorithm is refused", func(s *Settings) { s.Algorithms = []string{"ES256", "ES256"} },
			[]string{"algorithms: ES256 is listed twice"}},
		{"HS256 with a PEM public key is refused",
			func(s *Settings) { s.JWKSFile, s.Algorithms = "testdata/rsa-public.pem", []string{"RS256", "HS256"} },
			[]string{"algorithms: HS256 needs a shared secret, but testdata/rsa-public.pem holds public (RSA) keys"}},
		{"HS256 with a jwks url is refused",
			func(s *Settings) {
				s.JWKSFile, s.JWKSURL, s.Algorithms = "", "https://login.example.net/jwks", []string{"HS256"}
			},
			[]string{"algorithms: hmac algorithms need a shared secret, which a jwksUrl never publishes"}},
		{"a scope with a space is refused", func(s *Settings) { s.RequiredScopes = []string{"inventory read"} },
			[]string{`requiredScopes: "inventory read" is not a valid scope`}},
		{"a negative leeway is refused", func(s *Settings) { s.Leeway = -time.Second },
			[]string{"leeway: must be between 0s and 5m0s"}},
		{"a leeway over five minutes is refused", func(s *Settings) { s.Leeway = 10 * time.Minute },
			[]string{"leeway: must be between 0s and 5m0s"}},
		{"refresh settings with a key file are refused", func(s *Settings) { s.RefreshInterval = time.Minute },
			[]string{"refreshInterval: refreshInterval and minRefreshInterval apply only to jwksUrl"}},
		{"a min refresh interval above the refresh interval is refused", func(s *Settings) {
			s.JWKSFile, s.JWKSURL = "", "https://login.example.net/jwks"
			s.RefreshInterval, s.MinRefreshInterval = time.Minute, 2*time.Minute
		}, []string{"refreshInterval: minRefreshInterval 2m0s is longer than refreshInterval 1m0s"}},
		{"a missing key file is refused", func(s *Settings) { s.JWKSFile = "testdata/missing.jwks" },
			[]string{"jwksFile: open testdata/missing.jwks: no such file or directory"}},
		{"a key file holding a private key is refused", func(s *Settings) { s.JWKSFile = "testdata/es256-private.jwk" },
			[]string{"jwksFile: testdata/es256-private.jwk holds a private key; give the public key"}},
		{"a key file mixing secrets and public keys is refused", func(s *Settings) { s.JWKSFile = mixed },
			[]string{"mixes shared secrets with public keys"}},
		{"a key file whose keys fit no allowed algorithm is refused", func(s *Settings) { s.Algorithms = []string{"RS256"} },
			[]string{`no key fits the allowed algorithms RS256: key 0 (kid "dev-es256") fits none of the allowed algorithms`}},
		{"a shared secret under 32 bytes is refused", func(s *Settings) { s.JWKSFile, s.Algorithms = short, []string{"HS256"} },
			[]string{"shared secret has 12 bytes, fewer than 32"}},
		{"an RSA key under 2048 bits is refused", func(s *Settings) { s.JWKSFile, s.Algorithms = weak, []string{"RS256"} },
			[]string{"rsa modulus too small: got 1024 bits, need at least 2048"}},
		{"a jwks url answering 500 fails at start", func(s *Settings) { s.JWKSFile, s.JWKSURL = "", failing },
			[]string{"jwksUrl: jwks endpoint " + failing + " answered 500 Internal Server Error"}},
		{"a jwks url answering html fails at start", func(s *Settings) { s.JWKSFile, s.JWKSURL = "", notJSON },
			[]string{"jwksUrl: " + notJSON + " is not a JWKS"}},
		{"a jwks url answering no keys fails at start", func(s *Settings) { s.JWKSFile, s.JWKSURL = "", empty },
			[]string{"jwksUrl: the key set is empty"}},
		{"every problem is reported at once", func(s *Settings) { s.JWKSFile, s.Audience, s.Leeway = "", "", time.Hour },
			[]string{"neither is set", "audience: required", "leeway: must be between"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := New(fileSettings(tc.edit))
			if err == nil {
				_ = v.Close()
				t.Fatal("New accepted the settings")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q\ndoes not contain %q", err, want)
				}
			}
		})
	}
}

// writeWeakRSA writes a JWKS of a 1024-bit RSA public key, by hand: the key library will not
// make a JWK of one, and a JWKS from elsewhere may still hold it.
func writeWeakRSA(t *testing.T, dir string) string {
	priv, err := rsa.GenerateKey(rand.Reader, 1024) //nolint:gosec // deliberately weak, to be refused
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	jwks := fmt.Sprintf(`{"keys":[{"kty":"RSA","n":%q,"e":%q}]}`, b64(priv.N.Bytes()), b64(big.NewInt(int64(priv.E)).Bytes()))
	path := filepath.Join(dir, "weak.jwks")
	if err := os.WriteFile(path, []byte(jwks), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeJWKS(t *testing.T, dir, name string, keys ...jwk.Key) string {
	set := jwk.NewSet()
	for _, k := range keys {
		_ = set.AddKey(k)
	}
	b, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestNewFillsDefaults(t *testing.T) {
	srv := newJWKSServer(t, newECKey(t, "k"))
	cases := []struct {
		name                 string
		refresh, wantRefresh time.Duration
		wantMin              time.Duration
		wantAlgorithms       []string
		algorithms           []string
	}{
		{"empty intervals become 15m and 1m", 0, 15 * time.Minute, time.Minute, []string{"RS256", "ES256"}, nil},
		{"a short refresh interval caps the default minimum", 30 * time.Second, 30 * time.Second, 30 * time.Second,
			[]string{"ES256"}, []string{"ES256"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := newValidator(t, Settings{JWKSURL: srv.URL, Audience: testAudience, ResourceMetadataURL: testMetadataURL,
				RefreshInterval: tc.refresh, Algorithms: tc.algorithms})
			got := v.cfg
			if got.RefreshInterval != tc.wantRefresh || got.MinRefreshInterval != tc.wantMin ||
				!reflect.DeepEqual(got.Algorithms, tc.wantAlgorithms) {
				t.Fatalf("got refresh %s, min %s, algorithms %v", got.RefreshInterval, got.MinRefreshInterval, got.Algorithms)
			}
		})
	}
}

func TestSettingsDecodeFromYAML(t *testing.T) {
	const doc = `
jwksUrl: https://login.example.net/.well-known/jwks.json
issuer: https://login.example.net
audience: https://mcp.example.net/mcp
algorithms: [ES256, PS256]
requiredScopes: [inventory.read, inventory.write]
leeway: 30s
resourceMetadataUrl: https://mcp.example.net/.well-known/oauth-protected-resource/mcp
refreshInterval: 10m
minRefreshInterval: 30s
`
	want := Settings{
		JWKSURL: "https://login.example.net/.well-known/jwks.json", Issuer: testIssuer, Audience: testAudience,
		Algorithms: []string{"ES256", "PS256"}, RequiredScopes: []string{"inventory.read", "inventory.write"},
		Leeway: 30 * time.Second, ResourceMetadataURL: testMetadataURL,
		RefreshInterval: 10 * time.Minute, MinRefreshInterval: 30 * time.Second,
	}
	dec := yaml.NewDecoder(strings.NewReader(doc))
	dec.KnownFields(true)
	var got Settings
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded\n  %+v\nwant\n  %+v", got, want)
	}
	if _, err := got.check(); err != nil {
		t.Fatalf("the decoded settings do not check: %v", err)
	}
}

// The algorithms key's enum, which the schema and the decoder use, is the set this package verifies.
func TestTheAlgorithmsEnumIsEveryVerifiedAlgorithm(t *testing.T) {
	f, _ := reflect.TypeFor[Settings]().FieldByName("Algorithms")
	enum := strings.Split(f.Tag.Get("enum"), ",")
	slices.Sort(enum)
	if known := knownAlgorithms(); !slices.Equal(enum, known) {
		t.Errorf("enum %v, verified %v", enum, known)
	}
}

// A key set that holds one key the key library will not use (an RSA key under 2048 bits) keeps
// the others: an identity provider's JWKS with a legacy key still verifies with its good ones.
func TestAWeakKeyBesideGoodOnesLeavesTheGoodOnes(t *testing.T) {
	dir := t.TempDir()
	weak, err := os.ReadFile(writeWeakRSA(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile("testdata/es256-public.jwks")
	if err != nil {
		t.Fatal(err)
	}
	var w, g struct{ Keys []json.RawMessage }
	if json.Unmarshal(weak, &w) != nil || json.Unmarshal(good, &g) != nil {
		t.Fatal("the fixtures are not key sets")
	}
	mixed, _ := json.Marshal(map[string]any{"keys": append(w.Keys, g.Keys...)})
	path := filepath.Join(dir, "mixed.jwks")
	if err := os.WriteFile(path, mixed, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(fileSettings(func(s *Settings) { s.JWKSFile = path })); err != nil {
		t.Fatalf("the good key was not kept: %v", err)
	}
}

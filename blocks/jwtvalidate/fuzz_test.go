package jwtvalidate

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
)

// FuzzValidate feeds arbitrary Authorization header values: none may panic, and none may pass,
// because the fuzzer cannot sign with the test key.
func FuzzValidate(f *testing.F) {
	v, err := New(Settings{JWKSFile: "testdata/es256-public.jwks", Issuer: testIssuer, Audience: testAudience,
		RequiredScopes: []string{testScope}, ResourceMetadataURL: testMetadataURL})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = v.Close() })

	key := testdataKey(f)
	expired := sign(f, key, claims(func(c map[string]any) { c["exp"] = time.Now().Add(-time.Hour).Unix() }), nil)
	for _, seed := range []string{
		"", "Bearer", "Bearer ", "bearer x.y.z", "Basic dXNlcjpwYXNz", "Bearer e30.e30.e30", "Bearer a.b.c.d.e",
		"Bearer " + expired, "BEARER  " + expired, "Bearer " + tamper(f, expired),
		"Bearer " + unsigned(f, map[string]any{"alg": "none", "kid": "dev-es256"}, claims(nil), "c2ln"),
		"Bearer " + unsigned(f, map[string]any{"alg": "ES256", "kid": strings.Repeat("\xff", 200)}, claims(nil), "c2ln"),
		"Bearer " + strings.Repeat("a.", 5000),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		got, fail := v.Validate(context.Background(), header)
		if fail == nil || got != nil {
			t.Fatalf("accepted %q: %v", header, got)
		}
		if fail.Status != http.StatusUnauthorized {
			t.Fatalf("Status = %d, want 401", fail.Status)
		}
		if fail.WWWAuthenticate != wantMissing && fail.WWWAuthenticate != wantInvalid {
			t.Fatalf("WWWAuthenticate = %q", fail.WWWAuthenticate)
		}
		if fail.Reason == "" || !utf8.ValidString(fail.Kid) || len(fail.Kid) > 3*128 {
			t.Fatalf("Reason %q, Kid %q", fail.Reason, fail.Kid)
		}
		if tok := strings.TrimSpace(header); len(tok) >= 12 && strings.Contains(fail.Reason, tok) {
			t.Fatalf("Reason %q leaks the header", fail.Reason)
		}
	})
}

// testdataKey is the committed development key, for seeds signed by the trusted key.
func testdataKey(tb testing.TB) testKey {
	data, err := os.ReadFile("testdata/es256-private.jwk")
	if err != nil {
		tb.Fatal(err)
	}
	k, err := jwk.ParseKey(data)
	if err != nil {
		tb.Fatal(err)
	}
	var raw any
	if err := jwk.Export(k, &raw); err != nil {
		tb.Fatal(err)
	}
	kid, _ := k.KeyID()
	return testKey{kid: kid, alg: jwa.ES256(), priv: raw}
}

package jwtvalidate

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
)

type validateCase struct {
	name          string
	header        string
	wantStatus    int // 0: the token is accepted
	wantChallenge string
	wantReason    string // substring of Failure.Reason
}

func TestValidate(t *testing.T) {
	ec := newECKey(t, "ec-a")
	rs := newRSAKey(t, "rsa-a")
	srv := newJWKSServer(t, ec, rs)
	v := newValidator(t, urlSettings(srv.URL))

	stranger := newECKey(t, "ec-a") // same kid, different key
	unknown := newECKey(t, "ec-unknown")
	now := time.Now().Unix()
	set := func(name string, value any) func(map[string]any) {
		return func(c map[string]any) { c[name] = value }
	}
	drop := func(name string) func(map[string]any) {
		return func(c map[string]any) { delete(c, name) }
	}
	bearer := func(tok string) string { return "Bearer " + tok }
	ok := func(name, header string) validateCase { return validateCase{name: name, header: header} }
	invalid := func(name, header, reason string) validateCase {
		return validateCase{name, header, http.StatusUnauthorized, wantInvalid, reason}
	}
	forbidden := func(name, header string) validateCase {
		return validateCase{name, header, http.StatusForbidden, wantInsufficient, "lacks required scope inventory.read"}
	}
	rsaPub, err := x509.MarshalPKIXPublicKey(&sharedRSA(t).PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	rsaPubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: rsaPub})
	hmacWithPublicKey := testKey{kid: "rsa-a", alg: jwa.HS256(), priv: rsaPubPEM}
	valid := sign(t, ec, claims(nil), nil)

	cases := []validateCase{
		ok("a valid ES256 token is accepted", bearer(valid)),
		ok("a valid RS256 token is accepted", bearer(sign(t, rs, claims(nil), nil))),
		ok("the scheme is matched case-insensitively", "bEARER "+valid),
		ok("extra spaces after the scheme are tolerated", "Bearer   "+valid),
		ok("a token expired within the leeway is accepted", bearer(sign(t, ec, claims(set("exp", now-10)), nil))),
		ok("a token not yet valid within the leeway is accepted", bearer(sign(t, ec, claims(set("nbf", now+10)), nil))),
		ok("an audience array containing this resource is accepted",
			bearer(sign(t, ec, claims(set("aud", []string{"https://other.example", testAudience})), nil))),
		ok("scopes in an scp array are accepted", bearer(sign(t, ec, claims(func(c map[string]any) {
			delete(c, "scope")
			c["scp"] = []string{"profile", testScope}
		}), nil))),
		ok("scopes in an scp string are accepted", bearer(sign(t, ec, claims(func(c map[string]any) {
			delete(c, "scope")
			c["scp"] = "profile " + testScope
		}), nil))),

		{"an empty header asks for a token without an error code", "", http.StatusUnauthorized, wantMissing, "no authorization header"},
		{"a non-bearer scheme asks for a token without an error code", "Basic dXNlcjpwYXNz", http.StatusUnauthorized, wantMissing, "not bearer"},
		invalid("a bearer scheme without a token is invalid", "Bearer", "empty bearer token"),
		invalid("an expired token is refused", bearer(sign(t, ec, claims(set("exp", now-120)), nil)), "token expired"),
		invalid("a token not yet valid is refused", bearer(sign(t, ec, claims(set("nbf", now+120)), nil)), "not valid yet"),
		invalid("a token issued in the future is refused", bearer(sign(t, ec, claims(set("iat", now+120)), nil)), "issued in the future"),
		invalid("a token without exp is refused", bearer(sign(t, ec, claims(drop("exp")), nil)), "no exp claim"),
		invalid("a token whose exp is a string is refused", bearer(sign(t, ec, claims(set("exp", "tomorrow")), nil)), "exp claim is not a number"),
		invalid("a token from another issuer is refused",
			bearer(sign(t, ec, claims(set("iss", "https://evil.example.net")), nil)), "issuer mismatch"),
		invalid("a token without an issuer is refused", bearer(sign(t, ec, claims(drop("iss")), nil)), "issuer mismatch"),
		invalid("a token for another audience is refused",
			bearer(sign(t, ec, claims(set("aud", "https://other.example/mcp")), nil)), "audience mismatch"),
		invalid("an audience array without this resource is refused",
			bearer(sign(t, ec, claims(set("aud", []string{"https://other.example/mcp"})), nil)), "audience mismatch"),
		invalid("a token without an audience is refused", bearer(sign(t, ec, claims(drop("aud")), nil)), "audience mismatch"),
		forbidden("a token lacking the required scope is forbidden", bearer(sign(t, ec, claims(set("scope", "inventory.write")), nil))),
		forbidden("a scope that only starts with the required one is forbidden",
			bearer(sign(t, ec, claims(set("scope", "inventory.readonly")), nil))),
		forbidden("an scp array lacking the required scope is forbidden", bearer(sign(t, ec, claims(func(c map[string]any) {
			delete(c, "scope")
			c["scp"] = []string{"profile"}
		}), nil))),
		invalid(`an alg "none" token is refused`,
			bearer(unsigned(t, map[string]any{"alg": "none", "kid": "ec-a"}, claims(nil), "c2ln")), "algorithm not allowed"),
		invalid(`an alg "none" token without a signature is refused`,
			bearer(unsigned(t, map[string]any{"alg": "none"}, claims(nil), "")), "malformed token"),
		invalid("an HS256 token keyed with the public key bytes is refused",
			bearer(sign(t, hmacWithPublicKey, claims(nil), nil)), "algorithm not allowed"),
		invalid("a token signed by a stranger under a known kid is refused",
			bearer(sign(t, stranger, claims(nil), nil)), "signature invalid"),
		invalid("an ES256 token naming the RSA key's kid is refused",
			bearer(sign(t, testKey{kid: "rsa-a", alg: jwa.ES256(), priv: ec.priv}, claims(nil), nil)), "no known key"),
		invalid("a token with an unknown kid is refused", bearer(sign(t, unknown, claims(nil), nil)), "no known key"),
		invalid("a token with critical headers is refused",
			bearer(sign(t, ec, claims(nil), map[string]any{"crit": []string{"exp"}})), "critical header"),
		invalid("a token whose claims are not an object is refused", bearer(sign(t, ec, []string{"a"}, nil)), "not a JSON object"),
		invalid("a tampered payload is refused", bearer(tamper(t, valid)), "signature invalid"),
		invalid("a token that is not a JWS is refused", "Bearer not-a-jwt", "not a compact JWS"),
		invalid("a token with five segments (a JWE) is refused", "Bearer a.b.c.d.e", "not a compact JWS"),
		invalid("a token with garbage segments is refused", "Bearer aaaa.bbbb.cccc", "malformed token"),
		invalid("a token followed by more text is refused", bearer(valid+" extra"), "not a compact JWS"),
		invalid("an oversized header value is refused", bearer(strings.Repeat("a", 9000)), "exceeds 8 KiB"),
		invalid("an oversized signed token is refused",
			bearer(sign(t, ec, claims(set("pad", strings.Repeat("x", 9000))), nil)), "exceeds 8 KiB"),
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkValidate(t, v, tc) })
	}
	if got := srv.hits.Load(); got != 1 {
		t.Errorf("the JWKS was fetched %d times, want 1 (unknown kids inside minRefreshInterval must not refetch)", got)
	}
}

// tamper swaps the payload for one the signature does not cover.
func tamper(t testing.TB, tok string) string {
	parts := strings.Split(tok, ".")
	forged := unsigned(t, map[string]any{}, claims(func(c map[string]any) { c["sub"] = "admin" }), "")
	return parts[0] + "." + strings.Split(forged, ".")[1] + "." + parts[2]
}

func checkValidate(t *testing.T, v *Validator, tc validateCase) {
	t.Helper()
	got, f := v.Validate(context.Background(), tc.header)
	if tc.wantStatus == 0 {
		if f != nil {
			t.Fatalf("refused: %d %q", f.Status, f.Reason)
		}
		if got["sub"] != "user-1" {
			t.Fatalf("claims = %v, want sub user-1", got)
		}
		return
	}
	if f == nil {
		t.Fatalf("accepted, want %d", tc.wantStatus)
	}
	if got != nil {
		t.Errorf("claims returned with a failure: %v", got)
	}
	if f.Status != tc.wantStatus {
		t.Errorf("Status = %d, want %d", f.Status, tc.wantStatus)
	}
	if f.WWWAuthenticate != tc.wantChallenge {
		t.Errorf("WWWAuthenticate =\n  %s\nwant\n  %s", f.WWWAuthenticate, tc.wantChallenge)
	}
	if !strings.Contains(f.Reason, tc.wantReason) {
		t.Errorf("Reason = %q, want it to contain %q", f.Reason, tc.wantReason)
	}
	if token, _, _ := strings.Cut(strings.TrimPrefix(tc.header, "Bearer "), " "); len(token) > 16 && strings.Contains(f.Reason, token[:16]) {
		t.Errorf("Reason %q leaks token text", f.Reason)
	}
}

func TestValidateWithKeyFiles(t *testing.T) {
	const two = `scope="inventory.read inventory.write"`
	secret := writeSecret(t)
	cases := []struct {
		name, jwksFile, keyFile, otherKeyFile string
		algorithms                            []string
	}{
		{"a PEM public key verifies tokens from its private key", "testdata/rsa-public.pem",
			"testdata/rsa-private.pem", "testdata/es256-private.jwk", nil},
		{"a JWKS file verifies tokens from its private JWK", "testdata/es256-public.jwks",
			"testdata/es256-private.jwk", "testdata/rsa-private.pem", nil},
		{"an HMAC secret in a JWKS file verifies HS256 tokens", secret, secret,
			"testdata/es256-private.jwk", []string{"HS256"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := newValidator(t, Settings{
				JWKSFile: tc.jwksFile, Audience: testAudience, Algorithms: tc.algorithms,
				RequiredScopes:      []string{"inventory.read", "inventory.write"},
				ResourceMetadataURL: testMetadataURL,
			})
			keyFile := tc.keyFile
			good := mint(t, keyFile, "inventory.read inventory.write")
			if c, f := v.Validate(context.Background(), "Bearer "+good); f != nil || c["sub"] != "dev-user" {
				t.Fatalf("valid token refused: %+v (claims %v)", f, c)
			}
			checkValidate(t, v, validateCase{"", "Bearer " + mint(t, tc.otherKeyFile, "inventory.read"),
				http.StatusUnauthorized, `Bearer resource_metadata="` + testMetadataURL + `", error="invalid_token", ` + two, ""})
			checkValidate(t, v, validateCase{"", "Bearer " + mint(t, keyFile, "inventory.read"),
				http.StatusForbidden, `Bearer error="insufficient_scope", ` + two + `, resource_metadata="` + testMetadataURL + `"`,
				"inventory.write"})
		})
	}
}

func writeSecret(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "secret.jwks")
	body := `{"keys":[{"kty":"oct","kid":"shared","k":"` + strings.Repeat("c2VjcmV0", 6) + `"}]}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func mint(t *testing.T, keyFile, scope string) string {
	t.Helper()
	tok, err := Mint(MintOptions{KeyFile: keyFile, Audience: testAudience, Subject: "dev-user", Scope: scope, TTL: time.Minute})
	if err != nil {
		t.Fatalf("Mint(%s): %v", keyFile, err)
	}
	return tok
}

func BenchmarkValidate(b *testing.B) {
	v, err := New(Settings{JWKSFile: "testdata/es256-public.jwks", Audience: testAudience,
		RequiredScopes: []string{"inventory.read"}, ResourceMetadataURL: testMetadataURL})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	tok, err := Mint(MintOptions{KeyFile: "testdata/es256-private.jwk", Audience: testAudience, Scope: "inventory.read"})
	if err != nil {
		b.Fatal(err)
	}
	header := "Bearer " + tok
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, f := v.Validate(ctx, header); f != nil {
			b.Fatal(f.Reason)
		}
	}
}

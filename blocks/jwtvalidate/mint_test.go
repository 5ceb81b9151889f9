package jwtvalidate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jws"
)

func TestGeneratedKeysMintTokensTheValidatorAccepts(t *testing.T) {
	cases := []struct {
		name, algorithm, kid string
	}{
		{"an ES256 pair with a chosen kid", "ES256", "sample-1"},
		{"an RS256 pair named by its thumbprint", "RS256", ""},
		{"an EdDSA pair", "EdDSA", "ed"},
		{"the default algorithm is ES256", "", "default"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			priv, pub := filepath.Join(dir, "private.jwk"), filepath.Join(dir, "public.jwks")
			kid, err := GenerateKeyFiles(KeyFileOptions{Algorithm: tc.algorithm, Kid: tc.kid, PrivateFile: priv, PublicFile: pub})
			if err != nil {
				t.Fatal(err)
			}
			if tc.kid != "" && kid != tc.kid || tc.kid == "" && len(kid) != 43 {
				t.Fatalf("kid = %q, want %q or a SHA-256 thumbprint", kid, tc.kid)
			}
			checkKeyFiles(t, priv, pub)
			alg := tc.algorithm
			if alg == "" {
				alg = "ES256"
			}
			v := newValidator(t, Settings{JWKSFile: pub, Issuer: testIssuer, Audience: testAudience, Algorithms: []string{alg},
				RequiredScopes: []string{testScope}, ResourceMetadataURL: testMetadataURL})
			tok, err := Mint(MintOptions{KeyFile: priv, Issuer: testIssuer, Audience: testAudience, Subject: "dev",
				Scope: "openid " + testScope, TTL: 2 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			c, f := v.Validate(context.Background(), "Bearer "+tok)
			if f != nil {
				t.Fatalf("minted token refused: %s", f.Reason)
			}
			if c["sub"] != "dev" || c["iss"] != testIssuer || c["scope"] != "openid "+testScope || c["exp"].(float64)-c["iat"].(float64) != 120 {
				t.Fatalf("claims = %v", c)
			}
			h := headerOf(t, tok)
			gotKid, _ := h.KeyID()
			typ, _ := h.Type()
			gotAlg, _ := h.Algorithm()
			if gotKid != kid || typ != "at+jwt" || gotAlg.String() != alg {
				t.Fatalf("header kid %q typ %q alg %q", gotKid, typ, gotAlg)
			}
		})
	}
}

func checkKeyFiles(t *testing.T, priv, pub string) {
	t.Helper()
	info, err := os.Stat(priv)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("private key mode = %v, want 0600", info.Mode().Perm())
	}
	public, err := os.ReadFile(pub)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(public), `"d"`) || !strings.Contains(string(public), `"keys"`) {
		t.Errorf("public file is not a public JWKS:\n%s", public)
	}
}

func headerOf(t *testing.T, tok string) jws.Headers {
	t.Helper()
	msg, err := jws.ParseString(tok)
	if err != nil {
		t.Fatal(err)
	}
	return msg.Signatures()[0].ProtectedHeaders()
}

func TestGenerateKeyFilesRefuses(t *testing.T) {
	dir := t.TempDir()
	priv, pub := filepath.Join(dir, "private.jwk"), filepath.Join(dir, "public.jwks")
	if _, err := GenerateKeyFiles(KeyFileOptions{PrivateFile: priv, PublicFile: pub}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(priv)
	cases := []struct {
		name string
		o    KeyFileOptions
		want string
	}{
		{"existing files are not overwritten", KeyFileOptions{PrivateFile: priv, PublicFile: filepath.Join(dir, "other.jwks")}, "file exists"},
		{"an unknown algorithm is refused", KeyFileOptions{Algorithm: "HS256", PrivateFile: filepath.Join(dir, "a"), PublicFile: filepath.Join(dir, "b")},
			`algorithm: "HS256" is not one of`},
		{"both paths are required", KeyFileOptions{PrivateFile: filepath.Join(dir, "c")}, "privateFile and publicFile are both required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := GenerateKeyFiles(tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
		})
	}
	if after, _ := os.ReadFile(priv); string(after) != string(before) {
		t.Fatal("the existing private key changed")
	}
	if _, err := GenerateKeyFiles(KeyFileOptions{PrivateFile: filepath.Join(dir, "new.jwk"), PublicFile: pub}); !errors.Is(err, os.ErrExist) {
		t.Fatalf("error = %v, want os.ErrExist", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.jwk")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a private key was left behind without its public half")
	}
}

func TestMintRefuses(t *testing.T) {
	dir := t.TempDir()
	two := filepath.Join(dir, "two.jwks")
	a, _ := os.ReadFile("testdata/es256-private.jwk")
	if err := os.WriteFile(two, []byte(`{"keys":[`+string(a)+`,`+string(a)+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ok := MintOptions{KeyFile: "testdata/es256-private.jwk", Audience: testAudience}
	cases := []struct {
		name string
		edit func(*MintOptions)
		want string
	}{
		{"a missing key file is refused", func(o *MintOptions) { o.KeyFile = "" }, "keyFile: required"},
		{"a public JWKS is refused", func(o *MintOptions) { o.KeyFile = "testdata/es256-public.jwks" }, "holds a public key"},
		{"a PEM public key is refused", func(o *MintOptions) { o.KeyFile = "testdata/rsa-public.pem" }, "holds a public key"},
		{"a file with two keys is refused", func(o *MintOptions) { o.KeyFile = two }, "holds 2 keys, want exactly one"},
		{"a missing audience is refused", func(o *MintOptions) { o.Audience = "" }, "audience: required"},
		{"a negative ttl is refused", func(o *MintOptions) { o.TTL = -time.Second }, "ttl: must not be negative"},
		{"an invalid scope is refused", func(o *MintOptions) { o.Scope = `read "write"` }, "scope:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.edit(&o)
			tok, err := Mint(o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Mint = %q, %v; want error %q", tok, err, tc.want)
			}
		})
	}
}

func TestMintKidOverride(t *testing.T) {
	v := newValidator(t, Settings{JWKSFile: "testdata/es256-public.jwks", Audience: testAudience, ResourceMetadataURL: testMetadataURL})
	cases := []struct {
		name, kid, wantKid string
		accepted           bool
	}{
		{"the key's own kid is used by default", "", "dev-es256", true},
		{"a chosen kid replaces it, and the validator finds no such key", "other", "other", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := Mint(MintOptions{KeyFile: "testdata/es256-private.jwk", Kid: tc.kid, Audience: testAudience})
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := headerOf(t, tok).KeyID(); got != tc.wantKid {
				t.Fatalf("kid = %q, want %q", got, tc.wantKid)
			}
			_, f := v.Validate(context.Background(), "Bearer "+tok)
			if (f == nil) != tc.accepted {
				t.Fatalf("accepted = %v, want %v (%+v)", f == nil, tc.accepted, f)
			}
			if f != nil && f.Kid != tc.wantKid {
				t.Fatalf("Failure.Kid = %q, want %q", f.Kid, tc.wantKid)
			}
		})
	}
}

package jwtvalidate

// Development only. Real access tokens come from an authorization server; these helpers exist
// so offline samples and tests can run a protected server without one.

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
)

const defaultMintTTL = time.Hour

// MintOptions describe a development access token; see Mint.
type MintOptions struct {
	// KeyFile is a private JWK (or a JWKS holding one), or a PEM private key.
	KeyFile string
	// Kid overrides the key's own kid; empty keeps it (PEM keys have none).
	Kid string
	// Issuer becomes iss when set.
	Issuer string
	// Audience becomes aud; required, and must be the resource identifier the server checks.
	Audience string
	// Subject becomes sub when set.
	Subject string
	// Scope is a space-delimited scope list.
	Scope string
	// TTL is the token's lifetime; zero means one hour.
	TTL time.Duration
}

type mintClaims struct {
	Issuer   string `json:"iss,omitempty"`
	Subject  string `json:"sub,omitempty"`
	Audience string `json:"aud"`
	Scope    string `json:"scope,omitempty"`
	IssuedAt int64  `json:"iat"`
	Expiry   int64  `json:"exp"`
	ID       string `json:"jti"`
}

// Mint signs an access token with a local private key. DEVELOPMENT ONLY: it lets a sample or
// test stand in for an authorization server; never ship the private key file.
func Mint(o MintOptions) (string, error) {
	if err := o.check(); err != nil {
		return "", err
	}
	key, err := loadSigningKey(o.KeyFile)
	if err != nil {
		return "", err
	}
	alg, err := signingAlgorithm(key)
	if err != nil {
		return "", fmt.Errorf("keyFile: %w", err)
	}
	now := time.Now()
	ttl := o.TTL
	if ttl == 0 {
		ttl = defaultMintTTL
	}
	payload, err := json.Marshal(mintClaims{
		Issuer: o.Issuer, Subject: o.Subject, Audience: o.Audience, Scope: o.Scope,
		IssuedAt: now.Unix(), Expiry: now.Add(ttl).Unix(), ID: randomID(),
	})
	if err != nil {
		return "", err
	}
	kid := o.Kid
	if kid == "" {
		kid, _ = key.KeyID()
	}
	return signCompact(payload, alg, key, kid)
}

func (o MintOptions) check() error {
	var errs []error
	if o.KeyFile == "" {
		errs = append(errs, errors.New("keyFile: required"))
	}
	if err := checkAudience(o.Audience); err != nil {
		errs = append(errs, fmt.Errorf("audience: %w", err))
	}
	if err := checkScopes(strings.Fields(o.Scope)); err != nil {
		errs = append(errs, fmt.Errorf("scope: %w", err))
	}
	if o.TTL < 0 {
		errs = append(errs, errors.New("ttl: must not be negative"))
	}
	return errors.Join(errs...)
}

func signCompact(payload []byte, alg jwa.SignatureAlgorithm, key jwk.Key, kid string) (string, error) {
	h := jws.NewHeaders()
	if err := h.Set(jws.TypeKey, "at+jwt"); err != nil {
		return "", err
	}
	if kid != "" {
		if err := h.Set(jws.KeyIDKey, kid); err != nil {
			return "", err
		}
	}
	var raw any
	if err := jwk.Export(key, &raw); err != nil {
		return "", fmt.Errorf("keyFile: %w", err)
	}
	token, err := jws.Sign(payload, jws.WithKey(alg, raw, jws.WithProtectedHeaders(h)))
	if err != nil {
		return "", fmt.Errorf("signing: %w", err)
	}
	return string(token), nil
}

func randomID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}

// loadSigningKey reads exactly one private key (or HMAC secret) from a JWK, JWKS or PEM file.
func loadSigningKey(path string) (jwk.Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("keyFile: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyBytes))
	if err != nil {
		return nil, fmt.Errorf("keyFile: %w", err)
	}
	set, err := parseKeys(data)
	if err != nil {
		return nil, fmt.Errorf("keyFile: %s: %w", path, err)
	}
	if set.Len() != 1 {
		return nil, fmt.Errorf("keyFile: %s holds %d keys, want exactly one", path, set.Len())
	}
	key, _ := set.Key(0)
	if key.KeyType() != jwa.OctetSeq() {
		if private, err := jwk.IsPrivateKey(key); err != nil || !private {
			return nil, fmt.Errorf("keyFile: %s holds a public key; signing needs the private key", path)
		}
	}
	return key, nil
}

// signingAlgorithm honours the key's own alg, else picks the usual one for its type.
func signingAlgorithm(key jwk.Key) (jwa.SignatureAlgorithm, error) {
	var none jwa.SignatureAlgorithm
	kind, err := kindOf(key)
	if err != nil {
		return none, err
	}
	if a, ok := key.Algorithm(); ok && a.String() != "" {
		pinned := a.String()
		sa, known := jwa.LookupSignatureAlgorithm(pinned)
		if !known || signatureAlgorithms[pinned] != kind {
			return none, fmt.Errorf("key alg %q does not fit a %s key", pinned, kind.kty)
		}
		return sa, nil
	}
	for _, alg := range []string{"RS256", "ES256", "ES384", "ES512", "EdDSA", "HS256"} {
		if signatureAlgorithms[alg] == kind {
			sa, _ := jwa.LookupSignatureAlgorithm(alg)
			return sa, nil
		}
	}
	return none, fmt.Errorf("no signature algorithm for a %s %s key", kind.crv, kind.kty)
}

// KeyFileOptions describe a development key pair; see GenerateKeyFiles.
type KeyFileOptions struct {
	// Algorithm is ES256 (default), ES384, ES512, RS256 or EdDSA.
	Algorithm string
	// Kid names the key; empty means its RFC 7638 thumbprint.
	Kid string
	// PrivateFile receives the private JWK (mode 0600) for Mint.
	PrivateFile string
	// PublicFile receives the public JWKS for a Validator's jwksFile or a JWKS endpoint.
	PublicFile string
}

// GenerateKeyFiles creates a key pair and writes a private JWK and a public JWKS, refusing to
// overwrite either file. DEVELOPMENT ONLY, like Mint. It returns the key's kid.
func GenerateKeyFiles(o KeyFileOptions) (string, error) {
	if o.PrivateFile == "" || o.PublicFile == "" {
		return "", errors.New("privateFile and publicFile are both required")
	}
	alg := o.Algorithm
	if alg == "" {
		alg = "ES256"
	}
	raw, err := generateKey(alg)
	if err != nil {
		return "", err
	}
	priv, err := jwk.Import(raw)
	if err != nil {
		return "", err
	}
	for name, value := range map[string]any{jwk.AlgorithmKey: alg, jwk.KeyUsageKey: "sig"} {
		if err := priv.Set(name, value); err != nil {
			return "", err
		}
	}
	if o.Kid != "" {
		if err := priv.Set(jwk.KeyIDKey, o.Kid); err != nil {
			return "", err
		}
	}
	if err := jwk.AssignKeyID(priv); err != nil {
		return "", err
	}
	pub, err := priv.PublicKey()
	if err != nil {
		return "", err
	}
	set := jwk.NewSet()
	if err := set.AddKey(pub); err != nil {
		return "", err
	}
	if err := writeNewJSON(o.PrivateFile, priv, 0o600); err != nil {
		return "", err
	}
	if err := writeNewJSON(o.PublicFile, set, 0o644); err != nil {
		_ = os.Remove(o.PrivateFile)
		return "", err
	}
	kid, _ := priv.KeyID()
	return kid, nil
}

func generateKey(alg string) (any, error) {
	switch alg {
	case "ES256":
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "ES384":
		return ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case "ES512":
		return ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	case "RS256":
		return rsa.GenerateKey(rand.Reader, 2048)
	case "EdDSA":
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		return priv, err
	}
	return nil, fmt.Errorf("algorithm: %q is not one of ES256, ES384, ES512, RS256, EdDSA", alg)
}

func writeNewJSON(path string, v any, mode os.FileMode) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err // names the path; os.ErrExist when the file is already there
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// PublicKeySet is the JWKS of the private key in keyFile: what a server that signs with it
// publishes for validators (octo auth-server's jwks_uri). DEVELOPMENT ONLY, like Mint.
func PublicKeySet(keyFile string) ([]byte, error) {
	key, err := loadSigningKey(keyFile)
	if err != nil {
		return nil, err
	}
	pub, err := key.PublicKey()
	if err != nil {
		return nil, err
	}
	set := jwk.NewSet()
	if err := set.AddKey(pub); err != nil {
		return nil, err
	}
	return json.Marshal(set)
}

package jwtvalidate

import (
	"bytes"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
)

const (
	maxKeyBytes    = 1 << 20 // a JWKS or key file; real ones are a few KiB
	minRSABits     = 2048
	minSecretBytes = 32
	pemBeginToken  = "-----BEGIN"
)

// verifyKey is one usable verification key, decoded once so Validate never parses key material.
type verifyKey struct {
	kid  string
	alg  string // the key's own "alg"; empty when the key does not pin one
	kind keyKind
	raw  any // *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey or []byte
}

func (k *verifyKey) fits(alg string, kind keyKind) bool {
	return k.kind == kind && (k.alg == "" || k.alg == alg)
}

// keyIndex is an immutable snapshot of the key set; a refresh swaps in a new one.
type keyIndex struct {
	byKid map[string][]verifyKey // "" holds keys without a kid
	all   []verifyKey
}

// offer sends the candidate keys for a token to the verifier and says how many it sent.
// A token with a kid is tried against that kid and against keys that carry no kid (a PEM file);
// a token without a kid is tried against every key that fits its algorithm.
func (ix *keyIndex) offer(sink jws.KeySink, kid, alg string, kind keyKind) int {
	n := 0
	send := func(list []verifyKey) {
		for i := range list {
			if list[i].fits(alg, kind) {
				if sa, ok := jwa.LookupSignatureAlgorithm(alg); ok {
					sink.Key(sa, list[i].raw)
				}
				n++
			}
		}
	}
	if kid == "" {
		send(ix.all)
		return n
	}
	send(ix.byKid[kid])
	send(ix.byKid[""])
	return n
}

// indexKeys keeps the keys of set that can verify one of the allowed algorithms. Secrets (oct
// keys) are kept only when an HMAC algorithm is allowed, which check permits for files only.
func indexKeys(set jwk.Set, algs map[string]keyKind) (*keyIndex, error) {
	ix := &keyIndex{byKid: make(map[string][]verifyKey)}
	var skipped []string
	for i := range set.Len() {
		key, _ := set.Key(i)
		vk, err := usableKey(key, algs)
		if err != nil {
			kid, _ := key.KeyID()
			skipped = append(skipped, fmt.Sprintf("key %d (kid %q) %v", i, kid, err))
			continue
		}
		ix.byKid[vk.kid] = append(ix.byKid[vk.kid], vk)
		ix.all = append(ix.all, vk)
	}
	if len(ix.all) == 0 {
		if len(skipped) == 0 {
			return nil, errors.New("the key set is empty")
		}
		return nil, fmt.Errorf("no key fits the allowed algorithms %s: %s",
			strings.Join(slices.Sorted(maps.Keys(algs)), ", "), strings.Join(skipped, "; "))
	}
	return ix, nil
}

func usableKey(key jwk.Key, algs map[string]keyKind) (verifyKey, error) {
	vk := verifyKey{}
	vk.kid, _ = key.KeyID()
	if alg, ok := key.Algorithm(); ok {
		vk.alg = alg.String()
	}
	if use, _ := key.KeyUsage(); use != "" && use != jwk.ForSignature.String() {
		return vk, fmt.Errorf("use is %q, not sig", use)
	}
	if ops, _ := key.KeyOps(); len(ops) > 0 && !slices.Contains(ops, jwk.KeyOpVerify) {
		return vk, errors.New("key_ops does not include verify")
	}
	kind, err := kindOf(key)
	if err != nil {
		return vk, err
	}
	vk.kind = kind
	if !fitsAny(vk, algs) {
		return vk, errors.New("fits none of the allowed algorithms")
	}
	pub, err := key.PublicKey() // a no-op copy for public keys and secrets
	if err != nil {
		return vk, fmt.Errorf("no public key: %w", err)
	}
	if err := jwk.Export(pub, &vk.raw); err != nil {
		return vk, fmt.Errorf("unusable key material: %w", err)
	}
	switch raw := vk.raw.(type) {
	case *rsa.PublicKey:
		if raw.N.BitLen() < minRSABits {
			return vk, fmt.Errorf("rsa key has %d bits, fewer than %d", raw.N.BitLen(), minRSABits)
		}
	case []byte:
		// RFC 7518 §3.2: an HMAC key at least as long as the hash; guessable secrets are forgeable.
		if len(raw) < minSecretBytes {
			return vk, fmt.Errorf("shared secret has %d bytes, fewer than %d", len(raw), minSecretBytes)
		}
	}
	return vk, nil
}

func fitsAny(vk verifyKey, algs map[string]keyKind) bool {
	for alg, kind := range algs {
		if vk.fits(alg, kind) {
			return true
		}
	}
	return false
}

func kindOf(key jwk.Key) (keyKind, error) {
	kty := key.KeyType()
	switch kty {
	case jwa.RSA(), jwa.OctetSeq():
		return keyKind{kty: kty}, nil
	case jwa.EC(), jwa.OKP():
		c, ok := key.(interface {
			Crv() (jwa.EllipticCurveAlgorithm, bool)
		})
		if !ok {
			return keyKind{}, fmt.Errorf("%s key without a curve", kty)
		}
		crv, ok := c.Crv()
		if !ok {
			return keyKind{}, fmt.Errorf("%s key without a curve", kty)
		}
		return keyKind{kty: kty, crv: crv}, nil
	}
	return keyKind{}, fmt.Errorf("unsupported key type %q", kty)
}

// loadKeyFile reads a JWKS, a single JWK or PEM public keys (or certificates). Asymmetric private
// keys are refused: the resource server only verifies, and a private key has no business on it.
func loadKeyFile(path string, c config) (*keyIndex, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxKeyBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxKeyBytes)
	}
	set, err := parseKeys(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := refuseSecretsBeside(set, path); err != nil {
		return nil, err
	}
	if err := checkHMACFit(set, c); err != nil {
		return nil, err
	}
	ix, err := indexKeys(set, c.algs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ix, nil
}

func parseKeys(data []byte) (jwk.Set, error) {
	data = bytes.TrimSpace(data)
	if bytes.HasPrefix(data, []byte(pemBeginToken)) {
		return parseSet(data, jwk.WithPEM(true))
	}
	return parseSet(data)
}

// parseSet parses a key set. The key library refuses a whole set for one key it will not use
// (an RSA key under 2048 bits): a set that holds others too keeps those, as an identity
// provider's JWKS with one legacy key must still verify; a set of such keys alone is refused
// with the library's reason.
func parseSet(data []byte, opts ...jwk.ParseOption) (jwk.Set, error) {
	set, err := jwk.Parse(data, opts...)
	if err == nil {
		return set, nil
	}
	if rest, lenient := jwk.Parse(data, append(opts, jwk.WithIgnoreParseError(true))...); lenient == nil && rest.Len() > 0 {
		return rest, nil
	}
	return nil, err
}

// refuseSecretsBeside rejects private asymmetric keys, and files mixing shared secrets with
// public keys: an HMAC secret next to public keys is the classic alg-confusion setup.
func refuseSecretsBeside(set jwk.Set, path string) error {
	var secret, public bool
	for i := range set.Len() {
		key, _ := set.Key(i)
		if key.KeyType() == jwa.OctetSeq() {
			secret = true
			continue
		}
		public = true
		if private, err := jwk.IsPrivateKey(key); err == nil && private {
			return fmt.Errorf("%s holds a private key; give the public key (JWKS or PEM) instead", path)
		}
	}
	if secret && public {
		return fmt.Errorf("%s mixes shared secrets with public keys", path)
	}
	return nil
}

// checkHMACFit refuses HMAC algorithms unless the keys are shared secrets: verifying HS256 with
// bytes an attacker can read (a public key) would let anyone mint tokens.
func checkHMACFit(set jwk.Set, c config) error {
	if !c.hmac {
		return nil
	}
	hmac := ""
	for _, alg := range c.Algorithms {
		if c.algs[alg].kty == jwa.OctetSeq() {
			hmac = alg
			break
		}
	}
	for i := range set.Len() {
		if key, _ := set.Key(i); key.KeyType() != jwa.OctetSeq() {
			return fmt.Errorf("algorithms: %s needs a shared secret, but %s holds public (%s) keys", hmac, c.JWKSFile, key.KeyType())
		}
	}
	return nil
}

package jwtvalidate

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
)

// Settings configure a Validator; the yaml keys are the ones a jwt-validate block accepts.
type Settings struct {
	// JWKSURL is where the authorization server publishes its signing keys (https, or http on loopback).
	JWKSURL string `yaml:"jwksUrl" doc:"Where the authorization server publishes its signing keys (a JWKS): https, or http on loopback. Set this or jwksFile." example:"https://login.example.net/.well-known/jwks.json"`
	// JWKSFile is a local JWKS JSON, single JWK or PEM public key file, used instead of JWKSURL.
	JWKSFile string `yaml:"jwksFile" doc:"A local JWKS JSON, single JWK or PEM public key file, instead of jwksUrl; a relative path is relative to the config file."`
	// Issuer, when set, must equal the token's iss claim exactly.
	Issuer string `yaml:"issuer" doc:"When set, the token's iss claim must equal it exactly."`
	// Audience is this server's resource identifier (RFC 8707); the token's aud must contain it.
	Audience string `yaml:"audience" doc:"This server's resource identifier (RFC 8707), usually its MCP URL; the token's aud must contain it." example:"https://mcp.example.net/mcp"`
	// Algorithms is the JWS allow-list; empty means RS256 and ES256.
	Algorithms []string `yaml:"algorithms" enum:"RS256,RS384,RS512,PS256,PS384,PS512,ES256,ES384,ES512,EdDSA,HS256,HS384,HS512" doc:"The JWS algorithms accepted (RS256, PS256, ES256, EdDSA, HS256, ...); empty means RS256 and ES256. none is never accepted."`
	// RequiredScopes must all be granted by the token's scope or scp claim.
	RequiredScopes []string `yaml:"requiredScopes" doc:"Scopes the token's scope or scp claim must all grant; a valid token without them is refused with 403."`
	// Leeway is the clock skew tolerated on exp, nbf and iat (at most 5m).
	Leeway time.Duration `yaml:"leeway" doc:"The clock skew tolerated on exp, nbf and iat; at most 5m."`
	// ResourceMetadataURL is the RFC 9728 metadata URL named in every challenge.
	ResourceMetadataURL string `yaml:"resourceMetadataUrl" doc:"The protected resource metadata URL (RFC 9728) named in every WWW-Authenticate challenge; default: derived from audience (its well-known path)."`
	// RefreshInterval is how often keys from JWKSURL are fetched again (default 15m).
	RefreshInterval time.Duration `yaml:"refreshInterval" doc:"How often the keys at jwksUrl are fetched again; default 15m. A token whose key id is unknown triggers a fetch sooner."`
	// MinRefreshInterval is the least time between two fetches, whatever triggers them (default 1m).
	MinRefreshInterval time.Duration `yaml:"minRefreshInterval" doc:"The least time between two fetches of jwksUrl, whatever triggers them; default 1m (or refreshInterval when shorter)."`

	// HTTPClient fetches JWKSURL; nil means a private client with a 10s timeout.
	HTTPClient *http.Client `yaml:"-"`
	// Logger receives background refresh failures; nil discards them.
	Logger *slog.Logger `yaml:"-"`

	// now is the clock for token times and refresh windows; nil means time.Now. Tests set it,
	// so whether a refresh is due never depends on how fast the machine runs them.
	now func() time.Time
}

const (
	defaultRefreshInterval    = 15 * time.Minute
	defaultMinRefreshInterval = time.Minute
	maxLeeway                 = 5 * time.Minute
)

// SettingError is one problem with one setting; check and Metadata.Validate join them.
type SettingError struct {
	// Key is the yaml key of the setting.
	Key string
	// Err says what is wrong with it.
	Err error
}

func (e *SettingError) Error() string { return e.Key + ": " + e.Err.Error() }

func (e *SettingError) Unwrap() error { return e.Err }

// defaultAlgorithms cover what common authorization servers sign access tokens with.
var defaultAlgorithms = []string{"RS256", "ES256"}

// keyKind is the key an algorithm needs: a key type plus, for EC and OKP, a curve.
type keyKind struct {
	kty jwa.KeyType
	crv jwa.EllipticCurveAlgorithm
}

// signatureAlgorithms is every JWS algorithm this package verifies; "none" is absent on purpose.
var signatureAlgorithms = map[string]keyKind{
	"RS256": {kty: jwa.RSA()}, "RS384": {kty: jwa.RSA()}, "RS512": {kty: jwa.RSA()},
	"PS256": {kty: jwa.RSA()}, "PS384": {kty: jwa.RSA()}, "PS512": {kty: jwa.RSA()},
	"ES256": {kty: jwa.EC(), crv: jwa.P256()},
	"ES384": {kty: jwa.EC(), crv: jwa.P384()},
	"ES512": {kty: jwa.EC(), crv: jwa.P521()},
	"EdDSA": {kty: jwa.OKP(), crv: jwa.Ed25519()},
	"HS256": {kty: jwa.OctetSeq()}, "HS384": {kty: jwa.OctetSeq()}, "HS512": {kty: jwa.OctetSeq()},
}

// config is Settings after checking: defaults filled in and the allow-list indexed.
type config struct {
	Settings
	algs map[string]keyKind
	hmac bool // some allowed algorithm needs a shared secret
}

// check validates every setting and reports all problems at once, each prefixed by its yaml key.
func (s Settings) check() (config, error) {
	c := config{Settings: s}
	if c.now == nil {
		c.now = time.Now
	}
	var errs []error
	add := func(key string, err error) {
		if err != nil {
			errs = append(errs, &SettingError{Key: key, Err: err})
		}
	}
	add("jwksUrl", c.checkSource())
	if s.Issuer != strings.TrimSpace(s.Issuer) {
		add("issuer", errors.New("must not start or end with spaces"))
	}
	add("audience", checkAudience(s.Audience))
	add("resourceMetadataUrl", checkEndpoint(s.ResourceMetadataURL))
	add("algorithms", c.checkAlgorithms())
	add("requiredScopes", checkScopes(s.RequiredScopes))
	if s.Leeway < 0 || s.Leeway > maxLeeway {
		add("leeway", fmt.Errorf("must be between 0s and %s", maxLeeway))
	}
	add("refreshInterval", c.checkRefresh())
	return c, errors.Join(errs...)
}

func (c *config) checkSource() error {
	switch {
	case c.JWKSURL == "" && c.JWKSFile == "":
		return errors.New("set exactly one of jwksUrl or jwksFile (neither is set)")
	case c.JWKSURL != "" && c.JWKSFile != "":
		return errors.New("set exactly one of jwksUrl or jwksFile (both are set)")
	case c.JWKSURL != "":
		return checkEndpoint(c.JWKSURL)
	}
	return nil
}

func (c *config) checkAlgorithms() error {
	names := c.Algorithms
	if len(names) == 0 {
		names = defaultAlgorithms
	}
	c.Algorithms = slices.Clone(names)
	c.algs = make(map[string]keyKind, len(names))
	for _, name := range names {
		kind, ok := signatureAlgorithms[name]
		switch {
		case strings.EqualFold(name, "none"):
			return errors.New(`"none" is never allowed: tokens must be signed`)
		case !ok:
			return fmt.Errorf("unknown algorithm %q (known: %s)", name, strings.Join(knownAlgorithms(), ", "))
		case c.algs[name] != (keyKind{}):
			return fmt.Errorf("%s is listed twice", name)
		}
		c.algs[name] = kind
		c.hmac = c.hmac || kind.kty == jwa.OctetSeq()
	}
	if c.hmac && c.JWKSURL != "" {
		return errors.New("hmac algorithms need a shared secret, which a jwksUrl never publishes")
	}
	return nil
}

func (c *config) checkRefresh() error {
	if c.JWKSURL == "" {
		if c.RefreshInterval != 0 || c.MinRefreshInterval != 0 {
			return errors.New("refreshInterval and minRefreshInterval apply only to jwksUrl")
		}
		return nil
	}
	if c.RefreshInterval < 0 || c.MinRefreshInterval < 0 {
		return errors.New("refreshInterval and minRefreshInterval must be positive")
	}
	if c.RefreshInterval == 0 {
		c.RefreshInterval = defaultRefreshInterval
	}
	if c.MinRefreshInterval == 0 {
		c.MinRefreshInterval = min(defaultMinRefreshInterval, c.RefreshInterval)
	}
	if c.MinRefreshInterval > c.RefreshInterval {
		return fmt.Errorf("minRefreshInterval %s is longer than refreshInterval %s", c.MinRefreshInterval, c.RefreshInterval)
	}
	return nil
}

func knownAlgorithms() []string {
	names := make([]string, 0, len(signatureAlgorithms))
	for name := range signatureAlgorithms {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// checkAudience accepts an absolute URI without fragment, as RFC 8707 requires of a resource indicator.
func checkAudience(aud string) error {
	if aud == "" {
		return errors.New("required: this server's resource identifier, e.g. https://mcp.example.net/mcp")
	}
	u, err := url.Parse(aud)
	if err != nil || u.Scheme == "" {
		return errors.New("must be an absolute uri, e.g. https://mcp.example.net/mcp")
	}
	if u.Fragment != "" || strings.Contains(aud, "#") {
		return errors.New("must not have a fragment")
	}
	return nil
}

// checkEndpoint accepts an absolute http(s) URL, https unless the host is loopback, because plain
// http anywhere else lets a network attacker swap keys or metadata. Quotes and backslashes are
// refused so the URL can sit inside a WWW-Authenticate quoted-string as is.
func checkEndpoint(raw string) error {
	if raw == "" {
		return errors.New("required")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("not a valid url")
	}
	switch {
	case u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())):
		return errors.New("must be an https url (plain http only on loopback)")
	case u.Host == "":
		return errors.New("must name a host")
	case u.User != nil:
		return errors.New("must not carry credentials")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return errors.New("must not have a fragment")
	case strings.ContainsFunc(raw, unsafeInQuotes):
		return errors.New("must not contain spaces, quotes, backslashes or control characters")
	}
	return nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func unsafeInQuotes(r rune) bool {
	return r <= ' ' || r == '"' || r == '\\' || r == 0x7f
}

// checkScopes enforces RFC 6749 scope-token syntax, so scopes can be listed inside a challenge.
func checkScopes(scopes []string) error {
	for i, s := range scopes {
		if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r < 0x21 || r == '"' || r == '\\' || r > 0x7e }) {
			return fmt.Errorf("%q is not a valid scope (printable ascii without spaces, quotes or backslashes)", s)
		}
		if slices.Contains(scopes[:i], s) {
			return fmt.Errorf("%s is listed twice", s)
		}
	}
	return nil
}

// Package jwtvalidate owns bearer-token checking for an OAuth-protected MCP server acting as a
// resource server: signing keys (a JWKS URL kept fresh, or a local file), JWT verification
// against an algorithm allow-list, time, issuer, audience (RFC 8707) and scope checks, the
// WWW-Authenticate challenges of RFC 6750 / MCP, and RFC 9728 Protected Resource Metadata.
// It also carries a development-only token minter.
//
// Apart from block.go it must not know about the octo runtime, messages, flows or HTTP routing:
// block.go is the thin jwt-validate block adapter that maps a Failure onto a response and the
// claims onto message variables.
package jwtvalidate

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/lestrrat-go/jwx/v3/jws"
)

// Validator checks bearer tokens; it is safe for concurrent use and must be closed.
type Validator struct {
	cfg        config
	keys       *keySet
	ownKeys    bool // New loaded them: Close closes them
	log        *slog.Logger
	challenges challenges
}

// Failure says why a request is refused and what to answer; it never holds token text.
type Failure struct {
	// Status is 401 (no, invalid or expired token), 403 (valid token lacking scopes), 400 (more
	// than one Authorization header) or 503 (the token's kid is unknown, the keys are being
	// fetched and too many requests already wait for them: try again shortly).
	Status int
	// WWWAuthenticate is the value of the WWW-Authenticate response header; empty on a 503,
	// which is no challenge.
	WWWAuthenticate string
	// Reason explains the refusal for logs.
	Reason string
	// Kid is the token's key id when the token got that far (truncated, for logs).
	Kid string
}

// Error returns the reason, so a Failure can travel as an error.
func (f *Failure) Error() string { return f.Reason }

// challenges are the WWW-Authenticate values, built once at New.
type challenges struct {
	missing, invalid, insufficient, invalidRequest string
}

func newChallenges(metadataURL string, scopes []string) challenges {
	rm := `resource_metadata="` + metadataURL + `"`
	scope := ""
	if len(scopes) > 0 {
		scope = `scope="` + strings.Join(scopes, " ") + `"`
	}
	join := func(parts ...string) string {
		return "Bearer " + strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), ", ")
	}
	return challenges{
		missing:      join(rm, scope),
		invalid:      join(rm, `error="invalid_token"`, scope),
		insufficient: join(`error="insufficient_scope"`, scope, rm),
		// RFC 6750 §3.1: a malformed request is a 400 with invalid_request.
		invalidRequest: join(rm, `error="invalid_request"`),
	}
}

// New checks the settings, loads the keys (fetching a JWKS URL once, so a bad URL fails now,
// not on the first request) and starts their background refresh.
func New(s Settings) (*Validator, error) {
	c, err := s.check()
	if err != nil {
		return nil, err
	}
	keys, err := c.loadKeys()
	if err != nil {
		return nil, err
	}
	v := validatorOn(c, keys)
	v.ownKeys = true
	return v, nil
}

func validatorOn(c config, keys *keySet) *Validator {
	v := &Validator{cfg: c, keys: keys, log: c.Logger, challenges: newChallenges(c.ResourceMetadataURL, c.RequiredScopes)}
	if v.log == nil {
		v.log = slog.New(slog.DiscardHandler)
	}
	return v
}

// Close closes the validator's keys if it loaded them itself; it is safe to call more than once.
// Validate keeps working with the last keys afterwards.
func (v *Validator) Close() error {
	if v.ownKeys {
		return v.keys.Close(context.Background())
	}
	return nil
}

// ValidateHeader checks the Authorization header values of one request. More than one is a
// malformed request (RFC 6750 §3.1): which of them counts would otherwise depend on whichever
// proxy or framework picks one.
func (v *Validator) ValidateHeader(ctx context.Context, values []string) (map[string]any, *Failure) {
	switch len(values) {
	case 0:
		return v.Validate(ctx, "")
	case 1:
		return v.Validate(ctx, values[0])
	}
	return nil, &Failure{Status: http.StatusBadRequest, WWWAuthenticate: v.challenges.invalidRequest, Reason: "more than one Authorization header"}
}

// Validate checks the Authorization header value of one request. On success it returns the
// token's claims; otherwise a Failure with the status and challenge to answer.
func (v *Validator) Validate(ctx context.Context, authorization string) (map[string]any, *Failure) {
	token, sent, reason := bearerToken(authorization)
	if !sent {
		return nil, &Failure{Status: http.StatusUnauthorized, WWWAuthenticate: v.challenges.missing, Reason: reason}
	}
	if reason != "" {
		return nil, v.invalid(reason, "")
	}
	l := keyLookup{v: v}
	payload, err := jws.Verify([]byte(token), jws.WithKeyProvider(&l), jws.WithContext(ctx))
	if l.busy {
		return nil, &Failure{Status: http.StatusServiceUnavailable, Reason: errRefreshBusy.Error(), Kid: safeKid(l.kid)}
	}
	if err != nil {
		return nil, v.invalid(l.failureReason(err), l.kid)
	}
	claims, reason := decodeClaims(payload)
	if reason == "" {
		reason = v.cfg.checkClaims(claims, v.cfg.now())
	}
	if reason != "" {
		return nil, v.invalid(reason, l.kid)
	}
	if scope := missingScope(claims, v.cfg.RequiredScopes); scope != "" {
		return nil, &Failure{
			Status:          http.StatusForbidden,
			WWWAuthenticate: v.challenges.insufficient,
			Reason:          "token lacks required scope " + scope,
			Kid:             safeKid(l.kid),
		}
	}
	return claims, nil
}

func (v *Validator) invalid(reason, kid string) *Failure {
	return &Failure{Status: http.StatusUnauthorized, WWWAuthenticate: v.challenges.invalid, Reason: reason, Kid: safeKid(kid)}
}

// safeKid bounds the attacker-chosen kid before it reaches a log line.
func safeKid(kid string) string {
	const maxKid = 128
	if len(kid) > maxKid {
		kid = kid[:maxKid]
	}
	return strings.ToValidUTF8(kid, "\uFFFD")
}

// errRefused stops jws.Verify; keyLookup.reason says why.
var errRefused = errors.New("token refused before signature check")

// keyLookup feeds jws.Verify the keys for one token and remembers what it saw for the Failure.
type keyLookup struct {
	v      *Validator
	kid    string
	reason string
	busy   bool // the kid was unknown and no place was free to wait for the keys
}

// FetchKeys enforces the algorithm allow-list before any key is offered, so "none", HMAC with a
// public key and every other algorithm outside the list never reach a verifier.
func (l *keyLookup) FetchKeys(ctx context.Context, sink jws.KeySink, sig *jws.Signature, _ *jws.Message) error {
	h := sig.ProtectedHeaders()
	l.kid, _ = h.KeyID()
	signed, _ := h.Algorithm()
	alg := signed.String()
	kind, ok := l.v.cfg.algs[alg]
	switch {
	case !ok:
		l.reason = "algorithm not allowed"
		return errRefused
	case hasCritical(h):
		l.reason = "token has critical header parameters this server does not understand"
		return errRefused
	}
	if h.Has("b64") {
		l.reason = "unencoded payload (b64) tokens are not accepted"
		return errRefused
	}
	if l.v.keys.index.Load().offer(sink, l.kid, alg, kind) > 0 {
		return nil
	}
	ix, err := l.v.keys.refreshOnMiss(ctx)
	if err != nil {
		l.busy = true
		return errRefused
	}
	if ix.offer(sink, l.kid, alg, kind) > 0 {
		return nil
	}
	l.reason = "no known key matches the token's kid and algorithm"
	return errRefused
}

// hasCritical reports whether a token names critical header parameters (crit).
func hasCritical(h jws.Headers) bool {
	crit, ok := h.Critical()
	return ok && len(crit) > 0
}

func (l *keyLookup) failureReason(err error) string {
	switch {
	case l.reason != "":
		return l.reason
	case errors.Is(err, jws.VerificationError()):
		return "signature invalid"
	}
	return "malformed token"
}

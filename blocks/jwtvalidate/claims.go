package jwtvalidate

import (
	"encoding/json"
	"strings"
	"time"
)

// maxTokenBytes caps the bearer token; real access tokens are far smaller, and the cap bounds
// the work an unauthenticated caller can cause.
const maxTokenBytes = 8 << 10

// bearerToken takes the token out of an Authorization header value. sent is false when the
// request carries no bearer credentials at all (RFC 6750 §3.1: no error code then); otherwise a
// non-empty reason says why the token is unusable.
func bearerToken(header string) (token string, sent bool, reason string) {
	header = strings.Trim(header, " \t")
	if header == "" {
		return "", false, "no authorization header"
	}
	scheme, rest, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", false, "authorization scheme is not bearer"
	}
	token = strings.TrimLeft(rest, " ")
	switch {
	case token == "":
		return "", true, "empty bearer token"
	case len(token) > maxTokenBytes:
		return "", true, "token exceeds 8 KiB"
	case !compactJWS(token):
		return "", true, "malformed token: not a compact JWS"
	}
	return token, true, ""
}

// compactJWS reports whether s is three non-empty base64url segments joined by dots, so that
// JSON serialisations, JWEs and stray characters never reach the JOSE parser.
func compactJWS(s string) bool {
	dots, segment := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.':
			if segment == 0 {
				return false
			}
			dots, segment = dots+1, 0
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
			segment++
		default:
			return false
		}
	}
	return dots == 2 && segment > 0
}

// decodeClaims reads the verified payload; claims keep their JSON shapes (numbers are float64)
// so flows see exactly what the authorization server sent.
func decodeClaims(payload []byte) (map[string]any, string) {
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil || claims == nil {
		return nil, "malformed token: claims are not a JSON object"
	}
	return claims, ""
}

// checkClaims applies RFC 7519 time checks with leeway, then issuer and audience. It returns a
// reason, never claim values, because a reason ends up in logs.
func (c *config) checkClaims(claims map[string]any, now time.Time) string {
	t := float64(now.UnixNano()) / 1e9
	leeway := c.Leeway.Seconds()
	exp, present, ok := numericDate(claims, "exp")
	switch {
	case !present:
		return "token has no exp claim"
	case !ok:
		return "exp claim is not a number"
	case t >= exp+leeway:
		return "token expired"
	}
	if nbf, present, ok := numericDate(claims, "nbf"); present && (!ok || t+leeway < nbf) {
		return ifElse(ok, "token not valid yet (nbf)", "nbf claim is not a number")
	}
	if iat, present, ok := numericDate(claims, "iat"); present && (!ok || iat > t+leeway) {
		return ifElse(ok, "token issued in the future (iat)", "iat claim is not a number")
	}
	if c.Issuer != "" {
		if iss, _ := claims["iss"].(string); iss != c.Issuer {
			return "issuer mismatch"
		}
	}
	if !hasAudience(claims["aud"], c.Audience) {
		return "audience mismatch: token is not for this resource"
	}
	return ""
}

func numericDate(claims map[string]any, name string) (v float64, present, ok bool) {
	raw, present := claims[name]
	if !present {
		return 0, false, false
	}
	v, ok = raw.(float64)
	return v, true, ok
}

func ifElse(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

// hasAudience accepts aud as one string or an array of strings (RFC 7519 §4.1.3).
func hasAudience(aud any, want string) bool {
	switch aud := aud.(type) {
	case string:
		return aud == want
	case []any:
		for _, a := range aud {
			if s, ok := a.(string); ok && s == want {
				return true
			}
		}
	}
	return false
}

// missingScope returns the first required scope the token does not grant, or "".
func missingScope(claims map[string]any, required []string) string {
	for _, want := range required {
		if !Granted(claims, want) {
			return want
		}
	}
	return ""
}

// Granted reports whether a token's claims grant scope want. It looks in "scope" (RFC
// 8693/9068: space-delimited string) and "scp" (an array at Okta and others, a space-delimited
// string at Entra ID).
func Granted(claims map[string]any, want string) bool {
	if s, ok := claims["scope"].(string); ok && inList(s, want) {
		return true
	}
	switch scp := claims["scp"].(type) {
	case string:
		return inList(scp, want)
	case []any:
		for _, e := range scp {
			if s, ok := e.(string); ok && s == want {
				return true
			}
		}
	}
	return false
}

func inList(list, want string) bool {
	for s := range strings.SplitSeq(list, " ") {
		if s == want {
			return true
		}
	}
	return false
}

package jwtvalidate

// The jwt-validate block: the one file of this package that knows the octo runtime. It maps a
// Failure onto the flow's answer and the claims onto the message's variables.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "jwt-validate",
		Summary: "checks the bearer token of an HTTP request (OAuth resource server) and leaves its claims in vars.jwt",
		Doc: "Lets a request with a valid bearer token through with its claims in vars.jwt, and " +
			"answers any other with 401 (or 403 when a required scope is missing) and the " +
			"WWW-Authenticate challenge MCP clients follow to log in. Keys come from a JWKS URL, " +
			"kept fresh, or from a local file.",
		Example: "type: jwt-validate\nsettings:\n  jwksUrl: https://login.example.net/.well-known/jwks.json\n" +
			"  issuer: https://login.example.net/\n  audience: https://mcp.example.net/mcp\n  requiredScopes: [mcp:tools]\n",
		Transports: []string{httpmsg.Transport},
		KeepsBody:  true,
		Build:      runtime.BlockFunc(buildBlock),
	})
}

// ClaimsVar is the variable that holds a valid token's claims (vars.jwt.sub in expressions).
const ClaimsVar = "jwt"

// SetsVars says that the blocks after a jwt-validate may read vars.jwt.
func (*Settings) SetsVars() []string { return []string{ClaimsVar} }

// Block is a built jwt-validate block; its Validator exists between Start and Stop.
type Block struct {
	settings Settings
	flow     string
	log      *slog.Logger
	bodies   failureBodies
	shared   *runtime.Shared
	v        *Validator      // set by Start, before any connector takes traffic
	release  runtime.Release // gives the keys back
}

// failureBodies are the JSON answers to a refusal, built once: they carry the OAuth error code
// and a fixed description, never anything taken from the token.
type failureBodies struct {
	missing, invalid, insufficient, invalidRequest, busy []byte
}

func buildBlock(b *runtime.Build, settings *Settings) (runtime.Block, error) {
	s := *settings
	if s.JWKSFile != "" && !filepath.IsAbs(s.JWKSFile) && b.At.File != "" {
		// Relative to the YAML file that names it, like template resources, so a config runs
		// from any working directory.
		s.JWKSFile = filepath.Join(filepath.Dir(b.At.File), s.JWKSFile)
	}
	derive := s.ResourceMetadataURL == ""
	if derive {
		derived, err := MetadataURL(s.Audience)
		if err != nil && checkAudience(s.Audience) == nil {
			pos := b.Positions()
			return nil, b.Errorf(withPath(pos.Of(&settings.Audience), pos.Of(&settings.ResourceMetadataURL)),
				"resourceMetadataUrl is required when audience is not this server's URL (%v)", err)
		}
		s.ResourceMetadataURL = derived
	}
	c, err := s.check()
	if err != nil {
		if derive {
			// An audience problem is already reported; the URL derived from it says nothing new.
			err = withoutKey(err, "resourceMetadataUrl")
		}
		return nil, ReportSettingErrors(b, settings, err)
	}
	if c.JWKSFile != "" {
		// Read now as well as at Start, so `octo validate` finds a missing or unusable key file.
		if _, err := loadKeyFile(c.JWKSFile, c); err != nil {
			return nil, b.Errorf(&settings.JWKSFile, "%v", err)
		}
	}
	s.Logger = b.Logger()
	return &Block{settings: s, flow: b.Flow, log: s.Logger, bodies: newFailureBodies(c.RequiredScopes), shared: b.Shared()}, nil
}

// withPath is the position at, named by the path of other: a problem written at one setting
// that is about another.
func withPath(at, other runtime.Position) runtime.Position {
	at.At.Path = other.At.Path
	return at
}

// ReportSettingErrors reports each *SettingError joined in err at the line of its key in
// settings (a pointer to the decoded settings struct), and anything else at the settings; blocks
// built on this package's checks share it.
func ReportSettingErrors(b *runtime.Build, settings any, err error) error {
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	for _, e := range errs {
		if e == nil {
			continue
		}
		var se *SettingError
		if !errors.As(e, &se) {
			b.Errorf(nil, "%v", e)
			continue
		}
		b.Errorf(b.Positions().Key(settings, se.Key), "%v", se.Err)
	}
	return b.Err()
}

func withoutKey(err error, key string) error {
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return err
	}
	var kept []error
	for _, e := range joined.Unwrap() {
		if se, ok := e.(*SettingError); !ok || se.Key != key {
			kept = append(kept, e)
		}
	}
	return errors.Join(kept...)
}

func newFailureBodies(scopes []string) failureBodies {
	body := func(code, description string) []byte {
		out, _ := json.Marshal(map[string]string{"error": code, "error_description": description})
		return out
	}
	insufficient := "the bearer token lacks a required scope"
	if len(scopes) > 0 {
		insufficient += " (this resource needs: " + strings.Join(scopes, " ") + ")"
	}
	return failureBodies{
		missing:        body("unauthorized", "this resource needs a bearer token in the Authorization header"),
		invalid:        body("invalid_token", "the bearer token is invalid or expired"),
		insufficient:   body("insufficient_scope", insufficient),
		invalidRequest: body("invalid_request", "the request has more than one Authorization header"),
		busy:           body("temporarily_unavailable", "the signing keys are being refreshed; retry shortly"),
	}
}

// Start loads the keys, so a server never takes traffic it cannot check. Keys fetched from a
// JWKS URL are shared through the service's table with every block, of this build or the next,
// that fetches the same URL alike: a reload does not fetch them again.
func (b *Block) Start(context.Context) error {
	c, err := b.settings.check()
	if err == nil {
		var keys *keySet
		if keys, b.release, err = b.acquireKeys(c); err == nil {
			b.v = validatorOn(c, keys)
			return nil
		}
	}
	return fmt.Errorf("flow %q: jwt-validate: %w", b.flow, err)
}

// acquireKeys loads a key file, or takes the key set of the JWKS URL from the shared table.
func (b *Block) acquireKeys(c config) (*keySet, runtime.Release, error) {
	if c.JWKSURL == "" {
		keys, err := c.loadKeys()
		if err != nil {
			return nil, nil, err
		}
		return keys, keys.Close, nil
	}
	return runtime.Acquire(b.shared, c.sharedKey(), c.loadKeys)
}

// Stop gives the keys back; the last holder of a JWKS key set ends its background refresh.
func (b *Block) Stop(ctx context.Context) error {
	if b.release != nil {
		return b.release(ctx)
	}
	return nil
}

// Process lets a request with a valid token through with its claims in vars.jwt, and finishes
// any other with 401 or 403 and the challenge. OPTIONS passes untouched: a CORS preflight
// carries no token, and the answer to it must not be a challenge.
func (b *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	ex, err := httpmsg.Need(m)
	if err != nil {
		return nil, err
	}
	if ex.Method == http.MethodOptions {
		return m, nil
	}
	if b.v == nil {
		return nil, &runtime.Error{Kind: runtime.KindUnavailable, Msg: "token validation is not started"}
	}
	claims, f := b.v.ValidateHeader(ctx, ex.Header.Values("Authorization"))
	if f == nil {
		m.SetVar(ClaimsVar, claims)
		return m, nil
	}
	body := b.bodies.invalid
	switch {
	case f.Status == http.StatusForbidden:
		body = b.bodies.insufficient
	case f.Status == http.StatusBadRequest:
		body = b.bodies.invalidRequest
	case f.Status == http.StatusServiceUnavailable:
		body = b.bodies.busy
		ex.SetReplyHeader("Retry-After", "1")
	case f.WWWAuthenticate == b.v.challenges.missing:
		body = b.bodies.missing
	}
	level := slog.LevelInfo
	if f.WWWAuthenticate == b.v.challenges.missing {
		level = slog.LevelDebug // every OAuth client's first request: it learns where to log in
	}
	b.log.Log(ctx, level, "request refused", "status", f.Status, "reason", f.Reason, "kid", f.Kid)
	ex.Status = f.Status
	if f.WWWAuthenticate != "" {
		ex.SetReplyHeader("WWW-Authenticate", f.WWWAuthenticate)
	}
	ex.SetReplyHeader("Cache-Control", "no-store")
	ex.SetReplyHeader("Content-Type", "application/json")
	m.SetRaw(body)
	m.Finish()
	return m, nil
}

var (
	_ runtime.Block      = (*Block)(nil)
	_ runtime.Starter    = (*Block)(nil)
	_ runtime.Stopper    = (*Block)(nil)
	_ runtime.Resource   = (*keySet)(nil)
	_ runtime.VarsSetter = (*Settings)(nil)
)

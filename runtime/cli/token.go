package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/octo-run/octo/blocks/jwtvalidate"
)

// cmdToken stands in for an authorization server while developing: it signs an access
// token with a local private key so curl or an MCP client can call a server protected by
// jwt-validate. It is never a way to issue real tokens.
func cmdToken(_ context.Context, env *Env, args []string) error {
	fs := newFlags("token", env)
	var o jwtvalidate.MintOptions
	fs.StringVar(&o.KeyFile, "key", "", "development private key: a JWK, a JWKS holding one key, or a PEM file (never a production key)")
	fs.StringVar(&o.Audience, "aud", "", "audience: the protected server's resource URL, e.g. http://localhost:8080/mcp")
	fs.StringVar(&o.Scope, "scope", "", "space-separated scopes to grant")
	fs.StringVar(&o.Subject, "sub", "", "subject: the caller's user id (vars.jwt.sub in flows)")
	fs.StringVar(&o.Issuer, "iss", "", "issuer, when the server checks one")
	fs.StringVar(&o.Kid, "kid", "", "key id for the token header (default: the key's own kid)")
	fs.DurationVar(&o.TTL, "ttl", time.Hour, "how long the token is valid")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return &usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	case o.KeyFile == "":
		return &usageError{"--key is required"}
	case o.Audience == "":
		return &usageError{"--aud is required"}
	case o.TTL <= 0:
		return &usageError{"--ttl must be positive"}
	}
	token, err := jwtvalidate.Mint(o)
	if err != nil {
		return fmt.Errorf("octo token: %w", err)
	}
	fmt.Fprintln(env.Stdout, token)
	return nil
}

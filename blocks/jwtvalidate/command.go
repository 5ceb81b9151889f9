package jwtvalidate

// `octo token`, registered with the command line by this package, which owns minting.

import (
	"context"
	"fmt"
	"time"

	"github.com/octo-run/octo/runtime/cli"
)

func init() {
	cli.RegisterCommand(cli.Command{Name: "token", Order: 70,
		Summary: "print a signed access token for local testing (DEVELOPMENT ONLY: real tokens come from your authorization server)",
		Usage:   "token --key FILE --aud URL [--scope \"a b\"] [--sub ID] [--ttl 1h] [--kid ID] [--iss URL]", Run: token})
}

// token is `octo token`: it stands in for an authorization server while developing: it signs an access
// token with a local private key so curl or an MCP client can call a server protected by
// jwt-validate. It is never a way to issue real tokens.
func token(_ context.Context, env *cli.Env, args []string) error {
	fs := cli.NewFlags("token", env)
	var o MintOptions
	fs.StringVar(&o.KeyFile, "key", "", "development private key: a JWK, a JWKS holding one key, or a PEM file (never a production key)")
	fs.StringVar(&o.Audience, "aud", "", "audience: the protected server's resource URL, e.g. http://localhost:8080/mcp")
	fs.StringVar(&o.Scope, "scope", "", "space-separated scopes to grant")
	fs.StringVar(&o.Subject, "sub", "", "subject: the caller's user id (vars.jwt.sub in flows)")
	fs.StringVar(&o.Issuer, "iss", "", "issuer, when the server checks one")
	fs.StringVar(&o.Kid, "kid", "", "key id for the token header (default: the key's own kid)")
	fs.DurationVar(&o.TTL, "ttl", time.Hour, "how long the token is valid")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return cli.Usagef("unexpected argument %q", fs.Arg(0))
	case o.KeyFile == "":
		return cli.Usagef("--key is required")
	case o.Audience == "":
		return cli.Usagef("--aud is required")
	case o.TTL <= 0:
		return cli.Usagef("--ttl must be positive")
	}
	signed, err := Mint(o)
	if err != nil {
		return fmt.Errorf("octo token: %w", err)
	}
	fmt.Fprintln(env.Stdout, signed)
	return nil
}

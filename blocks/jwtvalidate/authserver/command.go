package authserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/octo-run/octo/runtime/cli"
)

func init() {
	cli.RegisterCommand(cli.Command{Name: "auth-server", Order: 71,
		Summary: "serve an OAuth 2.1 authorization server for trying MCP clients' login offline; approves every login as one user (DEVELOPMENT ONLY)",
		Usage:   "auth-server --key FILE [--port 9000] [--user alice] [--scopes \"a b\"] [--ttl 1h] [--issuer URL]", Run: command})
}

func command(ctx context.Context, env *cli.Env, args []string) error {
	fs := cli.NewFlags("auth-server", env)
	var o Options
	port := fs.Int("port", 9000, "the port to listen on (loopback only)")
	fs.StringVar(&o.KeyFile, "key", "", "development private key access tokens are signed with: a JWK, a JWKS holding one key, or PEM (samples/mcp-oauth/dev-only-private.jwk for the sample)")
	fs.StringVar(&o.User, "user", "alice", "the subject every login is approved as (vars.jwt.sub in flows)")
	scopes := fs.String("scopes", "", "space-separated scopes it grants (default: any asked for)")
	fs.DurationVar(&o.TTL, "ttl", time.Hour, "how long an access token is valid")
	fs.StringVar(&o.Issuer, "issuer", "", "its URL, the tokens' iss (default: http://localhost:PORT); a server behind jwt-validate checks it as AUTH_ISSUER")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return cli.Usagef("unexpected argument %q", fs.Arg(0))
	case o.KeyFile == "":
		return cli.Usagef("--key is required: the private key tokens are signed with (try samples/mcp-oauth/dev-only-private.jwk)")
	case *port < 0 || *port > 65535:
		return cli.Usagef("--port %d: out of range 0-65535", *port)
	case o.TTL <= 0:
		return cli.Usagef("--ttl must be positive")
	}
	o.Scopes = strings.Fields(*scopes)
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)))
	if err != nil {
		return fmt.Errorf("octo auth-server: %w", err)
	}
	if o.Issuer == "" {
		o.Issuer = "http://localhost:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	}
	o.Issuer = strings.TrimSuffix(o.Issuer, "/")
	o.Logger = slog.New(slog.NewTextHandler(env.Stderr, nil))
	s, err := New(o)
	if err != nil {
		ln.Close()
		return cli.Usagef("%v", err)
	}
	fmt.Fprintf(env.Stderr, "octo auth-server: DEVELOPMENT ONLY: every login is approved as %q, with no password.\n"+
		"Issuer %s (listening on %s). A server behind jwt-validate takes it as its issuer, e.g.\n"+
		"  AUTH_ISSUER=%s bin/octo run --config samples/mcp-oauth\n", o.User, o.Issuer, ln.Addr(), o.Issuer)
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	return cli.UntilSignalled(ctx, o.Logger, func(ctx context.Context, _ <-chan struct{}) error {
		go func() {
			<-ctx.Done()
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
		}()
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
}

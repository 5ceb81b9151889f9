package ops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/octo-run/octo/runtime/cli"
	"github.com/octo-run/octo/runtime/printable"
)

// `octo probe URL` is a health check for images without a shell or curl (a distroless or
// scratch image holds octo and nothing else): Docker's HEALTHCHECK and exec probes run the
// binary they have. It GETs the URL once and exits 0 on a 2xx answer, 1 otherwise.
func init() {
	cli.RegisterCommand(cli.Command{Name: "probe", Order: 60, Run: probeCommand,
		Summary: "GET a health URL and exit 0 on a 2xx answer, 1 otherwise (a HEALTHCHECK in images without curl)",
		Usage:   "probe URL [--timeout 2s]"})
}

func probeCommand(ctx context.Context, env *cli.Env, args []string) error {
	fs := cli.NewFlags("probe", env)
	timeout := fs.Duration("timeout", 2*time.Second, "how long to wait for the answer")
	pos, err := cli.ParseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef("name one URL to probe, such as http://127.0.0.1:9090/healthz")
	}
	u, err := url.Parse(pos[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cli.Usagef("%q is not an http:// or https:// URL", pos[0])
	}
	if *timeout <= 0 {
		return cli.Usagef("--timeout must be positive")
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%s: no answer within %s", printable.Escape(u.Redacted()), timeout)
		}
		return fmt.Errorf("%s: %w", printable.Escape(u.Redacted()), errors.Unwrap(err))
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%s answered %s", printable.Escape(u.Redacted()), resp.Status)
	}
	fmt.Fprintf(env.Stdout, "%s: %s\n", printable.Escape(u.Redacted()), resp.Status)
	return nil
}

package ops

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime/cli"
)

func TestProbeExitsByTheAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.Error(w, "starting", http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	for _, c := range []struct {
		name, url string
		code      int
		says      string
	}{
		{"a 2xx answer is healthy", srv.URL + "/healthz", 0, "200 OK"},
		{"a 503 is not", srv.URL + "/readyz", 1, "answered 503 Service Unavailable"},
		{"no listener is not", "http://127.0.0.1:1/healthz", 1, "connection refused"},
		{"a URL that is not http is a usage mistake", "ftp://x/healthz", 2, "is not an http:// or https:// URL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			code := cli.Main(context.Background(), &cli.Env{Stdout: &out, Stderr: &out}, []string{"probe", c.url})
			if code != c.code || !strings.Contains(out.String(), c.says) {
				t.Fatalf("exit %d, output %q; want %d and %q", code, out.String(), c.code, c.says)
			}
		})
	}
}

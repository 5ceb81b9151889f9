package http_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/runtime"
)

// errorSettings choose the error the test-error block fails with.
type errorSettings struct {
	Kind       int           `yaml:"kind" doc:"the runtime.ErrorKind"`
	RetryAfter time.Duration `yaml:"retryAfter" doc:"the error's RetryAfter"`
	Challenge  string        `yaml:"challenge" doc:"the error's Challenge"`
}

// The test-error block fails with the error its settings describe; test-view answers with
// what the exchange says of the request, and a status and header of its own.
func init() {
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-error", Summary: "test", Build: runtime.BlockFunc(func(_ *runtime.Build, s *errorSettings) (runtime.Block, error) {
		return blockFunc(func(context.Context, *runtime.Message) (*runtime.Message, error) {
			return nil, &runtime.Error{Kind: runtime.ErrorKind(s.Kind), Msg: "kind " + runtime.ErrorKind(s.Kind).String(),
				RetryAfter: s.RetryAfter, Challenge: s.Challenge, Err: io.ErrUnexpectedEOF}
		}), nil
	})})
	runtime.RegisterBlock(runtime.BlockSpec{Type: "test-view", Summary: "test", Transports: []string{httpmsg.Transport},
		Build: runtime.BlockFunc(func(*runtime.Build, *struct{}) (runtime.Block, error) {
			return blockFunc(func(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
				ex, err := httpmsg.Need(m)
				if err != nil {
					return nil, err
				}
				ex.Status = http.StatusCreated
				ex.SetReplyHeader("X-Seen", ex.Method+" "+ex.Path+" "+ex.Query().Get("q"))
				m.SetBody(map[string]any{"attr": m.Attrs.Get("X-Test"), "same": ex.Header.Get("X-Test") == m.Attrs.Get("X-Test")})
				return m, nil
			}), nil
		})})
}

// errorRoutes serves /k<N> failing with kind N; /k1 with details.
func errorRoutes() string {
	var b strings.Builder
	b.WriteString("connectors:\n  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1 } }\nflows:\n")
	for k := runtime.KindInternal; k <= runtime.KindUpstream; k++ {
		details := ""
		if k == runtime.KindUnauthorized {
			details = `, retryAfter: 1500ms, challenge: 'Bearer realm="x"'`
		}
		fmt.Fprintf(&b, "  - name: k%d\n    source: { connector: api, settings: { path: /k%d } }\n"+
			"    process: [ { type: test-error, settings: { kind: %d%s } } ]\n", k, k, k, details)
	}
	b.WriteString("  - name: view\n    source: { connector: api, settings: { path: /view } }\n    process: [ { type: test-view } ]\n")
	return b.String()
}

func TestEachErrorKindIsAnsweredWithItsStatus(t *testing.T) {
	base, _ := start(t, errorRoutes())
	want := map[runtime.ErrorKind]int{
		runtime.KindInternal: 500, runtime.KindInvalid: 400, runtime.KindUnauthorized: 401, runtime.KindForbidden: 403,
		runtime.KindNotFound: 404, runtime.KindConflict: 409, runtime.KindTooLarge: 413, runtime.KindUnavailable: 503,
		runtime.KindTimeout: 504, runtime.KindCancelled: 503, runtime.KindUpstream: 502,
	}
	for k := runtime.KindInternal; k <= runtime.KindUpstream; k++ {
		t.Run(fmt.Sprintf("a %s error is a %d with its message", k, want[k]), func(t *testing.T) {
			resp, err := http.Get(fmt.Sprintf("%s/k%d", base, k))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body := fmt.Sprintf(`{"error":"kind %s"}`, k)
			if resp.StatusCode != want[k] || string(b) != body {
				t.Fatalf("got %d %s, want %d %s", resp.StatusCode, b, want[k], body)
			}
			retry, challenge := "", ""
			if k == runtime.KindUnauthorized {
				retry, challenge = "2", `Bearer realm="x"` // 1.5s rounds up to whole seconds
			}
			if resp.Header.Get("Retry-After") != retry || resp.Header.Get("WWW-Authenticate") != challenge {
				t.Fatalf("Retry-After %q, WWW-Authenticate %q; want %q, %q", resp.Header.Get("Retry-After"),
					resp.Header.Get("WWW-Authenticate"), retry, challenge)
			}
		})
	}
}

func TestBlocksReadTheRequestAndSetTheReplyThroughTheExchange(t *testing.T) {
	base, _ := start(t, errorRoutes())
	req, _ := http.NewRequest(http.MethodPut, base+"/view?q=lisbon", nil)
	req.Header.Set("X-Test", "ada")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("X-Seen") != "PUT /view lisbon" || string(b) != `{"attr":"ada","same":true}` {
		t.Fatalf("got %d X-Seen %q %s", resp.StatusCode, resp.Header.Get("X-Seen"), b)
	}
}

package httprequest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestAFailedStatusCarriesTheStatusAndAnExcerpt(t *testing.T) {
	long := strings.Repeat("é", 150) // 300 bytes: cut at 200, on a character boundary
	cases := []struct {
		name, contentType, answer string
		status                    int
		excerpt                   string
	}{
		{"a 404 with a JSON body", "application/json", `{"error":"no such city"}`, 404, `{"error":"no such city"}`},
		{"a 500 without a body", "", "", 500, ""},
		{"a long body is cut at 200 bytes", "text/plain", long, 502, strings.Repeat("é", 100) + "…"},
		{"control and invisible characters are escaped", "text/plain", "line1\nline2\x1b[31m\u202eevil\xff", 400,
			`line1\nline2\x1b[31m\u202eevil\xff`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, srv := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
				if c.contentType != "" {
					w.Header().Set("Content-Type", c.contentType)
				}
				w.WriteHeader(c.status)
				io.WriteString(w, c.answer)
			})
			env := map[string]string{"BACKEND": srv.URL}
			r := start(t, flowOf(blockOf("          url: ${BACKEND}/cities/x\n"), env), env)
			_, err := r.run(t, `{}`)
			var se *StatusError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a StatusError", err)
			}
			if se.Status != c.status || se.Excerpt != c.excerpt || se.Attempts != 1 {
				t.Fatalf("got status %d excerpt %q attempts %d, want %d %q 1", se.Status, se.Excerpt, se.Attempts, c.status, c.excerpt)
			}
			msg := "the backend answered " + statusText(c.status)
			if c.excerpt != "" {
				msg += ": " + c.excerpt
			}
			if se.Message() != msg {
				t.Errorf("message %q, want %q", se.Message(), msg)
			}
			if want := "GET " + srv.URL + "/cities/x: " + msg; se.Error() != want {
				t.Errorf("error %q, want %q", se.Error(), want)
			}
			if e := runtime.ErrorOf(err); e.Kind != runtime.KindUpstream || e.Msg != msg {
				t.Errorf("the flow answers %s %q, want upstream %q", e.Kind, e.Msg, msg)
			}
		})
	}
}

// What a request carries that may be a secret (the URL's user and password, query values,
// credential headers) is in no error text and no log line, even when the backend echoes it.
func TestSecretsNeverShowInErrorsOrLogs(t *testing.T) {
	secrets := []string{"s3cret-pass", "url-token-42", "query-key-77", "bearer-abc-99", "x-api-key-55"}
	echo := func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, "refused %s %s %v", r.URL, r.Header.Get("Authorization"), r.Header)
	}
	_, srv := newRecorder(t, echo)
	dead := "127.0.0.1:" + strconv.Itoa(runtimetest.FreePort(t)) // nothing listens there
	settings := func(base string) string {
		return `          url: "http://alice:s3cret-pass@` + strings.TrimPrefix(base, "http://") + `/v1?token=url-token-42"
          query: { api_key: "{{ body.key }}", city: Lisbon }
          headers: { Authorization: "Bearer bearer-abc-99", X-Api-Key: x-api-key-55 }
`
	}
	for _, c := range []struct{ name, base, want string }{
		{"a refusal that echoes the request", srv.URL, "the backend answered 401 Unauthorized: refused /v1?token=***&api_key=***&city=Lisbon *** map[Accept-Encoding:[gzip] Authorization:[***] User-Agent:[octo] X-Api-Key:[***]]"},
		{"a backend that cannot be reached", "http://" + dead, "could not reach the backend"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := start(t, flowOf(blockOf(settings(c.base)), nil), nil)
			_, err := r.run(t, `{"key": "query-key-77"}`)
			if err == nil {
				t.Fatal("the call succeeded")
			}
			r.flow.Logger().Error("flow failed", "err", err) // as the connector logs it
			text := runtime.ErrorOf(err).Msg
			if text != c.want {
				t.Errorf("the caller reads %q\nwant %q", text, c.want)
			}
			for _, where := range []struct{ name, text string }{{"error", err.Error()}, {"message", text}, {"log", r.log.String()}} {
				for _, s := range append(secrets, "alice") {
					if strings.Contains(where.text, s) {
						t.Errorf("the %s holds %q: %s", where.name, s, where.text)
					}
				}
			}
			if !strings.Contains(err.Error(), "/v1?token=***&api_key=***&city=***") {
				t.Errorf("the error does not name the redacted request: %s", err)
			}
		})
	}
}

func TestASlowBackendRunsOutOfTime(t *testing.T) {
	_, srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // answers only when the client gives up
	})
	env := map[string]string{"BACKEND": srv.URL}
	r := start(t, flowOf(blockOf("          url: ${BACKEND}/slow\n          timeout: 100ms\n          retries: 2\n"), env), env)
	r.block.clock = realClock{} // the timeout is real time: no wait may pass it
	_, err := r.run(t, `{}`)
	var re *RequestError
	if !errors.As(err, &re) || !re.Timeout || re.Attempts != 1 {
		t.Fatalf("got %#v, want a timeout after one attempt", err)
	}
	if want := "GET " + srv.URL + "/slow: the backend did not answer within 100ms"; re.Error() != want {
		t.Errorf("error %q\nwant %q", re.Error(), want)
	}
	if e := runtime.ErrorOf(err); e.Kind != runtime.KindTimeout || e.Msg != "the backend did not answer within 100ms" {
		t.Errorf("the flow answers %s %q", e.Kind, e.Msg)
	}
}

// A caller that leaves ends the backend call: the backend sees its request's context end.
func TestCancellingTheCallerCancelsTheBackendRequest(t *testing.T) {
	started, ended := make(chan struct{}), make(chan struct{})
	_, srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
		close(ended)
	})
	env := map[string]string{"BACKEND": srv.URL}
	r := start(t, flowOf(blockOf("          url: ${BACKEND}/wait\n          timeout: 1m\n"), env), env)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.flow.Run(ctx, runtime.NewMessage([]byte(`{}`)))
		done <- err
	}()
	waitFor(t, started, "the backend to get the request")
	cancel()
	waitFor(t, ended, "the backend's request context to end")
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the flow ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the flow did not end")
	}
}

func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func TestTheExcerptIsSafeText(t *testing.T) {
	cases := []struct {
		name, body string
		secrets    []string
		want       string
	}{
		{"plain text stays", `{"error":"bad city"}`, nil, `{"error":"bad city"}`},
		{"a secret is masked", "token tok-1234 refused", []string{"tok-1234"}, "token *** refused"},
		{"a secret that starts inside the excerpt is masked whole", strings.Repeat("a", 195) + "tok-1234", []string{"tok-1234"}, strings.Repeat("a", 195) + "***"},
		{"NUL and DEL are escaped", "a\x00b\x7fc", nil, `a\x00b\x7fc`},
		{"a tag character beyond the BMP is escaped", "a\U000E0041b", nil, `a\U000e0041b`},
		{"a cut never splits a character", strings.Repeat("a", 199) + "€", nil, strings.Repeat("a", 199) + "…"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := excerpt([]byte(c.body), c.secrets); got != c.want {
				t.Fatalf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

func FuzzExcerpt(f *testing.F) {
	f.Add([]byte(`{"error":"x"}`), "secret")
	f.Add([]byte("a\x00\xff\u202e"+strings.Repeat("é", 120)), "é")
	f.Fuzz(func(t *testing.T, body []byte, secret string) {
		got := excerpt(body, []string{secret})
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		if n := len(strings.TrimSuffix(got, "…")); n > 4*ExcerptBytes {
			t.Fatalf("excerpt of %d bytes", n)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u202e' {
				t.Fatalf("unescaped %U in %q", r, got)
			}
		}
	})
}

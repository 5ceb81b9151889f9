package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/octo-run/octo/blocks/httprequest"
	_ "github.com/octo-run/octo/blocks/retry"
	_ "github.com/octo-run/octo/blocks/setpayload"
	_ "github.com/octo-run/octo/connectors/http"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// backend answers 503 to its first failures requests, then 200 with what it was sent; it
// records every body it was sent.
type backend struct {
	mu       sync.Mutex
	failures int
	bodies   []string
	called   chan struct{} // one value per request, when not nil
}

func (b *backend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	b.mu.Lock()
	b.bodies = append(b.bodies, string(body))
	fail := len(b.bodies) <= b.failures
	b.mu.Unlock()
	if b.called != nil {
		b.called <- struct{}{}
	}
	if fail {
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (b *backend) sent() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.bodies...)
}

// flowOf is a retry with the given settings around a branch that changes the body and then
// posts it to url.
func flowOf(url, settings string) string {
	return fmt.Sprintf(`connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: f
    source: { connector: api, settings: { path: /x } }
    process:
      - type: retry
%s
        process:
          - type: set-payload
            settings: { value: '{"n": body.n + 1}' }
          - type: http-request
            settings: { method: POST, url: '%s', body: body }
`, settings, url)
}

func TestRetryRunsTheBranchAgainFromTheSameMessage(t *testing.T) {
	b := &backend{failures: 2}
	srv := httptest.NewServer(b)
	defer srv.Close()
	svc := runtimetest.StartConfig(t, flowOf(srv.URL, "        attempts: 3\n        backoff: 1ms"), nil)
	out, err := runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(`{"n": 0}`)))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := out.Body(); fmt.Sprint(v) != "map[n:1]" {
		t.Fatalf("answer %v, want the backend's echo of n 1", v)
	}
	if got := strings.Join(b.sent(), " "); got != `{"n":1} {"n":1} {"n":1}` {
		t.Fatalf("the backend was sent %s; each attempt must start from the message as it came", got)
	}
}

func TestRetryGivesUpAfterItsAttemptsWithTheLastError(t *testing.T) {
	b := &backend{failures: 10}
	srv := httptest.NewServer(b)
	defer srv.Close()
	log := &runtimetest.Buffer{}
	svc := runtimetest.StartConfig(t, flowOf(srv.URL, "        attempts: 3\n        backoff: 1ms"), log)
	_, err := runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(`{"n": 0}`)))
	if e := runtime.ErrorOf(err); e.Kind != runtime.KindUpstream || !strings.HasPrefix(err.Error(), "attempt 3 of 3: ") {
		t.Fatalf("error %q (%v), want the third attempt's upstream error", err, e.Kind)
	}
	if be, ok := errors.AsType[*runtime.BlockError](err); !ok || be.Addr != "flows.f.process[0].process[1]" {
		t.Fatalf("error %v does not name the http-request inside the retry", err)
	}
	if n := len(b.sent()); n != 3 {
		t.Fatalf("%d attempts, want 3", n)
	}
	if c := strings.Count(log.String(), "attempt failed, trying again"); c != 2 {
		t.Fatalf("%d retries logged, want 2:\n%s", c, log)
	}
}

func TestRetryTriesAgainOnlyAfterTheKindsItIsGiven(t *testing.T) {
	b := &backend{failures: 10}
	srv := httptest.NewServer(b)
	defer srv.Close()
	svc := runtimetest.StartConfig(t, flowOf(srv.URL, "        attempts: 3\n        backoff: 1ms\n        on: [timeout]"), nil)
	_, err := runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(`{"n": 0}`)))
	if runtime.ErrorOf(err).Kind != runtime.KindUpstream || strings.HasPrefix(err.Error(), "attempt") {
		t.Fatalf("error %v, want the first attempt's upstream error as it is", err)
	}
	if n := len(b.sent()); n != 1 {
		t.Fatalf("%d attempts, want 1: upstream is not in on", n)
	}
}

func TestACancelledRequestEndsTheWaitBetweenAttempts(t *testing.T) {
	b := &backend{failures: 10, called: make(chan struct{}, 10)}
	srv := httptest.NewServer(b)
	defer srv.Close()
	svc := runtimetest.StartConfig(t, flowOf(srv.URL, "        attempts: 5\n        backoff: 10s\n        maxBackoff: 10s"), nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-b.called; cancel() }()
	done := make(chan error, 1)
	go func() {
		_, err := svc.Instance("flows.f").(*runtime.Flow).Run(ctx, runtime.NewMessage([]byte(`{"n": 0}`)))
		done <- err
	}()
	select {
	case err := <-done:
		if runtime.ErrorOf(err).Kind != runtime.KindCancelled {
			t.Fatalf("error %v, want the cancellation", err)
		}
	case <-time.After(8 * time.Second): // well under the 10s wait it must not finish
		t.Fatal("the retry waited on after its request was cancelled")
	}
	if n := len(b.sent()); n != 1 {
		t.Fatalf("%d attempts after the cancellation, want 1", n)
	}
}

func TestAWaitShorterThanItsCapIsABuildError(t *testing.T) {
	_, err := runtimetest.BuildConfig(t, flowOf("http://127.0.0.1:1", "        backoff: 5s\n        maxBackoff: 1s"), nil)
	if err == nil || !strings.Contains(err.Error(), "c.yaml:8:21: flows[0].process[0].maxBackoff (retry): maxBackoff 1s is shorter than backoff 5s") {
		t.Fatalf("error %v", err)
	}
}

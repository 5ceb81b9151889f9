package jwtvalidate

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// accepts reports whether the validator takes a fresh token from k.
func accepts(t *testing.T, v *Validator, k testKey) bool {
	t.Helper()
	_, f := v.Validate(context.Background(), "Bearer "+sign(t, k, claims(nil), nil))
	return f == nil
}

func TestKeyRotationOnUnknownKid(t *testing.T) {
	const window = time.Minute
	oldKey, newKey := newECKey(t, "old"), newECKey(t, "new")
	srv := newJWKSServer(t, oldKey)
	clock := newFakeClock()
	s := urlSettings(srv.URL)
	s.MinRefreshInterval, s.now = window, clock.now
	v := newValidator(t, s)

	t.Run("an unknown kid inside the window does not refetch", func(t *testing.T) {
		clock.advance(window - time.Nanosecond)
		if accepts(t, v, newKey) {
			t.Fatal("a token from an unpublished key was accepted")
		}
		if got := srv.hits.Load(); got != 1 {
			t.Fatalf("fetches = %d, want 1", got)
		}
	})
	srv.serve(t, oldKey, newKey)
	clock.advance(time.Nanosecond)

	t.Run("an unknown kid once the window has passed fetches once and finds the rotated key", func(t *testing.T) {
		if !accepts(t, v, newKey) {
			t.Fatal("the rotated key was not picked up")
		}
		if got := srv.hits.Load(); got != 2 {
			t.Fatalf("fetches = %d, want 2", got)
		}
		if !accepts(t, v, oldKey) {
			t.Fatal("the old key, still published, stopped working")
		}
	})
}

func TestUnknownKidRefreshIsRateLimited(t *testing.T) {
	const window = time.Minute
	known := newECKey(t, "known")
	srv := newJWKSServer(t, known)
	clock := newFakeClock()
	s := urlSettings(srv.URL)
	s.MinRefreshInterval, s.now = window, clock.now
	v := newValidator(t, s)
	headers := make([]string, 40)
	for i := range headers {
		headers[i] = "Bearer " + sign(t, newECKey(t, fmt.Sprintf("random-%d", i)), claims(nil), nil)
	}
	burst := func() {
		var wg sync.WaitGroup
		for _, h := range headers {
			wg.Go(func() {
				if _, f := v.Validate(context.Background(), h); f == nil {
					t.Error("a token from an unpublished key was accepted")
				}
			})
		}
		wg.Wait()
	}

	t.Run("a burst of random kids inside the window costs no fetch", func(t *testing.T) {
		burst()
		if got := srv.hits.Load(); got != 1 {
			t.Fatalf("fetches = %d, want 1", got)
		}
	})
	clock.advance(window)
	t.Run("a burst of random kids after the window costs exactly one fetch", func(t *testing.T) {
		burst()
		if got := srv.hits.Load(); got != 2 {
			t.Fatalf("fetches = %d, want 2", got)
		}
	})
	t.Run("the next burst is inside the new window", func(t *testing.T) {
		clock.advance(window - time.Nanosecond)
		burst()
		if got := srv.hits.Load(); got != 2 {
			t.Fatalf("fetches = %d, want 2", got)
		}
	})
	if !accepts(t, v, known) {
		t.Fatal("the published key stopped working")
	}
}

func TestBackgroundRefresh(t *testing.T) {
	oldKey, newKey := newECKey(t, "old"), newECKey(t, "new")
	srv := newJWKSServer(t, oldKey)
	s := urlSettings(srv.URL)
	s.RefreshInterval, s.MinRefreshInterval = 20*time.Millisecond, 20*time.Millisecond
	v := newValidator(t, s)

	t.Run("keys are fetched again on the interval without any request", func(t *testing.T) {
		eventually(t, "the JWKS was fetched three times", func() bool { return srv.hits.Load() >= 3 })
	})
	t.Run("a rotation is picked up by the background refresh", func(t *testing.T) {
		srv.serve(t, newKey)
		seen := srv.hits.Load()
		eventually(t, "a fetch after the rotation", func() bool { return srv.hits.Load() >= seen+2 })
		if !accepts(t, v, newKey) {
			t.Fatal("the rotated key was not picked up")
		}
		if accepts(t, v, oldKey) {
			t.Fatal("a key no longer published is still accepted")
		}
	})
	t.Run("Close stops the refresh and may be called twice", func(t *testing.T) {
		if err := v.Close(); err != nil {
			t.Fatal(err)
		}
		if err := v.Close(); err != nil {
			t.Fatal(err)
		}
		// Close has waited for the refresh loop to end (goleak would find it otherwise), so no
		// fetch can follow; the miss below must not start one either.
		after := srv.hits.Load()
		if !accepts(t, v, newKey) {
			t.Fatal("Validate stopped working with the cached keys after Close")
		}
		if accepts(t, v, newECKey(t, "later")) || srv.hits.Load() != after {
			t.Fatal("an unknown kid after Close fetched or was accepted")
		}
	})
}

func TestRefreshFailureKeepsKeys(t *testing.T) {
	key := newECKey(t, "k")
	srv := newJWKSServer(t, key)
	var logs runtimetest.Buffer
	s := urlSettings(srv.URL)
	s.RefreshInterval, s.MinRefreshInterval = 20*time.Millisecond, 20*time.Millisecond
	s.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	v := newValidator(t, s)

	srv.status.Store(http.StatusInternalServerError)
	seen := srv.hits.Load()
	eventually(t, "two failed fetches", func() bool { return srv.hits.Load() >= seen+2 })
	if !accepts(t, v, key) {
		t.Fatal("a failed refresh dropped the known keys")
	}
	eventually(t, "the failure is logged", func() bool { return strings.Contains(logs.String(), "500 Internal Server Error") })
	if !strings.Contains(logs.String(), "level=WARN") {
		t.Fatalf("refresh failure not logged as a warning: %s", logs.String())
	}
}

// inflightTransport counts requests still inside the real transport.
type inflightTransport struct {
	n atomic.Int32
}

func (tr *inflightTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	tr.n.Add(1)
	defer tr.n.Add(-1)
	return http.DefaultTransport.RoundTrip(r)
}

func TestCloseWaitsForAMissTriggeredFetch(t *testing.T) {
	srv := newJWKSServer(t, newECKey(t, "k"))
	clock := newFakeClock()
	s := urlSettings(srv.URL)
	s.MinRefreshInterval, s.now = time.Minute, clock.now
	tr := &inflightTransport{}
	s.HTTPClient = &http.Client{Transport: tr}
	v := newValidator(t, s)
	stall := make(chan struct{})
	defer close(stall)
	srv.stall.Store(&stall) // the JWKS host now hangs, like a stalled server
	header := "Bearer " + sign(t, newECKey(t, "unknown"), claims(nil), nil)
	clock.advance(time.Minute)

	done := make(chan *Failure)
	go func() {
		_, f := v.Validate(context.Background(), header)
		done <- f
	}()
	eventually(t, "the miss-triggered fetch reached the server", func() bool { return srv.hits.Load() == 2 })
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if n := tr.n.Load(); n != 0 {
		t.Fatalf("Close returned with %d fetch(es) still in flight", n)
	}
	select {
	case f := <-done:
		if f == nil || f.Status != http.StatusUnauthorized {
			t.Fatalf("Failure = %+v, want a 401", f)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Validate still hangs after Close")
	}
}

// forgedToken is a well-formed token naming kid that no key signed: what a flood of random
// kids costs an attacker is no signature at all.
func forgedToken(t testing.TB, kid string) string {
	t.Helper()
	return "Bearer " + unsigned(t, map[string]any{"alg": "ES256", "kid": kid}, claims(nil), "c2lnbmF0dXJl")
}

// While the JWKS host hangs on the refresh a miss started, a flood of random kids must not
// queue behind it: a few requests wait for the fetch, the rest are answered at once with a 503,
// a token with a known kid is checked as usual, and the JWKS host sees one fetch.
func TestAFloodOfUnknownKidsDoesNotWaitForASlowJWKSHost(t *testing.T) {
	const flood = 2000
	known := newECKey(t, "known")
	srv := newJWKSServer(t, known)
	clock := newFakeClock()
	s := urlSettings(srv.URL)
	s.MinRefreshInterval, s.now = time.Minute, clock.now
	v := newValidator(t, s)
	stall := make(chan struct{})
	released := sync.OnceFunc(func() { close(stall) })
	srv.stall.Store(&stall)
	clock.advance(time.Minute)

	results := make(chan *Failure, flood)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer released() // first, so a failing test does not wait out the fetch timeout
	for i := range flood {
		h := forgedToken(t, fmt.Sprintf("random-%d", i))
		wg.Go(func() {
			_, f := v.Validate(context.Background(), h)
			results <- f
		})
	}
	eventually(t, "the refresh reached the JWKS host", func() bool { return srv.stalled.Load() == 1 })

	statuses := map[int]int{} // -1 counts accepted forged tokens, -2 503s with a challenge
	collect := func(n int) {
		for range n {
			switch f := <-results; {
			case f == nil:
				statuses[-1]++
			case f.Status == http.StatusServiceUnavailable && f.WWWAuthenticate != "":
				statuses[-2]++
			default:
				statuses[f.Status]++
			}
		}
	}
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		collect(flood - maxRefreshWaiters)
	}()
	select {
	case <-answered:
	case <-abandonedFetch(srv):
		t.Fatalf("the flood was held until the JWKS fetch gave up; answered so far: %v", statuses)
	}
	t.Run("requests beyond the waiting bound are answered at once with 503", func(t *testing.T) {
		if statuses[http.StatusServiceUnavailable] != flood-maxRefreshWaiters {
			t.Fatalf("statuses %v, want %d 503s while the fetch hangs", statuses, flood-maxRefreshWaiters)
		}
	})
	t.Run("a token with a known kid is accepted while the fetch hangs", func(t *testing.T) {
		if !accepts(t, v, known) {
			t.Fatal("a valid token was refused")
		}
		if srv.stalled.Load() != 1 {
			t.Fatal("the fetch ended before the check")
		}
	})
	released()
	collect(maxRefreshWaiters)
	t.Run("the waiters get their 401 once the fetch ends, and the host saw one refresh", func(t *testing.T) {
		if statuses[http.StatusUnauthorized] != maxRefreshWaiters {
			t.Fatalf("statuses %v, want %d 401s from the requests that waited", statuses, maxRefreshWaiters)
		}
		if got := srv.hits.Load(); got != 2 {
			t.Fatalf("fetches = %d, want 2 (start and one refresh)", got)
		}
	})
}

// abandonedFetch is closed once the JWKS host sees a stalled fetch given up by its client.
func abandonedFetch(srv *jwksServer) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for srv.abandoned.Load() == 0 && srv.stalled.Load() > 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return done
}

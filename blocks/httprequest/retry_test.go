package httprequest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime"
)

// sequence answers the nth request with answers[n], repeating the last one.
func sequence(answers ...func(http.ResponseWriter, *http.Request)) func(http.ResponseWriter, *http.Request) {
	var n atomic.Int32
	return func(w http.ResponseWriter, r *http.Request) {
		i := min(int(n.Add(1))-1, len(answers)-1)
		answers[i](w, r)
	}
}

func status(code int, header ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, `{"status":`+strconv.Itoa(code)+`}`)
	}
}

// hangUp closes the connection without answering: a connection error.
func hangUp(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

func TestRetries(t *testing.T) {
	cases := []struct {
		name     string
		settings string
		answers  []func(http.ResponseWriter, *http.Request)
		requests int
		// slept checks the waits between attempts.
		slept func(t *testing.T, got []time.Duration)
		// wantStatus is the StatusError's status, 0 for success.
		wantStatus int
	}{
		{
			name:     "a 429 with Retry-After seconds is tried once more after exactly that wait",
			settings: "          retries: 2\n",
			answers:  []func(http.ResponseWriter, *http.Request){status(429, "Retry-After", "7"), status(200)},
			requests: 2,
			slept:    exactly(7 * time.Second),
		},
		{
			name:     "a 503 with Retry-After as an HTTP date waits until then",
			settings: "          retries: 1\n          timeout: 1m\n",
			answers: []func(http.ResponseWriter, *http.Request){func(w http.ResponseWriter, r *http.Request) {
				status(503, "Retry-After", time.Now().Add(15*time.Second).UTC().Format(http.TimeFormat))(w, r)
			}, status(200)},
			requests: 2,
			slept: func(t *testing.T, got []time.Duration) {
				// An HTTP date counts whole seconds: the wait is a little less than 15s.
				if len(got) != 1 || got[0] <= 13*time.Second || got[0] > 15*time.Second {
					t.Errorf("slept %v, want one wait of about 15s", got)
				}
			},
		},
		{
			name:       "a Retry-After past the timeout fails at once",
			settings:   "          retries: 3\n          timeout: 5s\n",
			answers:    []func(http.ResponseWriter, *http.Request){status(429, "Retry-After", "60"), status(200)},
			requests:   1,
			slept:      exactly(),
			wantStatus: 429,
		},
		{
			name:       "503s are retried as many times as retries says, then fail with the last",
			settings:   "          retries: 3\n          retryBackoff: 100ms\n",
			answers:    []func(http.ResponseWriter, *http.Request){status(503)},
			requests:   4,
			slept:      backoffs(100*time.Millisecond, 3),
			wantStatus: 503,
		},
		{
			name:     "a connection that closes unanswered is retried",
			settings: "          retries: 1\n",
			answers:  []func(http.ResponseWriter, *http.Request){hangUp, status(200)},
			requests: 2,
			slept:    backoffs(200*time.Millisecond, 1),
		},
		{
			name:       "other statuses are not retried",
			settings:   "          retries: 3\n",
			answers:    []func(http.ResponseWriter, *http.Request){status(500), status(200)},
			requests:   1,
			slept:      exactly(),
			wantStatus: 500,
		},
		{
			name:       "without retries a 503 fails at once",
			settings:   "",
			answers:    []func(http.ResponseWriter, *http.Request){status(503), status(200)},
			requests:   1,
			slept:      exactly(),
			wantStatus: 503,
		},
		{
			name:     "a POST is retried when the user says the API ignores repeats",
			settings: "          method: POST\n          body: '{\"id\": 1}'\n          retries: 1\n          retryNonIdempotent: true\n",
			answers:  []func(http.ResponseWriter, *http.Request){status(503), status(200)},
			requests: 2,
			slept:    backoffs(200*time.Millisecond, 1),
		},
		{
			name:       "an accepted status is an answer, not retried",
			settings:   "          retries: 2\n          acceptStatus: [503]\n",
			answers:    []func(http.ResponseWriter, *http.Request){status(503), status(200)},
			requests:   1,
			slept:      exactly(),
			wantStatus: 0,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec, srv := newRecorder(t, sequence(c.answers...))
			env := map[string]string{"BACKEND": srv.URL}
			r := start(t, flowOf(blockOf("          url: ${BACKEND}/x\n"+c.settings), env), env)
			_, err := r.run(t, `{}`)
			if got := rec.requests(); len(got) != c.requests {
				t.Errorf("%d requests, want %d", len(got), c.requests)
			} else if got[len(got)-1].body != got[0].body {
				t.Errorf("a retry sent %q, the first attempt %q", got[len(got)-1].body, got[0].body)
			}
			c.slept(t, r.clock.sleeps())
			var se *StatusError
			switch {
			case c.wantStatus == 0 && err != nil:
				t.Fatalf("failed: %v", err)
			case c.wantStatus != 0 && (!errors.As(err, &se) || se.Status != c.wantStatus || se.Attempts != c.requests):
				t.Fatalf("got %v, want a %d after %d attempts", err, c.wantStatus, c.requests)
			}
			if logged := strings.Count(r.log.String(), "msg=retrying "); logged != c.requests-1 {
				t.Errorf("%d retries logged, want %d:\n%s", logged, c.requests-1, r.log)
			}
		})
	}
}

func exactly(want ...time.Duration) func(t *testing.T, got []time.Duration) {
	return func(t *testing.T, got []time.Duration) {
		if len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Errorf("slept %v, want %v", got, want)
		}
	}
}

// backoffs checks n exponential waits from base, each between half and all of base·2^i.
func backoffs(base time.Duration, n int) func(t *testing.T, got []time.Duration) {
	return func(t *testing.T, got []time.Duration) {
		if len(got) != n {
			t.Fatalf("slept %v, want %d waits", got, n)
		}
		for i, d := range got {
			full := base << i
			if d < full/2 || d > full {
				t.Errorf("wait %d was %v, want between %v and %v", i+1, d, full/2, full)
			}
		}
	}
}

func TestRetryAfterIsRead(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name, value string
		want        time.Duration
		ok          bool
	}{
		{"seconds", "120", 2 * time.Minute, true},
		{"zero seconds", "0", 0, true},
		{"an HTTP date", "Fri, 02 Jan 2026 03:04:35 GMT", 30 * time.Second, true},
		{"a date in the past is now", "Fri, 02 Jan 2026 03:00:00 GMT", 0, true},
		{"negative seconds are not read", "-5", 0, false},
		{"text is not read", "soon", 0, false},
		{"none", "", 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			if c.value != "" {
				h.Set("Retry-After", c.value)
			}
			got, ok := retryAfter(h, now)
			if got != c.want || ok != c.ok {
				t.Fatalf("got %v %v, want %v %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestBackoffGrowsAndIsCapped(t *testing.T) {
	p := retryPolicy{base: 10 * time.Second}
	for n := 1; n <= 10; n++ {
		full := min(10*time.Second<<(n-1), maxBackoff)
		for range 20 {
			if d := p.backoff(n); d < full/2 || d > full {
				t.Fatalf("backoff(%d) = %v, want between %v and %v", n, d, full/2, full)
			}
		}
	}
}

// progressHeard keeps the progress reports of a run, as a router's reporter would send them, and
// signals heard (when set) at each.
type progressHeard struct {
	mu    sync.Mutex
	got   []runtime.Progress
	heard chan struct{}
}

func (h *progressHeard) ReportProgress(_ context.Context, p runtime.Progress) {
	h.mu.Lock()
	h.got = append(h.got, p)
	h.mu.Unlock()
	if h.heard != nil {
		select {
		case h.heard <- struct{}{}:
		default:
		}
	}
}

func (h *progressHeard) all() []runtime.Progress {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]runtime.Progress(nil), h.got...)
}

// A caller that asked for progress hears each retry: which attempt failed, why and how long the
// wait is, in seconds of the call's timeout, a scale that only grows.
func TestRetriesReportProgressToWhoAsked(t *testing.T) {
	_, srv := newRecorder(t, sequence(status(503), status(429, "Retry-After", "2"), status(200)))
	env := map[string]string{"BACKEND": srv.URL}
	r := start(t, flowOf(blockOf("          url: ${BACKEND}/x\n          retries: 3\n          retryBackoff: 100ms\n"), env), env)
	h := &progressHeard{}
	ctx, cancel := context.WithTimeout(runtime.WithProgress(context.Background(), h), 20*time.Second)
	defer cancel()
	if _, err := r.flow.Run(ctx, runtime.NewMessage([]byte(`{}`))); err != nil {
		t.Fatal(err)
	}
	if len(h.all()) != 2 {
		t.Fatalf("heard %+v, want two reports", h.all())
	}
	for i, p := range h.got {
		if p.Total != 10 || !strings.HasPrefix(p.Message, "attempt "+strconv.Itoa(i+1)+" failed (the backend answered ") ||
			strings.Contains(p.Message, srv.URL) {
			t.Errorf("report %d: %+v", i+1, p)
		}
	}
	if h.got[1].Progress <= h.got[0].Progress || !strings.HasSuffix(h.got[1].Message, "); trying again in 2s") {
		t.Errorf("reports: %+v", h.got)
	}
}

// A call still waiting for its answer after a second says so, each second, to a caller that asked.
func TestALongWaitReportsProgressToWhoAsked(t *testing.T) {
	release := make(chan struct{})
	_, srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		status(200)(w, r)
	})
	env := map[string]string{"BACKEND": srv.URL}
	r := start(t, flowOf(blockOf("          url: ${BACKEND}/x\n"), env), env)
	r.block.clock = realClock{}
	h := &progressHeard{heard: make(chan struct{}, 1)}
	ctx, cancel := context.WithTimeout(runtime.WithProgress(context.Background(), h), 20*time.Second)
	defer cancel()
	go func() { <-h.heard; close(release) }()
	if _, err := r.flow.Run(ctx, runtime.NewMessage([]byte(`{}`))); err != nil {
		t.Fatal(err)
	}
	if got := h.all(); len(got) != 1 || got[0].Progress < 1 || got[0].Total != 10 || got[0].Message != "waiting for the answer: 1s of 10s" {
		t.Fatalf("heard %+v", got)
	}
}

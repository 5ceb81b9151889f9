package httprequest

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/octo-run/octo/runtime"
)

// retryPolicy says which failures are tried again and how long to wait before each try.
type retryPolicy struct {
	retries int
	base    time.Duration
}

// maxBackoff caps one wait between attempts, however many came before.
const maxBackoff = 30 * time.Second

// idempotent methods may be sent twice without doing twice what they ask (RFC 9110 9.2.2).
var idempotent = map[string]bool{"GET": true, "HEAD": true, "PUT": true, "DELETE": true, "OPTIONS": true}

func buildPolicy(b *runtime.Build, s *Settings) retryPolicy {
	method := strings.ToUpper(s.Method)
	if s.Retries > 0 && !idempotent[method] && !s.RetryNonIdempotent {
		b.Errorf(&s.Retries, "%s is not idempotent, so it is never retried: a request whose answer was lost "+
			"may have been done already; set retryNonIdempotent: true if the API ignores repeats", method)
	}
	return retryPolicy{retries: s.Retries, base: s.RetryBackoff}
}

// backoff is the wait before retry n (1 for the first): the base doubled n-1 times, capped, and
// between half and all of that at random, so clients that failed together do not return together.
func (p retryPolicy) backoff(n int) time.Duration {
	d := p.base
	for i := 1; i < n && d < maxBackoff; i++ {
		d *= 2
	}
	d = min(d, maxBackoff)
	return d/2 + rand.N(d/2+1)
}

// retryable reports whether err is worth another attempt: a 429 or 503, or a connection that
// failed or broke.
func retryable(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status == http.StatusTooManyRequests || se.Status == http.StatusServiceUnavailable
	}
	var re *RequestError
	return errors.As(err, &re) && re.retry
}

// retryAfter reads a Retry-After header: delay seconds or an HTTP date (RFC 9110 10.2.3). ok is
// false when there is none or it cannot be read, and the backoff applies.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseUint(v, 10, 32); err == nil {
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// clock is the time the retries see; tests give the block one that does not wait.
type clock interface {
	now() time.Time
	// sleep waits d, or returns ctx's error when it ends first.
	sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) now() time.Time { return time.Now() }

func (realClock) sleep(ctx context.Context, d time.Duration) error { return runtime.Sleep(ctx, d) }

// call sends out until it gets an answer the block can use, a failure not worth retrying, or no
// time or retries are left.
func (blk *Block) call(ctx context.Context, out *outgoing) (*answer, error) {
	prog := progress{blk: blk, start: blk.clock.now()}
	defer prog.waiting(ctx)()
	for attempt := 1; ; attempt++ {
		res, err := blk.attempt(ctx, out)
		if err == nil {
			return res, nil
		}
		if ctxErr := blk.ended(ctx, out, attempt, err); ctxErr != nil {
			return nil, ctxErr
		}
		setAttempts(err, attempt)
		if attempt > blk.policy.retries || !retryable(err) {
			return nil, err
		}
		wait := blk.policy.backoff(attempt)
		if res != nil {
			if d, ok := retryAfter(res.header, blk.clock.now()); ok {
				wait = d
			}
		}
		deadline, _ := ctx.Deadline()
		if left := deadline.Sub(blk.clock.now()); wait >= left {
			blk.log.Warn("not retrying: the wait is past the timeout", "request", out.shown(), "attempt", attempt, "wait", wait, "left", left, "err", err)
			return nil, err
		}
		blk.log.Warn("retrying", "request", out.shown(), "attempt", attempt, "wait", wait, "err", err)
		prog.retrying(ctx, attempt, err, wait) // a caller that asked hears why it waits
		if blk.clock.sleep(ctx, wait) != nil {
			return nil, blk.ended(ctx, out, attempt, err)
		}
	}
}

// ended is the error of a call whose context is done: a timeout when its own ran out, naming
// the last failure that was not the timeout itself, else the caller's cancellation as it is.
// nil while ctx is live.
func (blk *Block) ended(ctx context.Context, out *outgoing, attempt int, last error) error {
	if ctx.Err() == nil {
		return nil
	}
	if context.Cause(ctx) != errTimeout {
		return ctx.Err()
	}
	te := &RequestError{Reason: "the backend did not answer within " + blk.timeout.String(), Timeout: true,
		Request: out.shown(), Attempts: attempt}
	var re *RequestError
	if errors.As(last, &re) && re.Err != nil && !errors.Is(re.Err, errTimeout) && !errors.Is(re.Err, context.DeadlineExceeded) {
		te.Err = re.Err
	} else if se := (*StatusError)(nil); errors.As(last, &se) {
		te.Err = errors.New(se.Message())
	}
	return te
}

func setAttempts(err error, n int) {
	var se *StatusError
	if errors.As(err, &se) {
		se.Attempts = n
	}
	var re *RequestError
	if errors.As(err, &re) {
		re.Attempts = n
	}
}

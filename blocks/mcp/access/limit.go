package access

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/octo-run/octo/blocks/jwtvalidate"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/runtime"
)

// Counter keeps the counts a rate limit is checked against: Take takes one call from key's
// allowance of burst calls, which refills at one per every interval, and says when the next
// one may come if none is left. Memory is one implementation; a cluster's would keep the
// counts where every replica sees them.
type Counter interface {
	Take(key string, now time.Time) (ok bool, retryIn time.Duration)
}

// Limit is a compiled rate limit: of a tool, or of each tool of an upstream.
type Limit struct {
	calls   int
	per     time.Duration
	by      *runtime.Expr
	counter Counter
}

// CompileLimit checks s and compiles it, counting in memory.
func CompileLimit(b *runtime.Build, s *RateSettings) *Limit {
	if s == nil {
		return nil
	}
	if s.By != nil && s.By.UsesBody() {
		b.Errorf(s.By, "rateLimit.by sees vars, headers and env, not body: it counts before a call's arguments are read")
	}
	return &Limit{calls: s.Calls, per: s.Per, by: s.By, counter: NewMemory(s.Calls, s.Per, maxKeys)}
}

// maxKeys bounds the callers one limit keeps counts for.
const maxKeys = 100_000

// Check takes one call of tool for the caller of request m, or says when to retry. Each tool
// is counted on its own.
func (l *Limit) Check(m *runtime.Message, tool string, now time.Time) *Refusal {
	if l == nil {
		return nil
	}
	key, err := l.key(m)
	key = tool + "\x00" + key
	if err != nil {
		return &Refusal{RPC: jsonrpc.NewError(CodeForbidden, "Forbidden: tool %q counts calls by rateLimit.by, which failed on this request: %v", tool, err), Status: http.StatusForbidden}
	}
	ok, wait := l.counter.Take(key, now)
	if ok {
		return nil
	}
	if wait < 0 { // the table of callers is full: refuse rather than forget a count
		return &Refusal{RPC: jsonrpc.NewError(CodeRateLimited, "Rate limited: tool %q is counting calls for too many callers at once; retry later", tool),
			Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {retryAfter(l.per)}}}
	}
	e := jsonrpc.NewError(CodeRateLimited, "Rate limited: tool %q allows %d %s per %s for each caller; retry in %s", tool, l.calls, calls(l.calls), short(l.per), short(roundUp(wait)))
	e.Data = map[string]any{"retryAfterMs": wait.Milliseconds()}
	return &Refusal{RPC: e, Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {retryAfter(wait)}}}
}

// key is who the call counts against.
func (l *Limit) key(m *runtime.Message) (string, error) {
	if l.by == nil {
		claims, _ := m.Vars[jwtvalidate.ClaimsVar].(map[string]any)
		if sub, ok := claims["sub"].(string); ok {
			return "sub:" + sub, nil
		}
		return "", nil // callers without a token share one count
	}
	v, err := l.by.Eval(m)
	if err != nil {
		return "", err
	}
	if v == nil {
		return "", nil
	}
	return fmt.Sprint(v), nil
}

// short writes d as a person would: 1m, not 1m0s.
func short(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func calls(n int) string {
	if n == 1 {
		return "call"
	}
	return "calls"
}

func roundUp(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return ((d + time.Second - 1) / time.Second) * time.Second
}

// Memory counts in this process: a token bucket per key, at most max keys. A bucket that has
// refilled is the same as none, so when the table is full those are dropped first.
type Memory struct {
	mu      sync.Mutex
	burst   float64
	every   time.Duration // one call comes back each every
	max     int
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// NewMemory counts burst calls per key, refilled one per per/burst.
func NewMemory(burst int, per time.Duration, keys int) *Memory {
	every := max(per/time.Duration(burst), time.Nanosecond)
	return &Memory{burst: float64(burst), every: every, max: keys, buckets: map[string]*bucket{}}
}

// Take takes a call from key's bucket. retryIn is how long until one is back when none is
// left, and negative when the table is full of callers still counting.
func (c *Memory) Take(key string, now time.Time) (bool, time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.buckets[key]
	if b == nil {
		if len(c.buckets) >= c.max && !c.sweep(now) {
			return false, -1
		}
		b = &bucket{tokens: c.burst, at: now}
		c.buckets[key] = b
	}
	c.refill(b, now)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) * float64(c.every))
}

func (c *Memory) refill(b *bucket, now time.Time) {
	if el := now.Sub(b.at); el > 0 {
		b.tokens = min(c.burst, b.tokens+float64(el)/float64(c.every))
		b.at = now
	}
}

// sweep drops the buckets that have refilled, and reports whether any was.
func (c *Memory) sweep(now time.Time) bool {
	n := len(c.buckets)
	for k, b := range c.buckets {
		c.refill(b, now)
		if b.tokens >= c.burst {
			delete(c.buckets, k)
		}
	}
	return len(c.buckets) < n
}

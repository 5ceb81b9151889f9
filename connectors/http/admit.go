package http

import (
	"errors"
	"io"
	"math"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync/atomic"
)

// Admission by bytes. A request costs memory in proportion to its body: the body, its decoded
// form, and an answer that may echo it (a tool that returns its 4 MiB argument answers 8 MiB,
// its text and its structuredContent). Caps on counts do not bound that: 100 concurrent 4 MiB
// arguments from one client once took a process to 2.2 GB and the kernel's OOM killer. So every
// http connector of the process takes its requests' cost from one budget before reading their
// bodies, and gives it back once the answer is written; a request that does not fit gets 503
// with Retry-After, its body read to the end and dropped.

// costFactor is what a request is charged per byte of its body: BenchmarkToolsCallHugeArgument
// (blocks/mcp/router) measures about 4.3 bytes allocated per byte for a tool echoing its
// argument into text and structuredContent, 2 for one that does not.
const costFactor = 4

// defaultBudget is the bytes in flight the process takes when GOMEMLIMIT does not say more.
const defaultBudget = 256 << 20

// inFlight is the process's budget, shared by every http connector in it.
var inFlight = newByteBudget(budgetSize(debug.SetMemoryLimit(-1)))

// budgetSize is the budget for a Go memory limit (GOMEMLIMIT; math.MaxInt64 when unset): half
// of it, at least the default.
func budgetSize(memLimit int64) int64 {
	if memLimit == math.MaxInt64 || memLimit/2 < defaultBudget {
		return defaultBudget
	}
	return memLimit / 2
}

// byteBudget counts the bytes charged against a maximum.
type byteBudget struct {
	max  int64
	used atomic.Int64
}

func newByteBudget(max int64) *byteBudget { return &byteBudget{max: max} }

// take charges n, or reports false, charging nothing, when that would pass the maximum. A
// charge larger than the whole budget still fits an empty budget, so no request is refused
// for ever.
func (b *byteBudget) take(n int64) bool {
	if n <= 0 {
		return true
	}
	if used := b.used.Add(n); used > b.max && used != n {
		b.used.Add(-n)
		return false
	}
	return true
}

func (b *byteBudget) give(n int64) {
	if n > 0 {
		b.used.Add(-n)
	}
}

// errOverBudget is the read error of a body of unannounced length that outgrew the budget.
var errOverBudget = errors.New("over the bytes-in-flight budget")

// chargedReader charges each read's bytes as a body of unannounced length arrives; charged is
// what to give back.
type chargedReader struct {
	r       io.Reader
	b       *byteBudget
	charged int64
}

func (cr *chargedReader) Read(p []byte) (int, error) {
	n, err := cr.r.Read(p)
	if n > 0 {
		if !cr.b.take(int64(n) * costFactor) {
			return n, errOverBudget
		}
		cr.charged += int64(n) * costFactor
	}
	return n, err
}

// refuseOverBudget answers 503 to a request that does not fit the budget: the client retries
// in a second, when others have been answered. unread says the body was not read to its end,
// so the connection cannot carry another request.
func (c *Connector) refuseOverBudget(w http.ResponseWriter, unread bool) {
	c.obs.reject(reasonOverBudget)
	w.Header().Set("Retry-After", "1")
	if unread {
		w.Header().Set("Connection", "close")
	}
	writeError(w, http.StatusServiceUnavailable, "too many bytes of requests in flight: this process works on at most "+
		strconv.FormatInt(inFlight.max>>20, 10)+" MiB of request bodies and what they decode to at once (half of GOMEMLIMIT, at least 256 MiB); retry shortly")
}

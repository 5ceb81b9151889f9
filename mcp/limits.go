package mcp

import (
	"errors"
	"strconv"
	"sync/atomic"

	"github.com/octo-run/octo/mcp/jsonrpc"
)

// Limits on what one POST body or stdio line may ask of a server. A 4 MiB
// body can hold tens of thousands of batched calls, and a templated answer
// can be many times its request: without these, one request could make the
// server build gigabytes of answers.
const (
	// DefaultMaxBatch is how many messages a JSON-RPC batch may hold.
	DefaultMaxBatch = 100
	// DefaultMaxResponseBytes is how many bytes of answers one POST body or
	// stdio line may produce.
	DefaultMaxResponseBytes = 16 << 20
)

func (s *Server) maxBatch() int {
	if s.MaxBatch > 0 {
		return s.MaxBatch
	}
	return DefaultMaxBatch
}

func (s *Server) maxResponseBytes() int64 {
	if s.MaxResponseBytes > 0 {
		return s.MaxResponseBytes
	}
	return DefaultMaxResponseBytes
}

// checkLimits reports limits set to what cannot work.
func (s *Server) checkLimits() error {
	var errs []error
	if s.MaxBatch < 0 {
		errs = append(errs, errors.New("server: maxBatch must be positive"))
	}
	if s.MaxResponseBytes < 0 {
		errs = append(errs, errors.New("server: maxResponseBytes must be positive"))
	}
	return errors.Join(errs...)
}

// CheckBatch refuses a batch of n messages when it is longer than the server
// takes; the whole batch gets this one error, as its messages were not read.
func (s *Server) CheckBatch(n int) *jsonrpc.Error {
	if max := s.maxBatch(); n > max {
		return jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"Invalid Request: a batch of %d messages is over the limit of %d (maxBatch); send fewer messages per request", n, max)
	}
	return nil
}

// budget is the room left for the answers to one POST body or stdio line;
// the requests of a batch share it, whether they run one after another
// (stateless) or at once (stateful).
type budget struct {
	limit  int64
	scaled bool // the limit is twice the request, more than MaxResponseBytes
	left   atomic.Int64
}

// newBudget returns a full budget for one POST body or stdio line of size
// bytes: MaxResponseBytes, or twice the request if that is more, since an
// answer as large as its request (an echo) is no amplification; what the
// budget stops is a small request made to build a huge answer.
func (s *Server) newBudget(size int) *budget {
	b := &budget{}
	b.limit, b.scaled = s.answerLimit(size)
	b.left.Store(b.limit)
	return b
}

// Budget gives rc the room for the answers to one POST body or stdio line of size bytes
// (see newBudget); the requests of a batch share one context's budget.
func (s *Server) Budget(rc *RequestContext, size int) { rc.budget = s.newBudget(size) }

// answerLimit is how many bytes the answers to a request of size bytes may take: the
// server's maxResponseBytes, or twice the request when that is more (scaled).
func (s *Server) answerLimit(size int) (limit int64, scaled bool) {
	limit = s.maxResponseBytes()
	if twice := 2 * int64(size); twice > limit {
		return twice, true
	}
	return limit, false
}

// take claims n bytes; it reports false, claiming nothing, when they do not
// fit. A nil budget has no limit.
func (b *budget) take(n int64) bool {
	if b == nil || n <= 0 {
		return true
	}
	for {
		left := b.left.Load()
		if n > left {
			return false
		}
		if b.left.CompareAndSwap(left, left-n) {
			return true
		}
	}
}

func (b *budget) give(n int64) {
	if b != nil && n > 0 {
		b.left.Add(n)
	}
}

// overBudget is the error an answer gets when it does not fit in the budget;
// size is 0 when the answer was refused before it was built.
func (b *budget) overBudget(size int64) *jsonrpc.Error {
	what := "the answer"
	if size > 0 {
		what += " (" + strconv.FormatInt(size, 10) + " bytes)"
	}
	why := "maxResponseBytes"
	if b.scaled {
		why = "twice the request's size, which is more than maxResponseBytes"
	}
	return jsonrpc.NewError(jsonrpc.CodeInternalError,
		"Internal error: %s does not fit in the %d bytes allowed for the answers to one request (%s)", what, b.limit, why)
}

// Reserve claims n bytes of the answer budget of the POST body or stdio line
// the request came in, for a provider about to build a large answer: a
// provider that knows the size of its answer before it builds it reserves it
// first, so the requests of a batch running at once cannot together build
// more than the budget. The error (an *Error, -32603) says the answer does
// not fit: return it. Without a budget (a direct Handle call) it does
// nothing.
func (rc *RequestContext) Reserve(n int) error {
	if rc == nil || rc.budget == nil || n <= 0 {
		return nil
	}
	if !rc.budget.take(int64(n)) {
		return rc.budget.overBudget(int64(n))
	}
	rc.reserved += int64(n)
	return nil
}

// FitAnswer charges the encoded answer msg to the request's budget, counting
// what the provider reserved. When it does not fit it returns an error
// answer for the same id (which costs nothing) and false.
func (rc *RequestContext) FitAnswer(id jsonrpc.ID, msg []byte) ([]byte, bool) {
	b := rc.budget
	if b == nil {
		return msg, true
	}
	reserved := rc.reserved
	rc.reserved = 0
	extra := int64(len(msg)) - reserved
	if extra <= 0 {
		b.give(-extra)
		return msg, true
	}
	if b.take(extra) {
		return msg, true
	}
	b.give(reserved)
	return jsonrpc.AppendError(nil, id, b.overBudget(int64(len(msg)))), false
}

// answer is the encoded response to a request: its result framed in place when the tool made
// a frame for it, else copied behind the envelope; an answer over the request's answer budget
// becomes the error that says so.
func (s *Server) answer(rc *RequestContext, id jsonrpc.ID, resp jsonrpc.Response, size int) []byte {
	var msg []byte
	if f := rc.framed; f != nil && resp.Error == nil && f.Frames(resp.Result) {
		msg = f.Response(id)
	} else {
		// {"jsonrpc":"2.0","id":…,"result":…}: 33 bytes around the id and the result.
		msg = jsonrpc.AppendResponse(make([]byte, 0, len(resp.Result)+len(id.String())+40), resp)
	}
	if limit, scaled := s.answerLimit(size); int64(len(msg)) > limit {
		b := &budget{limit: limit, scaled: scaled}
		msg = jsonrpc.AppendError(nil, id, b.overBudget(int64(len(msg))))
	}
	return msg
}

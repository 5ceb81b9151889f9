package session

import (
	"context"
	"sync"

	"github.com/octo-run/octo/mcp/stream"
)

// exchange is the answer to one Streamable HTTP POST carrying requests. It
// starts undecided: if every answer is ready before any handler emits a
// notification or a server→client request, the POST gets plain JSON; the
// first emission switches it to an SSE stream (§7.2.2: notifications first,
// then the responses, then the stream ends).
type exchange struct {
	q *stream.Queue
	s *Session

	mu      sync.Mutex
	calls   []*call // the requests answered here, to cancel if the client leaves
	left    bool    // the client stopped reading before the last answer
	slot    bool    // holds one of the session's streams (MaxStreamsPerSession)
	mode    uint8
	sseOK   bool     // the client accepts text/event-stream
	pending int      // answers still to come
	writers int      // emitters pushing outside the lock
	answers [][]byte // in request order, for JSON mode; nil = withheld
	early   [][]byte // answers that arrived before the switch, in order
	decided chan struct{}
}

const (
	modeUndecided = iota
	modeJSON
	modeSSE
)

// newExchange expects n answers of a POST on session s. jsonOK/sseOK say
// what the client accepts; a client that takes only SSE gets a stream at
// once, or, when the session has no stream to spare, nil.
func newExchange(s *Session, n int, jsonOK, sseOK bool) *exchange {
	e := &exchange{s: s, sseOK: sseOK, pending: n, answers: make([][]byte, n), decided: make(chan struct{})}
	switch {
	case !jsonOK:
		if !s.takeStream() {
			return nil
		}
		e.mode, e.slot = modeSSE, true
		close(e.decided)
	case !sseOK:
		e.mode = modeJSON
	}
	e.q = stream.New(s.streamPrefix(), e.leave).StallAfter(s.st.opts.StallTimeout, nil)
	e.q.OnDrain(func(ctx context.Context) { s.drainExchange(ctx, e) })
	if s.primes() && sseOK {
		e.q.Prime()
	}
	if n == 0 {
		e.finishLocked()
	}
	return e
}

// hold adds a call answered here (nil: answered at once).
func (e *exchange) hold(c *call) {
	if c == nil {
		return
	}
	e.mu.Lock()
	left := e.left
	if !left {
		e.calls = append(e.calls, c)
	}
	e.mu.Unlock()
	if left {
		c.abandon(clientLeft)
	}
}

// Why the calls of a POST are cancelled when its reader goes.
const (
	clientLeft    = "the client closed the connection"
	clientStalled = "the client did not read its answer stream"
)

// leave runs when the reader of the POST's answer goes (its queue is
// closed): calls still running can no longer be answered, since events are
// not kept for a resumed stream, so they are cancelled rather than left to
// run to their end.
func (e *exchange) leave() {
	e.mu.Lock()
	e.left = e.pending > 0
	calls := e.calls
	e.calls = nil
	slot := e.slot
	e.slot = false
	e.mu.Unlock()
	if slot {
		e.s.releaseStream()
	}
	why := clientLeft
	if e.q.IsStalled() {
		why = clientStalled
	}
	for _, c := range calls {
		if !c.finished.Load() {
			c.abandon(why)
		}
	}
}

// send implements outlet for the requests of this POST.
func (e *exchange) send(ctx context.Context, msg []byte, block bool) error {
	e.mu.Lock()
	if e.pending == 0 || !e.sseOK {
		e.mu.Unlock()
		return stream.ErrNoStream
	}
	var flush [][]byte
	if e.mode == modeUndecided {
		if !e.s.takeStream() {
			// The session holds all the streams it may: answer as JSON,
			// dropping what only a stream could carry.
			e.sseOK = false
			e.mu.Unlock()
			return stream.ErrNoStream
		}
		e.mode, e.slot, flush, e.early = modeSSE, true, e.early, nil
		close(e.decided)
	}
	e.writers++
	e.mu.Unlock()
	for _, f := range flush {
		_ = e.q.Push(context.WithoutCancel(ctx), "message", f, true)
	}
	err := e.q.Push(ctx, "message", msg, block)
	e.mu.Lock()
	e.writers--
	if e.pending == 0 && e.writers == 0 {
		e.q.End()
	}
	e.mu.Unlock()
	return err
}

// answer records the answer to request i (nil when withheld).
func (e *exchange) answer(i int, msg []byte) {
	e.mu.Lock()
	e.pending--
	if e.mode != modeSSE {
		e.answers[i] = msg
		if msg != nil {
			e.early = append(e.early, msg)
		}
		if e.pending == 0 {
			e.finishLocked()
		}
		e.mu.Unlock()
		return
	}
	e.writers++
	e.mu.Unlock()
	if msg != nil {
		// The response is never dropped for a slow reader, only when the
		// reader has gone.
		_ = e.q.Push(context.Background(), "message", msg, true)
	}
	e.mu.Lock()
	e.writers--
	if e.pending == 0 && e.writers == 0 {
		e.q.End()
	}
	e.mu.Unlock()
}

// finishLocked settles a POST whose answers are all in before any emission.
func (e *exchange) finishLocked() {
	if e.mode == modeSSE {
		if e.writers == 0 {
			e.q.End()
		}
		return
	}
	e.mode = modeJSON
	close(e.decided)
}

// json returns the JSON body once decided in JSON mode: one response, or an
// array for a batch; nil when every answer was withheld.
func (e *exchange) json(batch bool) []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !batch {
		return e.answers[0]
	}
	out := []byte{'['}
	for _, a := range e.answers {
		if a != nil {
			out = append(append(out, a...), ',')
		}
	}
	if len(out) == 1 {
		return nil
	}
	out[len(out)-1] = ']'
	return out
}

func (e *exchange) isSSE() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.mode == modeSSE
}

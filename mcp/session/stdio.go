package session

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/stream"
)

// MaxLineBytes bounds one stdio message (DESIGN.md: 64 MB on stdio); whoever
// reads the lines skips a longer one and reports it with TooLong.
const MaxLineBytes = 64 << 20

// stdioAhead is how many answers a stdio session works out ahead of a client
// that has not read what is already waiting for it.
const stdioAhead = 64

// stdioMaxOwed bounds the answers a stdio session works out at once even for
// a client that reads: past it the next line waits for one to be done, so a
// burst of lines cannot have hundreds of answers built together (nor reach
// the in-flight limit and be refused as busy).
const stdioMaxOwed = 256

// Stdio is the one session of a stdio transport (mcp-protocol.md
// §7.1). Whoever reads the lines (the stdio connector, through mcp-mock)
// hands each to Line; Next yields the messages to write, one per line, in
// the order they were produced.
//
// A client that does not read what it is sent is not read from either: Line
// waits while the outbox is full, or while it is not empty and stdioAhead
// answers are still being worked out (calls waiting for the client to answer
// a question aside). The client's pipe then fills and it blocks, instead of
// octo holding every answer. A client that reads is never held back, however
// many calls it has running.
type Stdio struct {
	s *Session
	q *stream.Queue

	owed     atomic.Int64  // answers Line expects that are not in the outbox yet
	answered chan struct{} // cap 1: one of them went in
	took     chan struct{} // cap 1: the writer took a line (Next)

	mu       sync.Mutex
	draining bool
	force    chan struct{} // closed when the calls left must be stopped
	forced   sync.Once
}

// OpenStdio opens a stdio session; it fails with ErrClosed after Close.
func (st *Front) OpenStdio() (*Stdio, error) {
	s := st.newSession(TransportStdio)
	q := stream.New("", nil)
	s.stream = q
	if err := st.register(s); err != nil {
		s.cancel()
		return nil, err
	}
	return &Stdio{s: s, q: q, answered: make(chan struct{}, 1), took: make(chan struct{}, 1),
		force: make(chan struct{})}, nil
}

// Line handles one line read, without its \n or \r\n; lines come one at a
// time, from one goroutine. It first waits for its turn (see Stdio),
// or until ctx or the session ends. After EndInput or Drain requests are
// answered with an error; answers to the server's questions are still taken.
func (ss *Stdio) Line(ctx context.Context, data []byte) {
	if ss.waitTurn(ctx) != nil || len(bytes.TrimSpace(data)) == 0 {
		return
	}
	s := ss.s
	msgs, batch, perr := jsonrpc.Decode(data)
	if perr != nil {
		s.st.observe(s, TrafficEvent{Direction: DirIn, Kind: TrafficInvalid, Summary: "invalid message: " + perr.Message})
		s.push(jsonrpc.AppendError(nil, jsonrpc.ID{}, perr))
		return
	}
	if batch || msgs[0].Kind == jsonrpc.KindRequest || msgs[0].Kind == jsonrpc.KindInvalid {
		ss.owed.Add(1) // deliver answers it exactly once
	}
	s.deliver(ctx, msgs, batch, mcp.RequestContext{}, data, ss.answer)
}

// answer puts an answer Line owed in the outbox (nil: it was withheld).
func (ss *Stdio) answer(msg []byte) {
	ss.s.push(msg)
	ss.owed.Add(-1)
	wake(ss.answered)
}

// waitTurn waits until the next line may be handled (see Stdio).
// Calls that wait for the client to answer a question do not count: that
// answer is in the lines to come. It fails once the session or the outbox
// ended, or when ctx ends.
func (ss *Stdio) waitTurn(ctx context.Context) error {
	q := ss.q
	for {
		over, full, queued := q.Load()
		backlog := queued > 0
		if over {
			return stream.ErrNoStream
		}
		if owed := ss.owed.Load() - int64(ss.s.asking()); !full && owed < stdioMaxOwed && (!backlog || owed < stdioAhead) {
			return nil
		}
		select {
		case <-ss.took: // room, or a question went out
		case <-ss.answered:
		case <-q.Gone():
		case <-q.Ended():
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// asking counts the questions to the client waiting for its answer.
func (s *Session) asking() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

// TooLong answers a line that was not read because it is longer than limit
// bytes: a parse error without an id, since the id was not read either.
func (ss *Stdio) TooLong(ctx context.Context, limit int) {
	if ss.waitTurn(ctx) != nil {
		return
	}
	perr := jsonrpc.NewError(jsonrpc.CodeParseError, "Parse error: the line is longer than the limit of %d bytes", limit)
	ss.s.st.observe(ss.s, TrafficEvent{Direction: DirIn, Kind: TrafficInvalid, Summary: "invalid message: " + perr.Message})
	ss.s.push(jsonrpc.AppendError(nil, jsonrpc.ID{}, perr))
}

// Next implements stream.Stream: the next message to write as one line. It
// returns io.EOF once the session has ended and everything is written.
func (ss *Stdio) Next(ctx context.Context) (stream.Event, error) {
	ev, err := ss.q.Next(ctx)
	if err == nil {
		wake(ss.took)
	}
	if err == nil && bytes.ContainsAny(ev.Data, "\r\n") {
		// A provider's raw JSON may be indented; a line must not break.
		var c bytes.Buffer
		if json.Compact(&c, ev.Data) == nil {
			ev.Data = c.Bytes()
		}
	}
	return ev, err
}

// EndInput says that no line will follow: the input reached its end. The
// requests read so far finish and are answered, questions to the client
// fail (nobody can answer them now), and then the session ends.
func (ss *Stdio) EndInput() {
	ss.drain()
	ss.s.failQuestions(errInputEnded)
}

// errInputEnded answers the server's questions still open when the client's
// input ends.
var errInputEnded = jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the client's input ended before it answered")

// Drain implements the runtime's Drainer: the server is stopping. As after
// EndInput, the requests in flight finish; those still running at three
// quarters of the time ctx has left are answered with an error instead.
func (ss *Stdio) Drain(ctx context.Context) {
	ss.drain()
	go func() {
		force, stop := forceAt(ctx)
		defer stop()
		select {
		case <-force:
			ss.forced.Do(func() { close(ss.force) })
		case <-ss.s.Done():
		}
	}()
}

// drain starts, once, what ends the session when its calls are done.
func (ss *Stdio) drain() {
	ss.mu.Lock()
	started := ss.draining
	ss.draining = true
	ss.mu.Unlock()
	if started {
		return
	}
	done := ss.s.refuseCalls()
	go func() {
		ss.s.awaitCalls(done, ss.force)
		ss.s.end(EndEOF)
	}()
}

// Close implements stream.Stream: nobody reads the output any more, so the
// session ends at once.
func (ss *Stdio) Close() error {
	ss.q.Close()
	ss.s.end(EndEOF)
	return nil
}

// failQuestions answers every pending server→client request with e.
func (s *Session) failQuestions(e *jsonrpc.Error) {
	s.mu.Lock()
	pending := s.pending
	s.pending = make(map[jsonrpc.ID]*pendingRequest)
	s.mu.Unlock()
	for id, p := range pending {
		p.ch <- &jsonrpc.Message{Kind: jsonrpc.KindResponse, Request: jsonrpc.Request{ID: id}, Error: e}
	}
}

var _ stream.Stream = (*Stdio)(nil)

// wake signals c (cap 1) without waiting: a wake-up already pending is enough.
func wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

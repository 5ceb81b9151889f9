// Package stream is the bounded event queue behind every stream an MCP server writes to its
// client: a POST's SSE answer, a GET standalone stream, a legacy SSE stream, a stdio session's
// outbox. A producer faster than its reader is held back (backpressure) or, for a broadcast,
// dropped; a reader that takes nothing for the stall timeout has its queue given up. It knows
// nothing of JSON-RPC or sessions: events are names and bytes.
package stream

import (
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"
)

// Bounds of one queue, in events and in bytes of data. A producer faster
// than its client reads is held back when the queue is full (backpressure),
// and a broadcast to a full queue is dropped, so a client that does not read
// costs at most this much and never stalls the others.
const (
	MaxEvents = 256
	MaxBytes  = 1 << 20
)

// PrimingRetry is the reconnect delay (ms) the priming event suggests.
const PrimingRetry = 1000

var (
	// ErrFull: an event that may not wait was dropped, the queue being full.
	ErrFull = errors.New("stream full")
	// ErrStalled: the reader of a full queue took nothing for the stall
	// timeout; the queue is given up.
	ErrStalled = errors.New("the client stopped reading its stream")
	// ErrNoStream: nothing can carry a server→client message right now (the queue ended or
	// its reader left; a JSON-only client, no open GET stream, or a stateless server).
	ErrNoStream = errors.New("no stream to the client")
)

// Queue is a Stream the server feeds: a POST's answer stream, a GET
// standalone stream, a legacy SSE stream, or a stdio session's outbox.
type Queue struct {
	mu      sync.Mutex
	events  []Event
	bytes   int  // data bytes in events
	waiting int  // data bytes of producers waiting for room
	ended   bool // no events after the buffered ones
	closed  bool // the reader is gone: drop everything
	stalled bool // the reader stopped taking: being given up
	prefix  string
	seq     uint64
	// progress is when the reader last took an event or, if later, when
	// the queue last went from empty to not: the start of the reader's
	// window before it counts as stalled.
	progress time.Time
	stall    time.Duration
	onStall  func()

	wake    chan struct{} // cap 1: an event, end or close happened (wakes the reader)
	changed chan struct{} // made by a waiting producer, closed when room may have come
	done    chan struct{} // closed by Close
	fin     chan struct{} // closed by end
	onClose func()
	onDrain func(context.Context) // see Drain; set before the queue is handed out
}

// New returns a queue whose events get ids "<prefix><n>" (no ids when
// prefix is ""). onClose runs once, when the reader closes the stream. Its
// producers wait for a slow reader for as long as it takes, unless
// StallAfter says otherwise (as a session's own stream does: GET, legacy SSE,
// stdio outbox).
func New(prefix string, onClose func()) *Queue {
	return &Queue{
		prefix: prefix, onClose: onClose,
		wake: make(chan struct{}, 1), done: make(chan struct{}), fin: make(chan struct{}),
	}
}

// StallAfter sets the stall timeout: a reader that takes nothing from the
// full queue for d while a producer waits stalls it, and the queue closes
// (0: never). onStall runs first, in its own goroutine.
func (q *Queue) StallAfter(d time.Duration, onStall func()) *Queue {
	q.mu.Lock()
	q.stall, q.onStall = d, onStall
	q.mu.Unlock()
	return q
}

// Event is one server-sent event: its id ("" for none), name ("" for the default "message"),
// data, and a reconnect hint in ms (0: none). An empty Data with an ID is a 2025-11-25
// priming event.
type Event struct {
	ID, Name string
	Data     []byte
	Retry    int
}

// Stream yields server-sent events. Next blocks until the next event,
// returns io.EOF once the stream has ended and ctx.Err() when ctx is done
// (which does not end the stream). Close tells the server the reader is gone;
// it is safe to call more than once. Drain says the server is stopping: the
// stream delivers the answers it owes, answering with an error the calls
// that cannot finish before ctx ends, and then ends.
type Stream interface {
	Next(ctx context.Context) (Event, error)
	Close() error
	Drain(ctx context.Context)
}

// OnDrain sets what Drain does: the owner's drain of a stream that owes answers. Set it
// before the queue is handed out.
func (q *Queue) OnDrain(f func(context.Context)) { q.onDrain = f }

// Drain implements Stream: its owner's drain (OnDrain) when it owes answers, otherwise
// (a GET stream) it ends at once.
func (q *Queue) Drain(ctx context.Context) {
	if q.onDrain != nil {
		q.onDrain(ctx)
		return
	}
	q.End()
}

// Held is what the queue holds: its events' data bytes, and whether a producer waits for room.
func (q *Queue) Held() (bytes int, producerWaiting bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.bytes, q.waiting > 0
}

// Ended is closed once End was called.
func (q *Queue) Ended() <-chan struct{} { return q.fin }

// Gone is closed once the reader closed the stream.
func (q *Queue) Gone() <-chan struct{} { return q.done }

// Load says whether the queue is over (ended or closed), full (input should wait for the
// reader) and how many events it holds.
func (q *Queue) Load() (over, full bool, queued int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed || q.ended, !q.roomLocked(), len(q.events)
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Next implements Stream.
func (q *Queue) Next(ctx context.Context) (Event, error) {
	for {
		q.mu.Lock()
		if len(q.events) > 0 && !q.closed {
			ev := q.events[0]
			q.events[0] = Event{}
			q.events = q.events[1:]
			q.bytes -= len(ev.Data)
			q.progress = time.Now()
			q.changedLocked()
			q.mu.Unlock()
			return ev, nil
		}
		over := q.ended || q.closed
		q.mu.Unlock()
		if over {
			return Event{}, io.EOF
		}
		select {
		case <-q.wake:
		case <-q.done:
		case <-ctx.Done():
			return Event{}, ctx.Err()
		}
	}
}

// Close implements Stream: the reader is gone.
func (q *Queue) Close() error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return nil
	}
	q.closed, q.events, q.bytes = true, nil, 0
	close(q.done)
	q.changedLocked()
	q.mu.Unlock()
	if q.onClose != nil {
		q.onClose()
	}
	return nil
}

// IsClosed reports whether the reader has gone.
func (q *Queue) IsClosed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

// IsStalled reports whether the queue was given up for a stalled reader.
func (q *Queue) IsStalled() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.stalled
}

// End lets the reader drain what is buffered and then see io.EOF.
func (q *Queue) End() {
	q.mu.Lock()
	if !q.ended {
		q.ended = true
		close(q.fin)
	}
	q.changedLocked()
	q.mu.Unlock()
	signal(q.wake)
}

// Push adds an event named name carrying data. When the queue is full it
// waits for room if block is set (until ctx ends, the reader leaves or
// stalls: ctx.Err(), ErrNoStream, ErrStalled), and otherwise drops the
// event with ErrFull.
func (q *Queue) Push(ctx context.Context, name string, data []byte, block bool) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for waited := false; ; {
		if err := q.goneLocked(); err != nil {
			return err
		}
		if q.fitsLocked(len(data)) {
			q.appendLocked(Event{Name: name, Data: data})
			signal(q.wake)
			return nil
		}
		if !block {
			return ErrFull
		}
		if !waited {
			// A waiting producer's data counts against the room input
			// waits for (WaitRoom), as it is held in memory too.
			waited = true
			q.waiting += len(data)
			defer func() { q.waiting -= len(data) }()
		}
		if err := q.waitLocked(ctx); err != nil {
			return err
		}
	}
}

// WaitRoom waits until the queue has room, so a client's input is not taken
// while it does not read what it already asked for (backpressure). It fails
// as push does.
func (q *Queue) WaitRoom(ctx context.Context) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if err := q.goneLocked(); err != nil {
			return err
		}
		if q.roomLocked() {
			return nil
		}
		if err := q.waitLocked(ctx); err != nil {
			return err
		}
	}
}

// HasRoom reports whether WaitRoom would return at once.
func (q *Queue) HasRoom() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.roomLocked()
}

func (q *Queue) roomLocked() bool {
	return len(q.events) < MaxEvents && q.bytes+q.waiting < MaxBytes
}

func (q *Queue) goneLocked() error {
	switch {
	case q.stalled:
		return ErrStalled
	case q.closed || q.ended:
		return ErrNoStream
	}
	return nil
}

// fitsLocked reports whether an event of n bytes fits; one larger than the
// whole bound enters an empty queue, alone.
func (q *Queue) fitsLocked(n int) bool {
	return len(q.events) < MaxEvents && (q.bytes+n <= MaxBytes || len(q.events) == 0)
}

// waitLocked waits, with q.mu held on entry and on return, until the reader
// takes an event, the queue ends or closes, or ctx ends. When the reader has
// taken nothing for the stall timeout, the queue is given up: ErrStalled.
func (q *Queue) waitLocked(ctx context.Context) error {
	if q.changed == nil {
		q.changed = make(chan struct{})
	}
	changed := q.changed
	var expired <-chan time.Time
	if q.stall > 0 {
		t := time.NewTimer(q.stall - time.Since(q.progress))
		defer t.Stop()
		expired = t.C
	}
	q.mu.Unlock()
	var err error
	select {
	case <-changed:
	case <-ctx.Done():
		err = ctx.Err()
	case <-expired:
	}
	q.mu.Lock()
	if err == nil && q.stall > 0 && q.goneLocked() == nil && time.Since(q.progress) >= q.stall {
		q.stallLocked()
		return ErrStalled
	}
	return err
}

// stallLocked gives the queue up: every waiter fails, onStall runs and the
// queue closes, outside the lock.
func (q *Queue) stallLocked() {
	q.stalled = true
	q.changedLocked()
	onStall := q.onStall
	go func() {
		if onStall != nil {
			onStall()
		}
		q.Close()
	}()
}

// changedLocked wakes the producers waiting for room.
func (q *Queue) changedLocked() {
	if q.changed != nil {
		close(q.changed)
		q.changed = nil
	}
}

// Prime queues the 2025-11-25 priming event: an id and empty data, with a
// reconnect hint (mcp-protocol.md §7.2.2, SEP-1699).
func (q *Queue) Prime() {
	q.mu.Lock()
	q.appendLocked(Event{Data: []byte{}, Retry: PrimingRetry})
	q.mu.Unlock()
	signal(q.wake)
}

func (q *Queue) appendLocked(ev Event) {
	if q.prefix != "" {
		ev.ID = q.prefix + strconv.FormatUint(q.seq, 10)
		q.seq++
	}
	if len(q.events) == 0 {
		q.progress = time.Now()
	}
	q.bytes += len(ev.Data)
	q.events = append(q.events, ev)
}

var _ Stream = (*Queue)(nil)

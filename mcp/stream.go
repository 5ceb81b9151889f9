package mcp

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
	queueMaxEvents = 256
	queueMaxBytes  = 1 << 20
)

// DefaultStallTimeout is how long a full queue's reader may take nothing
// while a producer waits before the queue is given up (StatefulOptions).
const DefaultStallTimeout = 30 * time.Second

// primingRetry is the reconnect delay (ms) the priming event suggests.
const primingRetry = 1000

var (
	errQueueFull = errors.New("stream full")
	// errStalled: the reader of a full queue took nothing for the stall
	// timeout; the queue is given up.
	errStalled = errors.New("the client stopped reading its stream")
)

// queue is an EventStream the server feeds: a POST's answer stream, a GET
// standalone stream, a legacy SSE stream, or a stdio session's outbox.
type queue struct {
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
	onDrain func(context.Context) // see Drain (drain.go); set before the queue is handed out
}

// newQueue returns a queue whose events get ids "<prefix><n>" (no ids when
// prefix is ""). onClose runs once, when the reader closes the stream. Its
// producers wait for a slow reader for as long as it takes, unless
// stallAfter says otherwise; a session's own stream (GET, legacy SSE, stdio
// outbox) is made by ServerSession.sessionStream, which does.
func newQueue(prefix string, onClose func()) *queue {
	return &queue{
		prefix: prefix, onClose: onClose,
		wake: make(chan struct{}, 1), done: make(chan struct{}), fin: make(chan struct{}),
	}
}

// stallAfter sets the stall timeout: a reader that takes nothing from the
// full queue for d while a producer waits stalls it, and the queue closes
// (0: never). onStall runs first, in its own goroutine.
func (q *queue) stallAfter(d time.Duration, onStall func()) *queue {
	q.mu.Lock()
	q.stall, q.onStall = d, onStall
	q.mu.Unlock()
	return q
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Next implements EventStream.
func (q *queue) Next(ctx context.Context) (Event, error) {
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

// Close implements EventStream: the reader is gone.
func (q *queue) Close() error {
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

// isClosed reports whether the reader has gone.
func (q *queue) isClosed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

// isStalled reports whether the queue was given up for a stalled reader.
func (q *queue) isStalled() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.stalled
}

// end lets the reader drain what is buffered and then see io.EOF.
func (q *queue) end() {
	q.mu.Lock()
	if !q.ended {
		q.ended = true
		close(q.fin)
	}
	q.changedLocked()
	q.mu.Unlock()
	signal(q.wake)
}

// push adds an event named name carrying data. When the queue is full it
// waits for room if block is set (until ctx ends, the reader leaves or
// stalls: ctx.Err(), ErrNoStream, errStalled), and otherwise drops the
// event with errQueueFull.
func (q *queue) push(ctx context.Context, name string, data []byte, block bool) error {
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
			return errQueueFull
		}
		if !waited {
			// A waiting producer's data counts against the room input
			// waits for (waitRoom), as it is held in memory too.
			waited = true
			q.waiting += len(data)
			defer func() { q.waiting -= len(data) }()
		}
		if err := q.waitLocked(ctx); err != nil {
			return err
		}
	}
}

// waitRoom waits until the queue has room, so a client's input is not taken
// while it does not read what it already asked for (backpressure). It fails
// as push does.
func (q *queue) waitRoom(ctx context.Context) error {
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

// hasRoom reports whether waitRoom would return at once.
func (q *queue) hasRoom() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.roomLocked()
}

func (q *queue) roomLocked() bool {
	return len(q.events) < queueMaxEvents && q.bytes+q.waiting < queueMaxBytes
}

// fullLocked reports whether input should wait for the reader (no room).
func (q *queue) fullLocked() bool { return !q.roomLocked() }

func (q *queue) goneLocked() error {
	switch {
	case q.stalled:
		return errStalled
	case q.closed || q.ended:
		return ErrNoStream
	}
	return nil
}

// fitsLocked reports whether an event of n bytes fits; one larger than the
// whole bound enters an empty queue, alone.
func (q *queue) fitsLocked(n int) bool {
	return len(q.events) < queueMaxEvents && (q.bytes+n <= queueMaxBytes || len(q.events) == 0)
}

// waitLocked waits, with q.mu held on entry and on return, until the reader
// takes an event, the queue ends or closes, or ctx ends. When the reader has
// taken nothing for the stall timeout, the queue is given up: errStalled.
func (q *queue) waitLocked(ctx context.Context) error {
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
		return errStalled
	}
	return err
}

// stallLocked gives the queue up: every waiter fails, onStall runs and the
// queue closes, outside the lock.
func (q *queue) stallLocked() {
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
func (q *queue) changedLocked() {
	if q.changed != nil {
		close(q.changed)
		q.changed = nil
	}
}

// prime queues the 2025-11-25 priming event: an id and empty data, with a
// reconnect hint (mcp-protocol.md §7.2.2, SEP-1699).
func (q *queue) prime() {
	q.mu.Lock()
	q.appendLocked(Event{Data: []byte{}, Retry: primingRetry})
	q.mu.Unlock()
	signal(q.wake)
}

func (q *queue) appendLocked(ev Event) {
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

var _ EventStream = (*queue)(nil)

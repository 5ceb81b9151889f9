package mcp

import (
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
)

// queueMax bounds how many events wait for a slow reader. A handler that
// produces faster than its client reads is held back (backpressure); a
// broadcast to a full queue is dropped instead, so one slow client never
// stalls the others.
const queueMax = 256

// primingRetry is the reconnect delay (ms) the priming event suggests.
const primingRetry = 1000

var errQueueFull = errors.New("stream full")

// queue is an EventStream the server feeds: a POST's answer stream, a GET
// standalone stream, a legacy SSE stream, or a stdio session's outbox.
type queue struct {
	mu     sync.Mutex
	events []Event
	ended  bool // no events after the buffered ones
	closed bool // the reader is gone: drop everything
	prefix string
	seq    uint64

	wake    chan struct{} // cap 1: an event, end or close happened
	room    chan struct{} // cap 1: the reader took an event
	done    chan struct{} // closed by Close
	fin     chan struct{} // closed by end
	onClose func()
	onDrain func(context.Context) // see Drain (drain.go); set before the queue is handed out
}

// newQueue returns a queue whose events get ids "<prefix><n>" (no ids when
// prefix is ""). onClose runs once, when the reader closes the stream.
func newQueue(prefix string, onClose func()) *queue {
	return &queue{
		prefix: prefix, onClose: onClose,
		wake: make(chan struct{}, 1), room: make(chan struct{}, 1),
		done: make(chan struct{}), fin: make(chan struct{}),
	}
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
			q.mu.Unlock()
			signal(q.room)
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
	q.closed, q.events = true, nil
	close(q.done)
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

// end lets the reader drain what is buffered and then see io.EOF.
func (q *queue) end() {
	q.mu.Lock()
	if !q.ended {
		q.ended = true
		close(q.fin)
	}
	q.mu.Unlock()
	signal(q.wake)
}

// push adds an event named name carrying data. When the queue is full it
// waits for room if block is set (until ctx ends or the reader leaves), and
// otherwise drops the event with errQueueFull.
func (q *queue) push(ctx context.Context, name string, data []byte, block bool) error {
	for {
		q.mu.Lock()
		if q.closed || q.ended {
			q.mu.Unlock()
			return ErrNoStream
		}
		if !q.fullLocked() {
			q.appendLocked(Event{Name: name, Data: data})
			q.mu.Unlock()
			signal(q.wake)
			return nil
		}
		q.mu.Unlock()
		if !block {
			return errQueueFull
		}
		select {
		case <-q.room:
		case <-q.done:
		case <-q.fin:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// fullLocked reports whether push must wait (or drop) for now.
func (q *queue) fullLocked() bool { return len(q.events) >= queueMax }

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
	q.events = append(q.events, ev)
}

var _ EventStream = (*queue)(nil)

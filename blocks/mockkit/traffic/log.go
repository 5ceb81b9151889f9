// Package traffic is what a mock server (mcp-mock, http-mock) does with its traffic: each
// request and answer written to the log by one goroutine that never holds a client up, and
// handed to the app's store through a Tap.
package traffic

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/octo-run/octo/mcp/logsafe"
	"github.com/octo-run/octo/mcp/session"
)

// trafficQueue bounds the events waiting to be logged; beyond it events are
// counted and dropped, so a slow log never holds up a client.
const trafficQueue = 4096

// trafficQueueBytes bounds the message bodies those events hold: beyond it
// an event is logged without its body, so a burst of large answers is not
// kept in memory for the log's sake.
const trafficQueueBytes = 16 << 20

// Log turns traffic events into log records, written by one goroutine: whoever observes
// must never block.
type Log struct {
	logger  *slog.Logger
	server  string
	events  chan session.TrafficEvent
	dropped atomic.Int64
	queued  atomic.Int64 // bytes of the bodies in events
	trimmed atomic.Int64 // bodies left out since the last warning

	mu   sync.Mutex
	done chan struct{}
	live bool
}

// NewLog returns the log of server; Start it before the first event.
func NewLog(logger *slog.Logger, server string) *Log {
	return &Log{logger: logger, server: logsafe.String(server), events: make(chan session.TrafficEvent, trafficQueue)}
}

// Observe queues an event (session.Options.Observer); past the queue's bounds it is counted and
// dropped, or logged without its body.
func (t *Log) Observe(ev session.TrafficEvent) {
	if n := int64(len(ev.Message)); n > 0 && t.queued.Add(n) > trafficQueueBytes {
		t.queued.Add(-n)
		ev.Message = nil
		t.trimmed.Add(1)
	}
	select {
	case t.events <- ev:
	default:
		t.queued.Add(-int64(len(ev.Message)))
		t.dropped.Add(1)
	}
}

// Start starts the writer; it is safe to call again.
func (t *Log) Start() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.live {
		return
	}
	t.live, t.done = true, make(chan struct{})
	go t.run(t.done)
}

// Stop writes what is queued and ends the writer.
func (t *Log) Stop() {
	t.mu.Lock()
	if !t.live {
		t.mu.Unlock()
		return
	}
	t.live = false
	done := t.done
	t.mu.Unlock()
	t.events <- session.TrafficEvent{Kind: stopEvent}
	<-done
}

// stopEvent is the writer's signal to finish; it is never logged.
const stopEvent session.TrafficKind = "octo-stop"

func (t *Log) run(done chan struct{}) {
	defer close(done)
	for ev := range t.events {
		if ev.Kind == stopEvent {
			return
		}
		t.write(ev)
		t.queued.Add(-int64(len(ev.Message)))
		if n := t.dropped.Swap(0); n > 0 {
			t.logger.Warn("traffic log fell behind; events dropped", "server", t.server, "dropped", n)
		}
		if n := t.trimmed.Swap(0); n > 0 {
			t.logger.Warn("traffic log fell behind; message bodies left out", "server", t.server, "bodies", n)
		}
	}
}

// write logs one event: the summary as the message, the full JSON as the
// "message" attribute.
func (t *Log) write(ev session.TrafficEvent) {
	attrs := make([]slog.Attr, 0, 8)
	attrs = append(attrs, slog.String("server", t.server), slog.String("session", ev.Session),
		slog.String("transport", string(ev.Transport)), slog.String("kind", string(ev.Kind)))
	if ev.Direction != "" {
		attrs = append(attrs, slog.String("direction", string(ev.Direction)))
	}
	if ev.Version != "" { // a request with no session: the revision it came with
		attrs = append(attrs, slog.String("version", ev.Version))
	}
	if !ev.ID.IsZero() {
		attrs = append(attrs, slog.String("id", ev.ID.String()))
	}
	if ev.Reason != "" {
		attrs = append(attrs, slog.String("reason", string(ev.Reason)))
	}
	if ev.Kind == session.TrafficRejected {
		attrs = append(attrs, slog.Int("status", ev.Status), slog.Int("code", ev.Code))
	}
	if len(ev.Message) > 0 {
		attrs = append(attrs, slog.Any("message", ev.Message))
	}
	msg := ev.Summary
	level := slog.LevelInfo
	switch ev.Kind {
	case session.TrafficSessionOpened:
		msg = "session opened"
	case session.TrafficSessionClosed:
		msg = "session closed"
		if ev.Reason == session.EndStalled || ev.Reason == session.EndEvicted {
			msg, level = ev.Summary, slog.LevelWarn // the summary says why the server ended it
		}
	case session.TrafficInvalid, session.TrafficError, session.TrafficRejected:
		level = slog.LevelWarn
	}
	t.logger.LogAttrs(context.Background(), level, msg, attrs...)
}

package session

import (
	"context"
	"time"
)

// This file is how a stateful server stops without leaving a client in
// silence. A connector that stops drains the streams it writes (the
// runtime's Drainer): each delivers the answers it owes and then ends, and a
// call that cannot finish in time is answered with mcp.ErrShuttingDown.

// forceAt returns a channel that closes when a drain bounded by ctx must stop
// waiting for calls: at three quarters of the time ctx has left, so the last
// quarter writes the errors, or when ctx ends. Call stop when done with it.
func forceAt(ctx context.Context) (force <-chan struct{}, stop func()) {
	dl, ok := ctx.Deadline()
	if !ok {
		return ctx.Done(), func() {}
	}
	fctx, cancel := context.WithDeadline(ctx, time.Now().Add(time.Until(dl)*3/4))
	return fctx.Done(), cancel
}

// stopCalls cancels the calls in flight that match, to be answered with
// mcp.ErrShuttingDown.
func (s *Session) stopCalls(match func(*call) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.inflight {
		if match(c) {
			c.stopped.Store(true)
			c.cancel()
		}
	}
}

// refuseCalls makes new calls be answered with mcp.ErrShuttingDown and returns
// a channel closed once the calls in flight have answered.
func (s *Session) refuseCalls() <-chan struct{} {
	s.mu.Lock()
	s.draining = true // track adds to s.calls under s.mu: no Add after this
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.calls.Wait()
		close(done)
	}()
	return done
}

// awaitCalls waits until done (see refuseCalls) closes. When force closes
// first, the calls left are stopped and waited for. It returns early if the
// session ends.
func (s *Session) awaitCalls(done, force <-chan struct{}) {
	select {
	case <-done:
		return
	case <-s.ctx.Done():
		return
	case <-force:
		s.stopCalls(func(*call) bool { return true })
	}
	select {
	case <-done:
	case <-s.ctx.Done():
	}
}

// drainExchange is the drain of a POST answered as a stream: it ends by
// itself once every request is answered; those still running when the drain
// is forced are stopped.
func (s *Session) drainExchange(ctx context.Context, e *exchange) {
	go func() {
		force, stop := forceAt(ctx)
		defer stop()
		select {
		case <-e.q.Ended():
		case <-e.q.Gone():
		case <-force:
			s.stopCalls(func(c *call) bool { return c.out == outlet(e) })
		}
	}()
}

// drainSession is the drain of a session's single stream (legacy SSE): the
// calls finish (or are stopped when forced), then the session ends.
func (s *Session) drainSession(ctx context.Context) {
	done := s.refuseCalls()
	go func() {
		force, stop := forceAt(ctx)
		defer stop()
		s.awaitCalls(done, force)
		s.end(EndClosed)
	}()
}

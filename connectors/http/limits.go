package http

import (
	"io"
	"net/http"
	"runtime/debug"
	"strconv"

	"github.com/octo-run/octo/runtime"
)

// Limits every http connector enforces besides the server's own (body, header size, header
// read and idle timeouts): a cap on requests being worked on at once, and a separate cap on
// open event streams. A request counts as in flight from arrival until its answer is written;
// when its flow answers with a stream it moves to the stream count for as long as the stream
// stays open, so held-open sessions never use up the slots short calls need.

const (
	defaultMaxInFlight = 1024
	defaultMaxStreams  = 1024
)

// admit screens a request (origin, host, CORS) and takes an in-flight slot. It answers the
// request itself and returns false when the request must go no further; otherwise the caller
// must defer leave.
func (c *Connector) admit(w http.ResponseWriter, r *http.Request) bool {
	if !c.screen(w, r) {
		return false
	}
	g := c.settings.guard
	if g.inFlight.Add(1) > g.maxInFlight {
		g.inFlight.Add(-1)
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "too many requests in flight (limit "+strconv.FormatInt(g.maxInFlight, 10)+"); retry shortly")
		return false
	}
	return true
}

// leave gives the in-flight slot back and turns a panic in a flow into a logged 500, so no
// input can take the process down.
func (c *Connector) leave(w http.ResponseWriter, r *http.Request) {
	c.settings.guard.inFlight.Add(-1)
	if rec := recover(); rec != nil {
		if rec == http.ErrAbortHandler {
			panic(rec) // net/http's own way to abort a response; it is not a failure
		}
		c.logger.Error("panic while serving a request", "path", r.URL.Path, "panic", rec, "stack", string(debug.Stack()))
		writeError(w, http.StatusInternalServerError, "internal error")
	}
}

// streamStarts moves a request from the in-flight count to the stream count. When the stream
// cap is reached it answers 503, closes the stream and returns false; otherwise the caller must
// defer streamEnds.
func (c *Connector) streamStarts(w http.ResponseWriter, s runtime.Stream) bool {
	g := c.settings.guard
	if g.streams.Add(1) > g.maxStreams {
		g.streams.Add(-1)
		if closer, ok := s.(io.Closer); ok {
			_ = closer.Close()
		}
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, "too many open event streams (limit "+strconv.FormatInt(g.maxStreams, 10)+"); retry later")
		return false
	}
	g.inFlight.Add(-1)
	return true
}

// streamEnds gives the stream slot back and takes the in-flight slot again, for leave to
// release. A panic while streaming is logged and ends the stream: the status line is already
// sent, so there is no error to answer with.
func (c *Connector) streamEnds() {
	g := c.settings.guard
	g.streams.Add(-1)
	g.inFlight.Add(1)
	if rec := recover(); rec != nil {
		if rec == http.ErrAbortHandler {
			panic(rec)
		}
		c.logger.Error("panic while streaming", "panic", rec, "stack", string(debug.Stack()))
		panic(http.ErrAbortHandler) // drop the connection so the client sees the stream broke
	}
}

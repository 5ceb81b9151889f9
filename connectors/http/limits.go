package http

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"os"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/octo-run/octo/runtime"
)

// Limits every http connector enforces besides the server's own (header size, header read and
// idle timeouts), so that no client, however it behaves, holds what others need:
//
//   - bodyTimeout: a request body may go this long without a byte arriving; then the request
//     gets 408 and its connection closes. bodyDeadline bounds the whole body, so a client that
//     trickles a byte just often enough is let go too.
//   - the bytes in flight (admit.go): what the process's requests may cost at once, in
//     proportion to their bodies; past it 503.
//   - writeTimeout: the client must accept each piece of an answer (a plain body's 64 KiB, or
//     one event of a stream) within this long; then its connection closes. A client that reads
//     nothing, such as one whose MCP session was dropped for not reading its stream, would
//     otherwise hold the writing goroutine and its slots until it disconnects.
//   - maxInFlight: requests being worked on at once. A request counts from when its body is in
//     until its answer is written, so a client that stalls its body holds a connection (capped
//     per client, below) but never a slot the others need. When its flow answers with a stream
//     the request moves to the stream count for as long as the stream stays open, so held-open
//     sessions never use up the slots short calls need.
//   - maxStreams: event streams open at once.
//   - maxConnsPerClient, maxStreamsPerClient: connections and event streams one remote address
//     may hold (clients.go), so that one client cannot take every slot; the loopback addresses
//     other than 127.0.0.1 count as one client, so a local process cannot bring many.

// limits holds the compiled caps and the connector's counters.
type limits struct {
	bodyTimeout             time.Duration
	bodyDeadline            time.Duration
	maxInFlight, maxStreams int64
	inFlight, streams       atomic.Int64
	clientStreams           *clientCounts
}

// compileLimits builds s.limits from the limit settings, whose tags keep them positive.
func (s *settings) compileLimits() {
	s.limits = &limits{bodyTimeout: s.BodyTimeout, bodyDeadline: s.BodyDeadline, maxInFlight: int64(s.MaxInFlight), maxStreams: int64(s.MaxStreams),
		clientStreams: newClientCounts(s.MaxStreamsPerClient)}
}

// readBody reads the whole request body: at most maxBodyBytes, with no more than bodyTimeout
// between bytes and all of it within bodyDeadline, its cost charged to the process's bytes in
// flight (admit.go) before it is read, or as it is read when its length is not announced. It
// answers a body that is too large (413), stalls or trickles (408), breaks off (400) or does
// not fit the budget (503) itself and returns false then; otherwise the caller gives charged
// back to inFlight once the request is answered.
func (c *Connector) readBody(w http.ResponseWriter, r *http.Request) (body []byte, charged int64, ok bool) {
	if r.Body == http.NoBody { // a GET, or Content-Length: 0: nothing to wait for
		return nil, 0, true
	}
	l := c.settings.limits
	var src io.Reader = http.MaxBytesReader(w, r.Body, c.settings.MaxBodyBytes)
	var unannounced *chargedReader
	if r.ContentLength > 0 && r.ContentLength <= c.settings.MaxBodyBytes {
		charged = r.ContentLength * costFactor
		if !inFlight.take(charged) {
			// Read to the end, a piece at a time, and dropped: a client still sending when
			// the answer comes and the connection closes would see a broken pipe, not the 503.
			discard := idleReader{r: src, w: w, idle: l.bodyTimeout, end: time.Now().Add(l.bodyDeadline)}
			_, err := io.Copy(io.Discard, &discard)
			c.refuseOverBudget(w, err != nil)
			return nil, 0, false
		}
	} else if r.ContentLength < 0 {
		unannounced = &chargedReader{r: src, b: inFlight}
		src = unannounced
	}
	ir := idleReader{r: src, w: w, idle: l.bodyTimeout, end: time.Now().Add(l.bodyDeadline)}
	body, err := readAll(&ir, r.ContentLength)
	if unannounced != nil {
		charged = unannounced.charged
	}
	if err == nil {
		// Lift the deadline: once the body is in, net/http reads on in the background to notice
		// a client that leaves, and a deadline passing there would cancel the request as if the
		// client had gone. On failure it stays, so what is left of the body is never waited for.
		_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
		return body, charged, true
	}
	inFlight.give(charged)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		c.obs.reject(reasonBodyTooLarge)
		writeError(w, http.StatusRequestEntityTooLarge, "request body is larger than "+strconv.FormatInt(tooBig.Limit, 10)+" bytes")
	case errors.Is(err, errOverBudget):
		c.refuseOverBudget(w, true)
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.obs.reject(reasonBodyStalled)
		w.Header().Set("Connection", "close") // the rest of the body may still come: never read it as a request
		msg := "request body stalled: nothing arrived for " + l.bodyTimeout.String() + " (the connector's bodyTimeout)"
		if !time.Now().Before(ir.end) {
			msg = "request body too slow: not all of it arrived within " + l.bodyDeadline.String() + " (the connector's bodyDeadline)"
		}
		writeError(w, http.StatusRequestTimeout, msg)
	default:
		writeError(w, http.StatusBadRequest, "reading request body: "+err.Error())
	}
	return nil, 0, false
}

// presizeMax is the largest Content-Length readAll allocates for before the body arrives: a
// client that announces more, and may never send it, makes the buffer grow only as it does.
const presizeMax = 16 << 10

// readAll is io.ReadAll with a buffer sized to the body's announced length, one byte more for
// the end to show: io.ReadAll starts at 512 bytes, about four times a usual MCP request. It
// takes the idleReader itself, not an io.Reader, so that the reader stays on the stack.
func readAll(r *idleReader, length int64) ([]byte, error) {
	size := 512
	if length >= 0 && length < presizeMax {
		size = int(length) + 1
	}
	b := make([]byte, 0, size)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // let append pick the next size
		}
	}
}

// idleReader moves the connection's read deadline idle into the future before every read, but
// never past end, so a read fails once the client has sent nothing for that long, or once the
// whole body has taken too long (a byte every few seconds would otherwise hold the request,
// and what it has read, for ever).
type idleReader struct {
	r    io.Reader
	w    http.ResponseWriter
	idle time.Duration
	end  time.Time
}

func (ir *idleReader) Read(p []byte) (int, error) {
	deadline := time.Now().Add(ir.idle)
	if deadline.After(ir.end) {
		deadline = ir.end
	}
	// The controller is made here, not kept, so that it stays on the stack (see deadlineWriter).
	if err := http.NewResponseController(ir.w).SetReadDeadline(deadline); err != nil {
		return 0, err
	}
	return ir.r.Read(p)
}

// enter takes an in-flight slot for a request whose body is in. When none is free it answers
// 503 itself and returns false; otherwise the caller must defer leave.
func (c *Connector) enter(w http.ResponseWriter) bool {
	l := c.settings.limits
	if l.inFlight.Add(1) > l.maxInFlight {
		l.inFlight.Add(-1)
		c.obs.reject(reasonOverloaded)
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "too many requests in flight (limit "+strconv.FormatInt(l.maxInFlight, 10)+"); retry shortly")
		return false
	}
	c.obs.inFlightAdd(1)
	return true
}

// leave gives the in-flight slot back.
func (c *Connector) leave() {
	c.settings.limits.inFlight.Add(-1)
	c.obs.inFlightAdd(-1)
}

// recoverPanic turns a panic while serving into a logged 500, so no input can take the process
// down.
func (c *Connector) recoverPanic(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	if rec := recover(); rec != nil {
		if rec == http.ErrAbortHandler {
			panic(rec) // net/http's own way to abort a response; it is not a failure
		}
		c.logger.ErrorContext(ctx, "panic while serving a request", "path", r.URL.Path, "panic", rec, "stack", string(debug.Stack()))
		writeError(w, http.StatusInternalServerError, "internal error")
	}
}

// streamStarts moves a request from the in-flight count to the stream count, and counts the
// stream against its client's address. When either cap is reached it answers 503, closes the
// stream and returns false; otherwise the caller must defer streamEnds with the same address.
func (c *Connector) streamStarts(w http.ResponseWriter, client netip.Addr, s runtime.Stream) bool {
	l := c.settings.limits
	refuse := func(msg string) bool {
		if closer, ok := s.(io.Closer); ok {
			_ = closer.Close()
		}
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, msg)
		return false
	}
	if ok, first := l.clientStreams.take(client); !ok {
		c.obs.reject(reasonClientStreams)
		if first {
			c.logger.Warn("too many event streams from one address; refusing new ones until some end", "remote", clientName(client), "limit", l.clientStreams.max)
		}
		return refuse("too many open event streams from " + clientName(client) + " (limit " + strconv.Itoa(l.clientStreams.max) + " per client address); retry later")
	}
	if l.streams.Add(1) > l.maxStreams {
		l.streams.Add(-1)
		l.clientStreams.give(client)
		c.obs.reject(reasonStreams)
		return refuse("too many open event streams (limit " + strconv.FormatInt(l.maxStreams, 10) + "); retry later")
	}
	l.inFlight.Add(-1)
	c.obs.inFlightAdd(-1)
	return true
}

// streamEnds gives the stream slots back and takes the in-flight slot again, for leave to
// release. A panic while streaming is logged and ends the stream: the status line is already
// sent, so there is no error to answer with.
func (c *Connector) streamEnds(client netip.Addr) {
	l := c.settings.limits
	l.streams.Add(-1)
	l.clientStreams.give(client)
	l.inFlight.Add(1)
	c.obs.inFlightAdd(1)
	if rec := recover(); rec != nil {
		if rec == http.ErrAbortHandler {
			panic(rec)
		}
		c.logger.Error("panic while streaming", "panic", rec, "stack", string(debug.Stack()))
		panic(http.ErrAbortHandler) // drop the connection so the client sees the stream broke
	}
}

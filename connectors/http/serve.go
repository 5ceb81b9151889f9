package http

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/runtime"
)

// ServeHTTP routes a request to its flow and writes the flow's answer.
func (c *Connector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.serve(r.Context(), w, r)
}

// serve is ServeHTTP with the request's context apart: the port's requests carry a context
// the connector made (serveCounted), which r's own does not hold.
func (c *Connector) serve(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	defer c.recoverPanic(ctx, w, r)
	if c.leaving.Load() {
		w.Header()["Connection"] = closeConnection // net/http closes the connection after the answer
	}
	if !c.screen(w, r) { // origin, host and CORS: guard.go
		return
	}
	rt := c.route(w, r)
	if rt == nil {
		return
	}
	body, charged, ok := c.readBody(w, r) // under bodyTimeout, before taking a slot: limits.go
	if !ok {
		return
	}
	defer inFlight.give(charged)
	if !c.enter(w) {
		return
	}
	defer c.leave()
	a := &reply{c: c, w: w, r: r, flow: rt.flow}
	msg, ex := a.Init(body, httpmsg.Exchange{Method: r.Method, Path: r.URL.Path, Host: r.Host,
		RemoteAddr: r.RemoteAddr, Header: r.Header, RawQuery: r.URL.RawQuery})
	a.ex = ex
	if runtime.Tracing() {
		c.deliverTraced(ctx, rt, msg, a)
		return
	}
	_ = rt.flow.Deliver(ctx, msg, a)
}

// deliverTraced delivers the request within a server span, a child of the trace its headers
// carry (traceparent), named by its method and route.
func (c *Connector) deliverTraced(ctx context.Context, rt *route, msg *runtime.Message, a *reply) {
	ctx = runtime.ExtractTrace(ctx, canonicalGet(a.r.Header))
	ctx, span := rt.spans.of(a.r.Method).Start(ctx, runtime.Attr{Key: "url.path", Value: a.r.URL.Path})
	err := rt.flow.Deliver(ctx, msg, a)
	status := a.ex.Status
	if status == 0 {
		status = http.StatusOK
	}
	span.SetAttributes(runtime.Attr{Key: "http.response.status_code", Value: status})
	span.End(err)
}

// routeSpans are the server span types of a route, made at attach: one per standard method,
// named "{method} {route}" as the HTTP semantic conventions say, and one for any other method
// ("HTTP", method _OTHER), whose names are the client's choice.
type routeSpans struct {
	byMethod map[string]*runtime.SpanType
	other    *runtime.SpanType
}

var standardMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}

func newRouteSpans(connector string, r *route) routeSpans {
	attrs := func(method string) []runtime.Attr {
		return []runtime.Attr{{Key: "http.request.method", Value: method}, {Key: "http.route", Value: r.path},
			{Key: "octo.connector", Value: connector}, {Key: "octo.flow", Value: r.flow.Name}}
	}
	rs := routeSpans{byMethod: make(map[string]*runtime.SpanType, len(standardMethods)), other: runtime.NewSpanType("HTTP", runtime.SpanServer, attrs("_OTHER")...)}
	for _, m := range standardMethods {
		rs.byMethod[m] = runtime.NewSpanType(m+" "+r.path, runtime.SpanServer, attrs(m)...)
	}
	return rs
}

func (rs routeSpans) of(method string) *runtime.SpanType {
	if t := rs.byMethod[method]; t != nil {
		return t
	}
	return rs.other
}

// canonicalGet reads a request header for a trace propagator, which asks by lower-case name:
// the names it asks for are looked up as they are kept, without making the canonical name
// again on every request.
func canonicalGet(h http.Header) func(string) string {
	return func(key string) string {
		switch key {
		case "traceparent":
			key = "Traceparent"
		case "tracestate":
			key = "Tracestate"
		case "baggage":
			key = "Baggage"
		default:
			key = textproto.CanonicalMIMEHeaderKey(key)
		}
		if v := h[key]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
}

// closeConnection is the Connection header of an answer while the connector is leaving.
var closeConnection = []string{"close"}[:1:1]

// reply settles a request's message, which it holds: the answer or the error is the response.
// Ack and Nack get the request's context from Deliver (r.Context() lacks the request id).
type reply struct {
	httpmsg.Request
	c    *Connector
	w    http.ResponseWriter
	r    *http.Request
	flow *runtime.Flow
	ex   *httpmsg.Exchange
}

// Ack writes the flow's answer with the status and headers its blocks set on the exchange.
func (a *reply) Ack(ctx context.Context, answer *runtime.Message) error {
	a.c.write(ctx, a.w, a.r, a.ex, answer)
	return nil
}

// Nack answers the flow's error with the status of its kind (status.go); an error that is the
// server's fault is logged, unless the client left.
func (a *reply) Nack(ctx context.Context, err error) error {
	e := runtime.ErrorOf(err)
	if shuttingDown(ctx) {
		a.w.Header().Set("Connection", "close") // see closeIfForced
		writeError(a.w, http.StatusServiceUnavailable, runtime.ErrShuttingDown.Error())
		return nil
	}
	if e.Kind.ServerFault() && ctx.Err() == nil {
		a.flow.Logger().ErrorContext(ctx, "flow failed", "err", err, "path", a.r.URL.Path)
	}
	writeErrorOf(a.w, e)
	return nil
}

// shuttingDown reports whether ctx, a request's, was ended by Stop.
func shuttingDown(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), runtime.ErrShuttingDown)
}

// closeIfForced tells the client that the connection closes after this answer when Stop forced
// the request: its context is the connection's, spent, and the port closes it (mark).
func closeIfForced(ctx context.Context, h http.Header) {
	if ctx.Err() != nil && shuttingDown(ctx) {
		h.Set("Connection", "close")
	}
}

// route finds the request's route, answering 404 or 405 itself when there is none.
func (c *Connector) route(w http.ResponseWriter, r *http.Request) *route {
	rt, ok := c.lookup(r.URL.Path)
	if !ok {
		writeError(w, http.StatusNotFound, "no route for "+r.URL.Path)
		return nil
	}
	if rt.methods != nil && !slices.Contains(rt.methods, r.Method) {
		w.Header().Set("Allow", rt.allow)
		writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed on "+rt.path+"; allowed: "+rt.allow)
		return nil
	}
	return rt
}

func (c *Connector) write(ctx context.Context, w http.ResponseWriter, r *http.Request, ex *httpmsg.Exchange, m *runtime.Message) {
	h := w.Header()
	closeIfForced(ctx, h)
	if ex.ContentType != "" {
		h["Content-Type"] = contentType(ex.ContentType)
	}
	for k, v := range ex.ReplyHeader {
		h[k] = v
	}
	status := ex.Status
	if status == 0 {
		status = http.StatusOK
	}
	if s := m.Stream(); s != nil {
		client := remoteClient(r)
		if !c.streamStarts(w, client, s) {
			return
		}
		defer c.streamEnds(client)
		c.writeStream(ctx, w, status, s)
		return
	}
	if status == http.StatusNoContent || status == http.StatusAccepted || status == http.StatusNotModified || m.IsEmpty() && status != http.StatusOK {
		w.WriteHeader(status)
		return
	}
	var body []byte
	if raw := m.Raw(); m.IsRaw() {
		body = raw
	} else if v, _ := m.Body(); isText(h["Content-Type"]) && isString(v) {
		body = []byte(v.(string)) // text/plain, text/html, ...: the string itself, not its JSON
	} else {
		var err error
		if body, err = json.Marshal(v); err != nil {
			writeError(w, http.StatusInternalServerError, "internal error")
			c.logger.Error("encoding answer", "err", err)
			return
		}
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_ = c.clientWriter(w).write(body)
}

// writeStream writes events as server-sent events until the stream ends,
// the client leaves or the connector stops.
func (c *Connector) writeStream(reqCtx context.Context, w http.ResponseWriter, status int, s runtime.Stream) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(status)
	cw := c.clientWriter(w)
	if cw.write(nil) != nil {
		return
	}
	// Stop ends the request's context before the stream is drained (see
	// drain), so the writer keeps its own; a client that leaves still ends it.
	ctx, cancel := context.WithCancel(context.WithoutCancel(reqCtx))
	defer cancel()
	left := context.AfterFunc(reqCtx, func() {
		if !shuttingDown(reqCtx) {
			cancel()
		}
	})
	defer left()
	stop := context.AfterFunc(c.streamCtx, func() { c.drain(s, cancel) })
	defer stop()
	if closer, ok := s.(io.Closer); ok {
		defer closer.Close()
	}
	buf := make([]byte, 0, 512)
	for {
		ev, err := s.Next(ctx)
		if err != nil {
			return
		}
		buf = appendEvent(buf[:0], ev)
		if cw.write(buf) != nil {
			return
		}
	}
}

// writeChunk is how much of an answer the client must accept within
// writeTimeout: a large body to a slow but reading client goes through.
const writeChunk = 64 << 10

// deadlineWriter writes an answer to a client that must accept each
// writeChunk of it within the connector's writeTimeout. A client that reads
// nothing, such as one whose MCP session was dropped for not reading its
// stream, then loses its connection instead of holding the writing goroutine
// and its slots until it leaves. net/http lifts the deadline once the answer
// is finished, so a kept-alive connection's next request starts without one.
type deadlineWriter struct {
	w       http.ResponseWriter
	timeout time.Duration
}

func (c *Connector) clientWriter(w http.ResponseWriter) deadlineWriter {
	return deadlineWriter{w: w, timeout: c.settings.WriteTimeout}
}

// write writes b and flushes it to the client.
func (d deadlineWriter) write(b []byte) error {
	// Made here rather than kept in d, the controller stays on the stack: d leaks through
	// d.w.Write, and a controller kept in it was an allocation per answer.
	rc := http.NewResponseController(d.w)
	for {
		// A writer without deadlines (a test recorder) just writes. The last chunk's
		// deadline covers the flush too: one deadline for a usual answer, each costing a
		// timer update.
		_ = rc.SetWriteDeadline(time.Now().Add(d.timeout))
		n := min(len(b), writeChunk)
		if _, err := d.w.Write(b[:n]); err != nil {
			return err
		}
		if b = b[n:]; len(b) == 0 {
			return rc.Flush()
		}
	}
}

// drain is a stream's part in Stop: a stream that owes answers (a
// runtime.Drainer) is told so and written until it ends or Stop's context
// does; any other ends now.
func (c *Connector) drain(s runtime.Stream, cancel context.CancelFunc) {
	d, ok := s.(runtime.Drainer)
	sctx, _ := c.stopCtx.Load().(context.Context)
	if !ok || sctx == nil {
		cancel()
		return
	}
	d.Drain(sctx)
	context.AfterFunc(sctx, cancel)
}

func appendEvent(b []byte, ev runtime.Event) []byte {
	if ev.ID != "" {
		b = append(b, "id: "...)
		b = append(b, ev.ID...)
		b = append(b, '\n')
	}
	if ev.Name != "" {
		b = append(b, "event: "...)
		b = append(b, ev.Name...)
		b = append(b, '\n')
	}
	if ev.Retry > 0 {
		b = append(b, "retry: "...)
		b = strconv.AppendInt(b, int64(ev.Retry), 10)
		b = append(b, '\n')
	}
	data := ev.Data
	for {
		b = append(b, "data: "...)
		i := indexNewline(data)
		if i < 0 {
			b = append(b, data...)
			b = append(b, '\n')
			break
		}
		b = append(b, data[:i]...)
		b = append(b, '\n')
		data = data[i+1:]
	}
	return append(b, '\n')
}

func indexNewline(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}

// jsonContentType is the usual Content-Type value, shared: a full slice expression, so a
// caller that appends to it gets a copy.
var jsonContentType = []string{"application/json"}[:1:1]

// contentType is the header value of media type t.
func contentType(t string) []string {
	if t == jsonContentType[0] {
		return jsonContentType
	}
	return []string{t}
}

func writeError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{msg})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

var _ runtime.Delivery = (*reply)(nil)

// isText reports whether an answer's Content-Type, as a flow set it, names a media type that is
// not JSON, so a string body is written as it is.
func isText(ct []string) bool {
	if len(ct) == 0 {
		return false
	}
	mt, _, _ := strings.Cut(ct[0], ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	return mt != "" && mt != "application/json" && !strings.HasSuffix(mt, "+json")
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}

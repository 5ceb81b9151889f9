package runtime

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"unsafe"
)

// requestIDKey is the context key of a message's request id.
type requestIDKey struct{}

// WithRequestID returns ctx carrying id, the id a connector gave the message it delivers: every
// line logged with the context (Logger.InfoContext, ErrorContext…) through a handler made by
// LogRequestIDs says request_id=id, so one request's lines can be found together.
func WithRequestID(ctx context.Context, id string) context.Context {
	c := &requestIDCtx{Context: ctx}
	c.id[0] = id
	return c
}

// WithSaneRequestID is WithRequestID of SaneRequestID(clientID) that also returns the id as a
// header value, for a connector to echo: context, id and header value in one allocation, as a
// connector makes one per request.
func WithSaneRequestID(ctx context.Context, clientID string) (context.Context, []string) {
	c := &requestIDCtx{Context: ctx}
	if saneRequestID(clientID) {
		c.id[0] = clientID
	} else {
		fillRequestID(&c.buf)
		c.id[0] = unsafe.String(&c.buf[0], len(c.buf)) // buf is never written again
	}
	return c, c.id[:]
}

// requestIDCtx carries a request id without context.WithValue, which would box the string in
// an allocation of its own; buf holds a generated id's digits.
type requestIDCtx struct {
	context.Context
	id  [1]string
	buf [16]byte
}

// Value answers the request id as a *string, which boxes without allocating.
func (c *requestIDCtx) Value(key any) any {
	if key == (requestIDKey{}) {
		return &c.id[0]
	}
	return c.Context.Value(key)
}

// RequestID returns the request id ctx carries, or "".
func RequestID(ctx context.Context) string {
	if id, ok := ctx.Value(requestIDKey{}).(*string); ok {
		return *id
	}
	return ""
}

// MaxRequestIDLen is the longest request id a connector takes from a client.
const MaxRequestIDLen = 128

// SaneRequestID returns id when a client's request id can be logged and echoed as it is: 1 to
// MaxRequestIDLen printable ASCII characters without spaces. Otherwise it returns a new one.
func SaneRequestID(id string) string {
	if !saneRequestID(id) {
		return NewRequestID()
	}
	return id
}

func saneRequestID(id string) bool {
	if len(id) == 0 || len(id) > MaxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}

// NewRequestID returns a short random id: 16 hex digits. It tells requests apart in logs; it is
// no secret, so the runtime's fast generator makes it.
func NewRequestID() string {
	var b [16]byte
	fillRequestID(&b)
	return string(b[:])
}

func fillRequestID(b *[16]byte) {
	const hex = "0123456789abcdef"
	n := rand.Uint64()
	for i := range b {
		b[i] = hex[n&15]
		n >>= 4
	}
}

// LogRequestIDs wraps h so that a record logged with a context carrying a request id gets the
// attribute request_id, and one logged within a span trace_id and span_id.
func LogRequestIDs(h slog.Handler) slog.Handler { return requestIDHandler{h} }

type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	if trace, span, ok := TraceIDs(ctx); ok {
		r.AddAttrs(slog.String("trace_id", trace), slog.String("span_id", span))
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return requestIDHandler{h.Handler.WithAttrs(as)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.Handler.WithGroup(name)}
}

var _ slog.Handler = requestIDHandler{}

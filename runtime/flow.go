package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// Flow is a built pipeline bound to a source on a connector.
type Flow struct {
	Name    string
	process Block
	logger  *slog.Logger
	probe   Probe // nil: not observed
	readers []HeaderReader
	span    *SpanType
}

// Headers lists the request headers the flow's blocks read of their own (HeaderReader), each
// once, in the order they declare them: what a CORS preflight for the flow allows.
func (f *Flow) Headers() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range f.readers {
		for _, h := range r.ReadsHeaders() {
			if key := strings.ToLower(h); !seen[key] {
				seen[key] = true
				out = append(out, h)
			}
		}
	}
	return out
}

// Logger returns the flow's logger (it carries the flow's name).
func (f *Flow) Logger() *slog.Logger { return f.logger }

// Run passes msg through the flow's blocks and returns the final message.
// Errors are *BlockError values naming the failing block; use ErrorOf to
// learn what a transport should answer. A source runs its flows with Deliver.
func (f *Flow) Run(ctx context.Context, msg *Message) (*Message, error) {
	if Tracing() {
		ctx, span := f.span.Start(ctx)
		out, err := f.run(ctx, msg)
		span.End(err)
		return out, err
	}
	return f.run(ctx, msg)
}

func (f *Flow) run(ctx context.Context, msg *Message) (*Message, error) {
	if f.probe == nil {
		return f.process.Process(ctx, msg)
	}
	start := time.Now()
	out, err := f.process.Process(ctx, msg)
	f.probe.Done(start, failure(err))
	return out, err
}

// pipeline runs blocks in order; a finished message skips the rest.
type pipeline []Block

func (p pipeline) Process(ctx context.Context, m *Message) (*Message, error) {
	var err error
	for _, b := range p {
		if m.finished {
			return m, nil
		}
		if err = ctx.Err(); err != nil {
			return nil, err
		}
		if m, err = b.Process(ctx, m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Finish marks the message as the flow's answer: later blocks are skipped.
// A block that refuses a request (401, a CORS preflight) uses it.
func (m *Message) Finish() { m.finished = true }

// IsFinished reports whether a block has finished the message.
func (m *Message) IsFinished() bool { return m.finished }

// step names a block so failures can say which one failed, and where it is written.
type step struct {
	block     Block
	typ, name string
	addr, at  string // Service.Instance's address; file:line:col in the config
}

// Process runs the block. A panic in it is the block's failure too: the flow fails as internal
// naming the block (and the panic's stack, for the log) rather than losing the request, and
// the innermost step recovers it, so a branch's block is the one named.
func (s *step) Process(ctx context.Context, m *Message) (out *Message, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, s.fail(&PanicError{Value: r, Stack: debug.Stack()})
		}
	}()
	if out, err = s.block.Process(ctx, m); err != nil {
		return nil, s.fail(err)
	}
	if out == nil {
		return nil, s.fail(errors.New("block returned no message"))
	}
	return out, nil
}

// PanicError is a panic recovered from a block: a bug, which clients see only as an internal
// error; its value and stack are for the log.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v\n%s", e.Value, e.Stack) }

// fail names the block in err once: the innermost block of a branch that failed is the one
// a log line must point at, so an error that names one already is kept as it is.
func (s *step) fail(err error) error {
	var be *BlockError
	if errors.As(err, &be) {
		return err
	}
	return &BlockError{Type: s.typ, Name: s.name, Addr: s.addr, At: s.at, Err: err}
}

// BlockError is a failure inside a block: which block, where it is written, and why. Its text
// is for logs; ErrorOf says what a client may see of it.
type BlockError struct {
	Type, Name string
	// Addr is the block's address, as diagnostics and Service.Instance say it
	// (flows.api.process[0].cases[1].process[0]).
	Addr string
	// At is where the block is written in the config: file:line:col.
	At  string
	Err error
}

// Error reads like a build diagnostic: at: addr (type "name"): err.
func (e *BlockError) Error() string {
	var b strings.Builder
	if e.At != "" {
		b.WriteString(e.At + ": ")
	}
	if e.Addr != "" {
		b.WriteString(e.Addr + " ")
	}
	b.WriteString("(" + e.Type)
	if e.Name != "" {
		b.WriteString(" " + strconv.Quote(e.Name))
	}
	b.WriteString("): " + e.Err.Error())
	return b.String()
}

func (e *BlockError) Unwrap() error { return e.Err }

// ErrShuttingDown is the cause a stopping connector cancels the flows still
// running with, at three quarters of its grace period, so the last quarter
// writes their answers (the rule a Drainer's stream keeps too). A block that
// owns a protocol answers such a request in its own words (mcp-router and
// mcp-mock: a JSON-RPC -32603 for each request id); a flow that fails with
// it is answered 503 with its text.
var ErrShuttingDown = errors.New("the server is shutting down")

package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Flow is a built pipeline bound to a source on a connector.
type Flow struct {
	Name    string
	process Block
	logger  *slog.Logger
	probe   Probe // nil: not observed
}

// Logger returns the flow's logger (it carries the flow's name).
func (f *Flow) Logger() *slog.Logger { return f.logger }

// Run passes msg through the flow's blocks and returns the final message.
// Errors are *BlockError values naming the failing block; use ErrorOf to
// learn what a transport should answer. A source runs its flows with Deliver.
func (f *Flow) Run(ctx context.Context, msg *Message) (*Message, error) {
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

// step names a block so failures can say which one failed.
type step struct {
	block     Block
	typ, name string
}

func (s step) Process(ctx context.Context, m *Message) (*Message, error) {
	out, err := s.block.Process(ctx, m)
	if err != nil {
		var be *BlockError
		if !errors.As(err, &be) {
			err = &BlockError{Type: s.typ, Name: s.name, Err: err}
		}
		return nil, err
	}
	if out == nil {
		return nil, &BlockError{Type: s.typ, Name: s.name, Err: errors.New("block returned no message")}
	}
	return out, nil
}

// BlockError is a failure inside a named block.
type BlockError struct {
	Type, Name string
	Err        error
}

func (e *BlockError) Error() string {
	if e.Name != "" {
		return fmt.Sprintf("block %s %q: %v", e.Type, e.Name, e.Err)
	}
	return fmt.Sprintf("block %s: %v", e.Type, e.Err)
}

func (e *BlockError) Unwrap() error { return e.Err }

// ErrShuttingDown is the cause a stopping connector cancels the flows still
// running with, at three quarters of its grace period, so the last quarter
// writes their answers (the rule a Drainer's stream keeps too). A block that
// owns a protocol answers such a request in its own words (mcp-router and
// mcp-mock: a JSON-RPC -32603 for each request id); a flow that fails with
// it is answered 503 with its text.
var ErrShuttingDown = errors.New("the server is shutting down")

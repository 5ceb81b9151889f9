// Package mcpflow is what the MCP blocks share to serve the protocol core (blocks/mcp) through
// runtime messages: the core's event streams as message streams, and a stdio session fed by the
// stdio connector's events. The core knows nothing of the runtime; the connectors nothing of MCP.
package mcpflow

import (
	"context"
	"errors"
	"sync"

	"github.com/octo-run/octo/blocks/mcp"
	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/runtime"
)

// Stream hands the core's event stream to the connector as a message body; the connector
// closes it when it stops reading, and drains it when it stops.
type Stream struct{ S mcp.EventStream }

// Next implements runtime.Stream.
func (e Stream) Next(ctx context.Context) (runtime.Event, error) {
	ev, err := e.S.Next(ctx)
	return runtime.Event{ID: ev.ID, Name: ev.Name, Data: ev.Data, Retry: ev.Retry}, err
}

// Close implements io.Closer: the connector stopped reading.
func (e Stream) Close() error { return e.S.Close() }

// Drain implements runtime.Drainer: the connector is stopping and writes the stream until the
// answers it owes are delivered.
func (e Stream) Drain(ctx context.Context) { e.S.Drain(ctx) }

// Errors a Stdio answers the connector's events with.
var (
	errStdioBusy = &runtime.Error{Kind: runtime.KindConflict, Msg: "a stdio session is already open"}
	errNoStdio   = &runtime.Error{Kind: runtime.KindInvalid, Msg: "no stdio session: the connector sends opened first"}
	errStopping  = &runtime.Error{Kind: runtime.KindUnavailable, Msg: "the server is stopping"}
)

// Stdio serves one stateful server's stdio session from the stdio connector's events (see
// connectors/stdio): Opened opens the session, whose lines to write are the answer's stream;
// each Line is handed to it (requests run at once, so a notifications/cancelled read later
// reaches a call still running); Ended lets it answer what it read and end.
type Stdio struct {
	st *mcp.Stateful
	mu sync.Mutex
	ss *mcp.StdioSession
}

// NewStdio serves st's stdio session.
func NewStdio(st *mcp.Stateful) *Stdio { return &Stdio{st: st} }

// Process answers one event of the stdio connector.
func (p *Stdio) Process(ctx context.Context, m *runtime.Message, ev *stdiomsg.Event) (*runtime.Message, error) {
	switch ev.Kind {
	case stdiomsg.Opened:
		return p.open(m)
	case stdiomsg.Line:
		ss := p.session()
		if ss == nil {
			return nil, errNoStdio
		}
		if ev.TooLong { // the connector did not read an over-long line
			limit := ev.Limit
			if limit <= 0 {
				limit = mcp.MaxLineBytes
			}
			ss.TooLong(ctx, limit)
		} else {
			ss.Line(ctx, m.Raw())
		}
	case stdiomsg.Ended:
		ss := p.session()
		if ss == nil {
			return nil, errNoStdio
		}
		ss.EndInput()
	}
	m.ClearBody()
	return m, nil
}

// open starts the one stdio session; its lines to write are the answer's stream.
func (p *Stdio) open(m *runtime.Message) (*runtime.Message, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ss != nil {
		return nil, errStdioBusy
	}
	ss, err := p.st.OpenStdio()
	if errors.Is(err, mcp.ErrClosed) {
		return nil, errStopping
	}
	if err != nil {
		return nil, err
	}
	p.ss = ss
	m.ClearBody()
	m.SetStream(stdioStream{Stream{ss}, p, ss})
	return m, nil
}

func (p *Stdio) session() *mcp.StdioSession {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ss
}

// stdioStream is the answer to Opened: every line the session writes. Once the connector stops
// reading it, a session may be opened again.
type stdioStream struct {
	Stream
	p  *Stdio
	ss *mcp.StdioSession
}

// Close implements io.Closer.
func (s stdioStream) Close() error {
	s.p.mu.Lock()
	if s.p.ss == s.ss {
		s.p.ss = nil
	}
	s.p.mu.Unlock()
	return s.Stream.Close()
}

var (
	_ runtime.Stream  = Stream{}
	_ runtime.Drainer = Stream{}
	_ runtime.Drainer = stdioStream{}
)

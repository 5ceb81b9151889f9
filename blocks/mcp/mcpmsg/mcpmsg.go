// Package mcpmsg is what the MCP blocks share to serve the protocol core (mcp) through
// runtime messages: the core's event streams as message streams, and stdio sessions fed by a
// line connector's events (stdio's one session, the agent connector's one per connection).
// The core knows nothing of the runtime; the connectors nothing of MCP.
package mcpmsg

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/mcp/stream"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/printable"
)

// Stream hands the core's event stream to the connector as a message body; the connector
// closes it when it stops reading, and drains it when it stops.
type Stream struct{ S stream.Stream }

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

// Stdio serves one stateful server's line sessions from a line connector's events (see
// connectors/stdio/stdiomsg): the stdio connector's one session, or the agent connector's one per
// connection, told apart by Event.Session. Opened opens a session, whose lines to write are the
// answer's stream; each Line is handed to it (requests run at once, so a
// notifications/cancelled read later reaches a call still running); Ended lets it answer what
// it read and end. Sessions are independent: one that fails or ends leaves the others be.
type Stdio struct {
	st *session.Front
	mu sync.Mutex
	ss map[uint64]*session.Stdio // open sessions by Event.Session
}

// NewStdio serves st's stdio sessions.
func NewStdio(st *session.Front) *Stdio { return &Stdio{st: st, ss: make(map[uint64]*session.Stdio)} }

// Process answers one event of a line connector.
func (p *Stdio) Process(ctx context.Context, m *runtime.Message, ev *stdiomsg.Event) (*runtime.Message, error) {
	if ev.Kind == stdiomsg.Opened {
		return p.open(m, ev.Session)
	}
	ss := p.session(ev.Session)
	if ss == nil {
		return nil, errNoStdio
	}
	switch {
	case ev.Kind == stdiomsg.Line && ev.TooLong: // the connector did not read an over-long line
		limit := ev.Limit
		if limit <= 0 {
			limit = session.MaxLineBytes
		}
		ss.TooLong(ctx, limit)
	case ev.Kind == stdiomsg.Line:
		ss.Line(ctx, m.Raw())
	case ev.Kind == stdiomsg.Ended:
		ss.EndInput()
	}
	m.ClearBody()
	return m, nil
}

// open starts session id; its lines to write are the answer's stream.
func (p *Stdio) open(m *runtime.Message, id uint64) (*runtime.Message, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ss[id] != nil {
		return nil, errStdioBusy
	}
	ss, err := p.st.OpenStdio()
	if errors.Is(err, session.ErrClosed) {
		return nil, errStopping
	}
	if err != nil {
		return nil, err
	}
	p.ss[id] = ss
	m.ClearBody()
	m.SetStream(stdioStream{Stream{ss}, p, ss, id})
	return m, nil
}

func (p *Stdio) session(id uint64) *session.Stdio {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ss[id]
}

// stdioStream is the answer to Opened: every line the session writes. Once the connector stops
// reading it, a session of the same id may be opened again.
type stdioStream struct {
	Stream
	p  *Stdio
	ss *session.Stdio
	id uint64
}

// Close implements io.Closer.
func (s stdioStream) Close() error {
	s.p.mu.Lock()
	if s.p.ss[s.id] == s.ss {
		delete(s.p.ss, s.id)
	}
	s.p.mu.Unlock()
	return s.Stream.Close()
}

var (
	_ runtime.Stream  = Stream{}
	_ runtime.Drainer = Stream{}
	_ runtime.Drainer = stdioStream{}
)

// Announce logs the URL of an MCP server over HTTP and the command that adds it to Claude Code
// (other clients take the same URL), as the service starts; nothing for a server on stdio,
// which has no URL.
func Announce(logger *slog.Logger, name, url string) {
	if url != "" {
		logger.Info("MCP server ready", "url", url, "connect", "claude mcp add --transport http "+printable.ShellQuote(name)+" "+url)
	}
}

package mock

import (
	"context"
	"errors"

	"github.com/octo-run/octo/blocks/mcp"
	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/runtime"
)

// errStdioBusy refuses a second Opened while a stdio session runs.
var errStdioBusy = &runtime.Error{Kind: runtime.KindConflict, Msg: "a stdio session is already open"}

// errNoStdio refuses Line and Ended before Opened.
var errNoStdio = &runtime.Error{Kind: runtime.KindInvalid, Msg: "no stdio session: the connector sends opened first"}

// openStdio is Opened (the stdio connector's events, connectors/stdio): the server's one stdio session starts, and its lines
// to write are the answer's stream.
func (s *Server) openStdio(m *runtime.Message) (*runtime.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stdio != nil {
		return nil, errStdioBusy
	}
	ss, err := s.st.OpenStdio()
	if errors.Is(err, mcp.ErrClosed) {
		return nil, &runtime.Error{Kind: runtime.KindUnavailable, Msg: "the server is stopping"}
	}
	if err != nil {
		return nil, err
	}
	s.stdio = ss
	m.ClearBody()
	m.SetStream(stdioStream{eventStream{ss}, s, ss})
	return m, nil
}

// stdioLine is Line: one line read, handed to the session as it is.
func (s *Server) stdioLine(ctx context.Context, m *runtime.Message, ev *stdiomsg.Event) (*runtime.Message, error) {
	ss := s.stdioSession()
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
	m.ClearBody()
	return m, nil
}

// endStdio is Ended: the input ended. The session answers what it read and
// finishes; its stream then ends.
func (s *Server) endStdio(m *runtime.Message) (*runtime.Message, error) {
	ss := s.stdioSession()
	if ss == nil {
		return nil, errNoStdio
	}
	ss.EndInput()
	m.ClearBody()
	return m, nil
}

func (s *Server) stdioSession() *mcp.StdioSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stdio
}

// stdioStream is the answer to Opened: every line the session writes. Once the
// connector stops reading it, the server may open a stdio session again.
type stdioStream struct {
	eventStream
	s  *Server
	ss *mcp.StdioSession
}

// Close implements io.Closer.
func (st stdioStream) Close() error {
	st.s.mu.Lock()
	if st.s.stdio == st.ss {
		st.s.stdio = nil
	}
	st.s.mu.Unlock()
	return st.eventStream.Close()
}

var _ runtime.Drainer = stdioStream{}

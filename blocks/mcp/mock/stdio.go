package mock

import (
	"context"
	"errors"

	"github.com/octo-run/octo/blocks/mcp"
	"github.com/octo-run/octo/runtime"
)

// The methods the stdio connector gives its messages (connectors/stdio): a
// flow gets OPEN once when the connector starts and answers with the stream
// of lines to write; then LINE for each line read, and END when input ends.
const (
	MethodOpen = "OPEN"
	MethodLine = "LINE"
	MethodEnd  = "END"
)

// maxLineVar is the variable in which the stdio connector says how long a
// line it reads, beside a line it refused (Meta.Status 413).
const maxLineVar = "maxLineBytes"

// errStdioBusy refuses a second OPEN while a stdio session runs.
var errStdioBusy = &runtime.StatusError{Status: 409, Msg: "a stdio session is already open"}

// errNoStdio refuses LINE and END before OPEN.
var errNoStdio = &runtime.StatusError{Status: 400, Msg: "no stdio session: the connector sends OPEN first"}

// openStdio is OPEN: the server's one stdio session starts, and its lines
// to write are the answer's stream.
func (s *Server) openStdio(m *runtime.Message) (*runtime.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stdio != nil {
		return nil, errStdioBusy
	}
	ss, err := s.st.OpenStdio()
	if errors.Is(err, mcp.ErrClosed) {
		return nil, &runtime.StatusError{Status: 503, Msg: "the server is stopping"}
	}
	if err != nil {
		return nil, err
	}
	s.stdio = ss
	m.ClearBody()
	m.SetStream(stdioStream{eventStream{ss}, s, ss})
	return m, nil
}

// stdioLine is LINE: one line read, handed to the session as it is.
func (s *Server) stdioLine(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	ss := s.stdioSession()
	if ss == nil {
		return nil, errNoStdio
	}
	if m.Meta.Status == 413 { // the connector did not read an over-long line
		m.Meta.Status = 0
		limit, ok := m.Vars[maxLineVar].(int)
		if !ok {
			limit = mcp.MaxLineBytes
		}
		ss.TooLong(ctx, limit)
	} else {
		ss.Line(ctx, m.Raw())
	}
	m.ClearBody()
	return m, nil
}

// endStdio is END: the input ended. The session answers what it read and
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

// stdioStream is the OPEN answer: every line the session writes. Once the
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

package mock

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"

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

// stdioLink is the one stdio session of a server: lines from the connector
// go into the core's ServeStdio through a pipe, and what it writes comes
// back as the events of the OPEN answer's stream.
type stdioLink struct {
	in       *io.PipeWriter
	out      chan []byte
	done     chan struct{} // closed when ServeStdio has returned
	gone     chan struct{} // closed when the connector stops reading
	inOnce   sync.Once
	goneOnce sync.Once
}

// lineTooLong answers a line the connector refused to read.
var lineTooLong = mcp.AppendError(nil, mcp.ID{}, mcp.NewError(mcp.CodeInvalidRequest,
	"Invalid Request: the line is longer than the connector reads (maxLineBytes)"))

// errStdioBusy refuses a second OPEN while a stdio session runs.
var errStdioBusy = &runtime.StatusError{Status: 409, Msg: "a stdio session is already open"}

func (s *Server) openStdio(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	s.mu.Lock()
	if s.stdio != nil {
		s.mu.Unlock()
		return nil, errStdioBusy
	}
	pr, pw := io.Pipe()
	l := &stdioLink{in: pw, out: make(chan []byte, 64), done: make(chan struct{}), gone: make(chan struct{})}
	s.stdio = l
	s.mu.Unlock()
	go func() {
		defer close(l.done)
		err := s.st.ServeStdio(context.WithoutCancel(ctx), pr, lineWriter{l})
		if err != nil && !errors.Is(err, io.ErrClosedPipe) && !errors.Is(err, mcp.ErrClosed) {
			s.logger.Warn("stdio session ended", "server", s.name, "err", err)
		}
		_ = pr.Close()
		s.mu.Lock()
		if s.stdio == l {
			s.stdio = nil
		}
		s.mu.Unlock()
	}()
	m.ClearBody()
	m.SetStream(&stdioStream{l: l, s: s})
	return m, nil
}

func (s *Server) stdioLine(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
	s.mu.Lock()
	l := s.stdio
	s.mu.Unlock()
	if l == nil {
		return nil, &runtime.StatusError{Status: 400, Msg: "no stdio session: the connector sends OPEN first"}
	}
	if m.Meta.Status == 413 { // the connector did not read an over-long line
		m.Meta.Status = 0
		select {
		case l.out <- lineTooLong:
		case <-l.gone:
		}
		m.ClearBody()
		return m, nil
	}
	line := append(append([]byte(nil), m.Raw()...), '\n')
	if _, err := l.in.Write(line); err != nil {
		return nil, err
	}
	m.ClearBody()
	return m, nil
}

// endStdio is END: the input ended. The session answers what it read and
// finishes; its stream then ends.
func (s *Server) endStdio(m *runtime.Message) (*runtime.Message, error) {
	s.mu.Lock()
	s.closeStdio()
	s.mu.Unlock()
	m.ClearBody()
	return m, nil
}

// closeStdio ends the input of the stdio session, if any; the core then
// finishes it as at end of input. The caller holds s.mu.
func (s *Server) closeStdio() {
	if l := s.stdio; l != nil {
		l.inOnce.Do(func() { _ = l.in.Close() })
	}
}

// lineWriter turns the core's writes (one whole line each) into events.
type lineWriter struct{ l *stdioLink }

// Write implements io.Writer; it fails once the connector stopped reading.
func (w lineWriter) Write(p []byte) (int, error) {
	select {
	case w.l.out <- bytes.TrimSuffix(bytes.Clone(p), []byte{'\n'}):
		return len(p), nil
	case <-w.l.gone:
		return 0, io.ErrClosedPipe
	}
}

// stdioStream is the OPEN answer: every line the session writes.
type stdioStream struct {
	l *stdioLink
	s *Server
}

// Next implements runtime.Stream.
func (st *stdioStream) Next(ctx context.Context) (runtime.Event, error) {
	select {
	case line := <-st.l.out:
		return runtime.Event{Data: line}, nil
	case <-st.l.done:
		select {
		case line := <-st.l.out:
			return runtime.Event{Data: line}, nil
		default:
			return runtime.Event{}, io.EOF
		}
	case <-ctx.Done():
		return runtime.Event{}, ctx.Err()
	}
}

// Close is the connector leaving: end the session's input and drop what it
// still writes.
func (st *stdioStream) Close() error {
	st.l.goneOnce.Do(func() { close(st.l.gone) })
	st.l.inOnce.Do(func() { _ = st.l.in.Close() })
	return nil
}

package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
)

// MaxLineBytes bounds one stdio message (DESIGN.md: 64 MB on stdio); a longer
// line is skipped and answered with -32600.
const MaxLineBytes = 64 << 20

// ServeStdio serves one session over newline-delimited JSON-RPC (mcp-protocol.md
// §7.1): one message per line, an optional \r before the \n, lines up to
// MaxLineBytes. Only MCP messages are written to out, one per line, never
// interleaved. It returns nil when in reaches EOF, ctx.Err() when ctx ends,
// ErrClosed after Close, or the read or write error; the session's requests
// are cancelled first. A Read blocked in in is not interrupted: close in to
// release the goroutine reading it.
func (st *Stateful) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	s := st.newSession(TransportStdio)
	q := newQueue("", nil)
	s.stream = q
	if err := st.register(s); err != nil {
		s.cancel()
		return err
	}
	werr := make(chan error, 1)
	go func() { werr <- s.writeLines(q, out) }()
	lines := make(chan line)
	stop := make(chan struct{})
	go readLines(in, lines, stop)
	why, err := s.readLoop(ctx, lines)
	close(stop)
	s.end(why)
	s.calls.Wait()
	// A failed write ends the session too; report it rather than ErrClosed.
	if e := <-werr; e != nil && (err == nil || errors.Is(err, ErrClosed)) {
		err = e
	}
	return err
}

// line is one read from stdin: a message, an over-long line, or the end.
type line struct {
	data    []byte
	tooLong bool
	err     error
}

func (s *ServerSession) readLoop(ctx context.Context, lines <-chan line) (EndReason, error) {
	for {
		select {
		case l := <-lines:
			if l.err != nil {
				if errors.Is(l.err, io.EOF) {
					return EndEOF, nil
				}
				return EndEOF, l.err
			}
			s.handleLine(ctx, l)
		case <-ctx.Done():
			return EndCancelled, ctx.Err()
		case <-s.ctx.Done():
			return EndClosed, ErrClosed
		}
	}
}

var lineTooLong = AppendError(nil, ID{}, NewError(CodeInvalidRequest,
	"Invalid Request: line longer than %d bytes", MaxLineBytes))

func (s *ServerSession) handleLine(ctx context.Context, l line) {
	if l.tooLong {
		s.push(lineTooLong)
		return
	}
	if len(bytes.TrimSpace(l.data)) == 0 {
		return
	}
	msgs, batch, perr := Decode(l.data)
	if perr != nil {
		s.st.observe(s, TrafficEvent{Direction: DirIn, Kind: TrafficInvalid, Summary: "invalid message: " + perr.Message})
		s.push(AppendError(nil, ID{}, perr))
		return
	}
	s.deliver(ctx, msgs, batch, RequestContext{}, l.data)
}

// readLines reads in line by line until EOF or a read error, which it sends
// last; it stops early when stop closes.
func readLines(in io.Reader, lines chan<- line, stop <-chan struct{}) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		data, tooLong, err := readLine(r, MaxLineBytes)
		l := line{data: data, tooLong: tooLong, err: err}
		if err != nil && (len(data) > 0 || tooLong) {
			l.err = nil // deliver the unterminated last line first
		}
		select {
		case lines <- l:
		case <-stop:
			return
		}
		if err != nil {
			if l.err == nil {
				select {
				case lines <- line{err: err}:
				case <-stop:
				}
			}
			return
		}
	}
}

// readLine returns the next line without its \n or \r\n. A line over max
// bytes is consumed and reported as tooLong without being kept.
func readLine(r *bufio.Reader, max int) (data []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(data)+len(chunk) > max+2 {
				tooLong, data = true, nil
			} else {
				data = append(data, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		data = bytes.TrimSuffix(data, []byte{'\n'})
		data = bytes.TrimSuffix(data, []byte{'\r'})
		if len(data) > max {
			tooLong, data = true, nil
		}
		return data, tooLong, err
	}
}

// writeLines writes each queued message as one line until the queue ends.
// A write error ends the session: nobody is listening any more.
func (s *ServerSession) writeLines(q *queue, out io.Writer) error {
	var buf []byte
	for {
		ev, err := q.Next(context.Background())
		if err != nil {
			return nil
		}
		buf = append(buf[:0], ev.Data...)
		if bytes.ContainsAny(buf, "\r\n") {
			// A provider's raw JSON may be indented; a line must not break.
			var c bytes.Buffer
			if json.Compact(&c, ev.Data) == nil {
				buf = append(buf[:0], c.Bytes()...)
			}
		}
		buf = append(buf, '\n')
		if _, err := out.Write(buf); err != nil {
			q.Close()
			s.end(EndEOF)
			return err
		}
	}
}

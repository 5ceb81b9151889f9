// Package lines reads newline-framed input with a bound on the line length: the framing of the
// stdio and agent connectors (through stdiomsg) and of the MCP client's stdio and SSE streams.
//
// It sits beside the runtime but imports only the standard library: mcp/client, which
// must not know the runtime, reads its lines with it too.
package lines

import (
	"bufio"
	"bytes"
	"errors"
)

// Read returns the next line without its \n or \r\n; a line over max
// bytes is consumed and reported as tooLong without being kept. A long line
// is gathered in pieces and joined once: it costs twice its size at the
// peak, not the many growing copies of appending to one slice.
func Read(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	return read(r, max, true)
}

// ReadAtMost is Read for a reader that gives its input up on a line over max bytes (an event
// stream): it reports tooLong as soon as the line passes max, leaving the rest unread, so an
// endless line costs neither memory nor the time to read it.
func ReadAtMost(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	return read(r, max, false)
}

func read(r *bufio.Reader, max int, skip bool) (line []byte, tooLong bool, err error) {
	var pieces [][]byte
	n := 0
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if n+len(chunk) > max+2 {
				tooLong, pieces = true, nil
				if !skip {
					if errors.Is(err, bufio.ErrBufferFull) {
						err = nil // the line goes on: it is left unread
					}
					return nil, true, err
				}
			} else if len(chunk) > 0 {
				pieces = append(pieces, bytes.Clone(chunk))
				n += len(chunk)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, true, err
		}
		line = join(pieces, n)
		line = bytes.TrimSuffix(line, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) > max {
			return nil, true, err
		}
		return line, false, err
	}
}

// join concatenates pieces holding n bytes in all.
func join(pieces [][]byte, n int) []byte {
	if len(pieces) == 1 {
		return pieces[0]
	}
	out := make([]byte, 0, n)
	for _, p := range pieces {
		out = append(out, p...)
	}
	return out
}

package mcpclient

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// lineReader reads lines of at most max bytes, so a peer that never sends
// a newline cannot grow memory without bound.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// errLineTooLong is a line over the reader's max; the rest of it is unread.
var errLineTooLong = errors.New("line too long")

// line returns the next line without its \n or \r\n. The last line of the
// input may lack its \n; io.EOF comes after it.
func (lr *lineReader) line() ([]byte, error) {
	var out []byte
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if len(out)+len(chunk) > lr.max+2 { // +2: the line's own \r\n
			return nil, errLineTooLong
		}
		out = append(out, chunk...)
		switch {
		case err == nil:
			return bytes.TrimSuffix(out[:len(out)-1], []byte{'\r'}), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(out) > 0:
			return bytes.TrimSuffix(out, []byte{'\r'}), nil
		default:
			return nil, err
		}
	}
}

// skipLine discards the rest of the current line.
func (lr *lineReader) skipLine() error {
	for {
		_, err := lr.r.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

package client

import (
	"bufio"
	"errors"
	"io"

	"github.com/octo-run/octo/runtime/lines"
)

// lineReader reads lines of at most max bytes, so a peer that never sends
// a newline cannot grow memory without bound.
type lineReader struct {
	r    *bufio.Reader
	max  int
	read func(*bufio.Reader, int) ([]byte, bool, error) // lines.Read, or lines.ReadAtMost
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max, read: lines.Read}
}

// newStreamLineReader is a lineReader for an event stream, which is given up on a line over
// max: the line is not read on to its end.
func newStreamLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max, read: lines.ReadAtMost}
}

// errLineTooLong is a line over the reader's max (read to its end, but for a stream's).
var errLineTooLong = errors.New("line too long")

// line returns the next line without its \n or \r\n. The last line of the
// input may lack its \n; io.EOF comes after it.
func (lr *lineReader) line() ([]byte, error) {
	line, tooLong, err := lr.read(lr.r, lr.max)
	switch {
	case tooLong && (err == nil || errors.Is(err, io.EOF)):
		return nil, errLineTooLong
	case err == nil, errors.Is(err, io.EOF) && len(line) > 0:
		return line, nil
	default:
		return nil, err
	}
}

package mcpclient

import (
	"bufio"
	"errors"
	"io"

	"github.com/octo-run/octo/runtime/lines"
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

// errLineTooLong is a line over the reader's max; it was read to its end.
var errLineTooLong = errors.New("line too long")

// line returns the next line without its \n or \r\n. The last line of the
// input may lack its \n; io.EOF comes after it.
func (lr *lineReader) line() ([]byte, error) {
	line, tooLong, err := lines.Read(lr.r, lr.max)
	switch {
	case tooLong && (err == nil || errors.Is(err, io.EOF)):
		return nil, errLineTooLong
	case err == nil, errors.Is(err, io.EOF) && len(line) > 0:
		return line, nil
	default:
		return nil, err
	}
}

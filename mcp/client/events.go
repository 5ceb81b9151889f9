package client

import (
	"bytes"
	"errors"
	"io"
)

// event is one server-sent event.
type event struct {
	name string // "" means "message"
	data []byte
}

// eventReader reads a text/event-stream (the WHATWG format: field lines,
// data lines joined by \n, a blank line ending an event), holding an
// event's text to max bytes.
type eventReader struct {
	lines *lineReader
	max   int
}

func newEventReader(r io.Reader, max int) *eventReader {
	return &eventReader{lines: newStreamLineReader(r, max), max: max}
}

// next returns the next event with data; events without data (priming
// events, whose data is empty, comments, retry hints) are skipped. io.EOF when the stream ends between
// events.
func (er *eventReader) next() (event, error) {
	var (
		ev      event
		hasData bool
		size    int
	)
	for {
		line, err := er.lines.line()
		switch {
		case errors.Is(err, io.EOF) && len(ev.data) > 0:
			// A stream that ends without the final blank line still
			// delivered its last event.
			return ev, nil
		case errors.Is(err, errLineTooLong):
			return event{}, protocolErrorf("an event of the stream is over %d bytes", er.max)
		case err != nil:
			return event{}, err
		}
		if size += len(line); size > er.max {
			return event{}, protocolErrorf("an event of the stream is over %d bytes", er.max)
		}
		if len(line) == 0 {
			if len(ev.data) > 0 {
				return ev, nil
			}
			ev, hasData, size = event{}, false, 0
			continue
		}
		field, value, _ := bytes.Cut(line, []byte{':'})
		value = bytes.TrimPrefix(value, []byte{' '})
		switch string(field) {
		case "data":
			if hasData {
				ev.data = append(ev.data, '\n')
			}
			ev.data, hasData = append(ev.data, value...), true
		case "event":
			ev.name = string(value)
		}
	}
}

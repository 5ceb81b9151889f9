package stdiomsg

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/lines"
)

// The framing of a line session, shared by the connectors that serve one (stdio, agent): one
// message per line, ended by \n or \r\n.

// ReadLine returns the next line without its \n or \r\n; a line over max
// bytes is consumed and reported as tooLong without being kept. It is lines.Read, which the MCP
// client (kept clear of the runtime) shares.
func ReadLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	return lines.Read(r, max)
}

// OneLine returns data fit to be written as one line: JSON holding a line break (indented, as a
// provider's raw JSON may be) is compacted; anything else is returned as it is.
func OneLine(data []byte) []byte {
	if !bytes.ContainsAny(data, "\r\n") {
		return data
	}
	var b bytes.Buffer
	if json.Compact(&b, data) == nil {
		return b.Bytes()
	}
	return data
}

// Pump writes each event of s with write, one line each, until s ends, ctx ends or write
// returns false; then it closes s if s is an io.Closer (the connector stopped reading it).
func Pump(ctx context.Context, s runtime.Stream, write func([]byte) bool) {
	if cl, ok := s.(io.Closer); ok {
		defer cl.Close()
	}
	for {
		ev, err := s.Next(ctx)
		if err != nil || !write(ev.Data) {
			return
		}
	}
}

// WriteAnswer writes a flow's answer to a line with write: a stream one line per event (see
// Pump), a body as one line (a decoded value encoded as JSON), nothing for an empty answer. The
// error is the encoder's, for a value JSON cannot hold.
func WriteAnswer(ctx context.Context, ans *runtime.Message, write func([]byte) bool) error {
	if s := ans.Stream(); s != nil {
		Pump(ctx, s, write)
		return nil
	}
	if ans.IsEmpty() {
		return nil
	}
	body := ans.Raw()
	if !ans.IsRaw() {
		v, _ := ans.Body()
		var err error
		if body, err = json.Marshal(v); err != nil {
			return err
		}
	}
	write(body)
	return nil
}

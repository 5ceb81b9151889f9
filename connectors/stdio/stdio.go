// Package stdio is the stdio connector: it reads the process's standard
// input line by line and hands each line to its one flow, and writes what
// the flow answers to standard output, one line per message. It knows
// nothing of the protocols the lines carry (MCP over stdio is one).
//
// A flow talks to it through three message methods (Meta.Method):
//
//	OPEN  sent once at start, without a body. If the flow answers with a
//	      stream, every event's data is written as a line until the stream
//	      ends: a block keeps a channel to the other side this way.
//	LINE  one line read, without its \n or \r\n, as the raw body. A body in
//	      the answer is written as one line; a stream answer, each event.
//	      Lines go to the flow one at a time, in order. A line longer than
//	      maxLineBytes (default 64 MB) is not read: the flow gets a LINE with
//	      no body and Meta.Status 413.
//	END   sent once when input ends. The connector then writes what is left
//	      of the OPEN stream and is done.
//
// Only the flow's answers reach standard output; logs go to standard error.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/octo-run/octo/runtime"
)

// The message methods; see the package documentation.
const (
	MethodOpen = "OPEN"
	MethodLine = "LINE"
	MethodEnd  = "END"
)

// DefaultMaxLineBytes is the longest line read (DESIGN.md: 64 MB).
const DefaultMaxLineBytes = 64 << 20

func init() {
	runtime.RegisterConnector(runtime.ConnectorSpec{
		Type:    "stdio",
		Summary: "serves one flow over standard input and output, one message per line",
		Build:   build,
	})
}

type settings struct {
	MaxLineBytes int `yaml:"maxLineBytes"`
}

// Connector serves one flow over a pair of streams.
type Connector struct {
	name    string
	maxLine int
	logger  *slog.Logger
	flow    *runtime.Flow

	in      io.Reader
	out     io.Writer
	wmu     sync.Mutex // one line at a time on out
	ctx     context.Context
	cancel  context.CancelFunc
	open    runtime.Stream
	pumped  chan struct{} // closed when the OPEN stream is written out
	done    chan struct{} // closed when input ended and the OPEN stream is written
	stopped sync.Once
	readEnd chan struct{} // closed when the reading goroutine returns
}

func build(b *runtime.ConnectorBuild) (runtime.Connector, error) {
	s := settings{MaxLineBytes: DefaultMaxLineBytes}
	if !b.Decode(&s) {
		return nil, nil
	}
	if s.MaxLineBytes <= 0 {
		b.Errorf(b.Setting("maxLineBytes"), b.At.Field("settings").Field("maxLineBytes"), "maxLineBytes must be positive")
		return nil, nil
	}
	return &Connector{name: b.Name, maxLine: s.MaxLineBytes, logger: b.Logger(),
		pumped: make(chan struct{}), done: make(chan struct{}), readEnd: make(chan struct{})}, nil
}

// Attach takes the connector's one flow.
func (c *Connector) Attach(src *runtime.SourceBuild, flow *runtime.Flow) error {
	var s struct{}
	if !src.Decode(&s) {
		return nil
	}
	if c.flow != nil {
		return fmt.Errorf("connector %q already serves flow %q: standard input goes to one flow", c.name, c.flow.Name)
	}
	c.flow = flow
	return nil
}

type streamsKey struct{}

// WithStreams makes Start read in and write out instead of the process's
// standard input and output (for commands that take their streams as
// arguments, and for tests).
func WithStreams(ctx context.Context, in io.Reader, out io.Writer) context.Context {
	return context.WithValue(ctx, streamsKey{}, [2]any{in, out})
}

// Start opens the flow's stream and starts reading lines.
func (c *Connector) Start(ctx context.Context) error {
	c.in, c.out = os.Stdin, os.Stdout
	if s, ok := ctx.Value(streamsKey{}).([2]any); ok {
		c.in, c.out = s[0].(io.Reader), s[1].(io.Writer)
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	if c.flow == nil {
		close(c.pumped)
		close(c.readEnd)
		c.finish()
		return nil
	}
	msg := runtime.NewMessage(nil)
	msg.Meta.Method = MethodOpen
	ans, err := c.flow.Run(c.ctx, msg)
	if err != nil {
		c.cancel()
		return fmt.Errorf("connector %q: opening flow %q: %w", c.name, c.flow.Name, err)
	}
	if c.open = ans.Stream(); c.open != nil {
		go func() { defer close(c.pumped); c.pump(c.open) }()
	} else {
		close(c.pumped)
	}
	go c.read()
	return nil
}

// Done is closed once input has ended and everything the flow had to say
// is written (or the connector stopped).
func (c *Connector) Done() <-chan struct{} { return c.done }

// read hands each line to the flow, in order, until input ends.
func (c *Connector) read() {
	defer close(c.readEnd)
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, tooLong, err := readLine(r, c.maxLine)
		if len(line) > 0 || tooLong || err == nil {
			c.handle(line, tooLong)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && c.ctx.Err() == nil {
				c.logger.Warn("reading standard input failed", "err", err)
			}
			break
		}
		if c.ctx.Err() != nil {
			return
		}
	}
	if c.ctx.Err() == nil {
		msg := runtime.NewMessage(nil)
		msg.Meta.Method = MethodEnd
		if _, err := c.flow.Run(c.ctx, msg); err != nil {
			c.logger.Debug("flow failed at end of input", "err", err)
		}
	}
	select {
	case <-c.pumped:
	case <-c.ctx.Done():
	}
	c.finish()
}

func (c *Connector) finish() {
	c.stopped.Do(func() { close(c.done) })
}

// handle runs the flow for one line and writes its answer.
func (c *Connector) handle(line []byte, tooLong bool) {
	msg := runtime.NewMessage(line)
	msg.Meta.Method = MethodLine
	if tooLong {
		msg.ClearBody()
		msg.Meta.Status = 413
	}
	ans, err := c.flow.Run(c.ctx, msg)
	if err != nil {
		if c.ctx.Err() == nil {
			status, text := runtime.ErrorStatus(err)
			c.logger.Error("flow failed for a line", "flow", c.flow.Name, "status", status, "err", text)
		}
		return
	}
	if s := ans.Stream(); s != nil {
		c.pump(s)
		return
	}
	if ans.IsEmpty() {
		return
	}
	body := ans.Raw()
	if !ans.IsRaw() {
		v, _ := ans.Body()
		if body, err = json.Marshal(v); err != nil {
			c.logger.Error("encoding the answer failed", "err", err)
			return
		}
	}
	c.writeLine(body)
}

// pump writes each event of s as a line until it ends or the connector
// stops.
func (c *Connector) pump(s runtime.Stream) {
	if cl, ok := s.(io.Closer); ok {
		defer cl.Close()
	}
	for {
		ev, err := s.Next(c.ctx)
		if err != nil {
			return
		}
		if !c.writeLine(ev.Data) {
			return
		}
	}
}

// writeLine writes one message and a newline; data holding a newline is
// compacted when it is JSON, since a line must not break.
func (c *Connector) writeLine(data []byte) bool {
	if bytes.ContainsAny(data, "\r\n") {
		var b bytes.Buffer
		if json.Compact(&b, data) == nil {
			data = b.Bytes()
		}
	}
	buf := make([]byte, 0, len(data)+1)
	buf = append(append(buf, data...), '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.out.Write(buf); err != nil {
		if c.ctx.Err() == nil {
			c.logger.Warn("writing standard output failed", "err", err)
			c.cancel()
		}
		return false
	}
	return true
}

// Stop ends the flow's stream and stops reading. A read blocked on the
// process's standard input cannot be interrupted; it ends with the process.
func (c *Connector) Stop(ctx context.Context) error {
	if c.cancel == nil {
		return nil
	}
	c.cancel()
	wait := []<-chan struct{}{c.pumped}
	if cl, ok := c.in.(io.Closer); ok && c.in != io.Reader(os.Stdin) {
		_ = cl.Close()
		wait = append(wait, c.readEnd)
	}
	for _, ch := range wait {
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	c.finish()
	return nil
}

// readLine returns the next line without its \n or \r\n; a line over max
// bytes is consumed and reported as tooLong without being kept.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(line, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) > max {
			tooLong, line = true, nil
		}
		return line, tooLong, err
	}
}

var _ runtime.Connector = (*Connector)(nil)

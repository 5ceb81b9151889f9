// Package stdio is the stdio connector: it reads the process's standard
// input line by line and hands each line to its one flow, and writes what
// the flow answers to standard output, one line per message. It knows
// nothing of the protocols the lines carry (MCP over stdio is one).
//
// A flow gets three events (the message's typed view, a *stdiomsg.Event):
//
//	Opened  once at start, without a body. If the flow answers with a stream,
//	        every event's data is written as a line until the stream ends: a
//	        block keeps a channel to the other side this way.
//	Line    one line read, without its \n or \r\n, as the raw body. A body in
//	        the answer is written as one line; a stream answer, each event.
//	        Lines go to the flow one at a time, in order, and the next line is
//	        read only once the flow has answered: a flow that waits holds the
//	        client back. A line longer than maxLineBytes (default 64 MB) is not
//	        read: the flow gets a Line with no body, TooLong set and the limit.
//	Ended   once when input ends; Done then closes. Stopping the connector
//	        writes what is left of the Opened stream: a stream that is a
//	        runtime.Drainer is drained until Stop's context ends.
//
// Each message is settled through runtime.Flow.Deliver: the answer is
// written (Ack), and a flow that fails (Nack) gets nothing written, its
// error logged with its kind; a protocol that answers its own errors (MCP's
// JSON-RPC errors in mcp-mock) does so in the answer instead.
//
// A write to standard output that the client does not take for
// stallTimeout (default 1m) ends the connector with a logged reason.
// Only the flow's answers reach standard output; logs go to standard error.
package stdio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterConnector(runtime.ConnectorSpec{
		Type:    "stdio",
		Summary: "serves one flow over standard input and output, one message per line",
		Doc: "Reads standard input line by line and hands each line to its one flow, in order, " +
			"and writes what the flow answers to standard output, one line per message (a stream, " +
			"one line per event). Logs go to standard error.",
		Example:       "connectors:\n  - { name: stdio, type: stdio }\nflows:\n  - name: mcp\n    source: { connector: stdio }\n",
		Build:         runtime.ConnectorFunc(build),
		Transport:     stdiomsg.Transport,
		OnePerService: true,
	})
}

// Settings are the stdio connector's settings.
type Settings struct {
	MaxLineBytes int           `yaml:"maxLineBytes" default:"67108864" min:">0" doc:"The longest line read (64 MB); a longer one reaches the flow as a line event with no body, marked too long."`
	StallTimeout time.Duration `yaml:"stallTimeout" default:"1m" min:">0" doc:"How long a write to standard output may wait for the client to read; then the connector ends, logging why."`
}

// Connector serves one flow over a pair of streams.
type Connector struct {
	name    string
	maxLine int
	stall   time.Duration
	logger  *slog.Logger
	flow    *runtime.Flow

	in      io.Reader
	out     io.Writer
	wmu     sync.Mutex // one line at a time on out
	ctx     context.Context
	cancel  context.CancelFunc
	open    runtime.Stream
	pumped  chan struct{} // closed when the OPEN stream is written out
	done    chan struct{} // closed when input ended, output stalled or Stop ran
	stopped sync.Once
	readEnd chan struct{} // closed when the reading goroutine returns
	lineMu  sync.Mutex    // held while a line is with the flow
	closing bool          // under lineMu: no more lines go to the flow
	stalled atomic.Bool

	shared   *runtime.Shared
	release  runtime.Release // the claim on the streams, let go by letGo
	holds    atomic.Int32    // what keeps the claim: Stop not run, the reader not ended
	stopOnce sync.Once
}

func build(b *runtime.ConnectorBuild, s *Settings) (runtime.Connector, error) {
	return &Connector{name: b.Name, maxLine: s.MaxLineBytes, stall: s.StallTimeout, logger: b.Logger(),
		pumped: make(chan struct{}), done: make(chan struct{}), readEnd: make(chan struct{}), shared: b.Shared()}, nil
}

// Attach takes the connector's one flow.
func (c *Connector) Attach(_ *runtime.SourceBuild, flow *runtime.Flow) error {
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

// Start claims the streams, opens the flow's stream and starts reading lines.
func (c *Connector) Start(ctx context.Context) error {
	c.in, c.out = os.Stdin, os.Stdout
	key := "stdio:process"
	if s, ok := ctx.Value(streamsKey{}).([2]any); ok {
		c.in, c.out = s[0].(io.Reader), s[1].(io.Writer)
		key = fmt.Sprintf("stdio:%p", s[0])
	}
	if err := c.claim(key); err != nil {
		return err
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	if c.flow == nil {
		close(c.pumped)
		close(c.readEnd)
		c.letGo()
		c.finish()
		return nil
	}
	if err := c.flow.Deliver(c.ctx, stdiomsg.NewMessage(nil, stdiomsg.Event{Kind: stdiomsg.Opened}), opening{c}); err != nil {
		c.cancel()
		c.holds.Store(1)
		c.letGo()
		return fmt.Errorf("connector %q: opening flow %q: %w", c.name, c.flow.Name, err)
	}
	go c.read()
	return nil
}

// opening settles the Opened message: a stream in the answer is written out from now on, and
// a failure fails Start.
type opening struct{ c *Connector }

// Ack starts writing the answer's stream, if it has one.
func (o opening) Ack(_ context.Context, answer *runtime.Message) error {
	c := o.c
	if c.open = answer.Stream(); c.open != nil {
		go func() { defer close(c.pumped); c.pump(c.open) }()
	} else {
		close(c.pumped)
	}
	return nil
}

// Nack returns the flow's error, which Start returns.
func (opening) Nack(_ context.Context, err error) error { return err }

// Done is closed once input has ended and the flow has heard so (END), or
// the connector gave up on standard output or stopped. Stop then writes
// what the flow still has to say.
func (c *Connector) Done() <-chan struct{} { return c.done }

// streams stand for a pair of streams in a runtime.Shared table: one connector reads them at
// a time.
type streams struct{}

func (streams) Close(context.Context) error { return nil }

// claim makes c the one reader of the streams under key. A stdio session stays with the build
// that opened it, so a later build cannot take the streams over while an earlier one holds
// them: it fails to start, and a reload leaves the running build serving.
func (c *Connector) claim(key string) error {
	first := false
	_, release, err := runtime.Acquire(c.shared, key, func() (streams, error) { first = true; return streams{}, nil })
	if err != nil {
		return fmt.Errorf("connector %q: %w", c.name, err)
	}
	if !first {
		_ = release(context.Background())
		return fmt.Errorf("connector %q: standard input and output are served by a running build, which keeps its session: restart octo to serve another", c.name)
	}
	c.release = release
	c.holds.Store(2)
	return nil
}

// letGo drops one of the two holds on the streams: Stop, and the reader ending. A reader
// blocked on the process's standard input keeps the claim, so no later build reads beside it.
func (c *Connector) letGo() {
	if c.holds.Add(-1) == 0 {
		_ = c.release(context.Background())
	}
}

// read hands each line to the flow, in order, until input ends.
func (c *Connector) read() {
	defer c.letGo()
	defer close(c.readEnd)
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, tooLong, err := stdiomsg.ReadLine(r, c.maxLine)
		if len(line) > 0 || tooLong || err == nil {
			if !c.handle(line, tooLong) {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && c.ctx.Err() == nil {
				c.logger.Warn("reading standard input failed", "err", err)
			}
			break
		}
	}
	if c.ctx.Err() == nil {
		_ = c.flow.Deliver(c.ctx, stdiomsg.NewMessage(nil, stdiomsg.Event{Kind: stdiomsg.Ended}), ending{c})
	}
	c.finish()
}

func (c *Connector) finish() {
	c.stopped.Do(func() { close(c.done) })
}

// handle runs the flow for one line and writes its answer; false once the
// connector is closing.
func (c *Connector) handle(line []byte, tooLong bool) bool {
	c.lineMu.Lock()
	defer c.lineMu.Unlock()
	if c.closing {
		return false
	}
	ev := stdiomsg.Event{Kind: stdiomsg.Line}
	if tooLong {
		ev.TooLong, ev.Limit, line = true, c.maxLine, nil
	}
	_ = c.flow.Deliver(c.ctx, stdiomsg.NewMessage(line, ev), lineReply{c})
	return true
}

// lineReply settles a Line: the answer is written, a failure logged.
type lineReply struct{ c *Connector }

// Ack writes the answer: a stream one line per event, a body as one line, nothing for none.
func (l lineReply) Ack(_ context.Context, ans *runtime.Message) error {
	c := l.c
	if err := stdiomsg.WriteAnswer(c.ctx, ans, c.writeLine); err != nil {
		c.logger.Error("encoding the answer failed", "err", err)
	}
	return nil
}

// Nack logs the failure with its kind and writes nothing: a line-based protocol has no room
// for an answer the client did not ask for.
func (l lineReply) Nack(_ context.Context, err error) error {
	c := l.c
	if c.ctx.Err() == nil {
		e := runtime.ErrorOf(err)
		c.logger.Error("flow failed for a line", "flow", c.flow.Name, "errKind", e.Kind, "err", e.Msg)
	}
	return nil
}

// ending settles Ended: nothing is written.
type ending struct{ c *Connector }

// Ack has nothing to write.
func (ending) Ack(context.Context, *runtime.Message) error { return nil }

// Nack logs the failure at debug level: the session is over anyway.
func (e ending) Nack(_ context.Context, err error) error {
	e.c.logger.Debug("flow failed at end of input", "err", err)
	return nil
}

// pump writes each event of s as a line until it ends or the connector
// stops.
func (c *Connector) pump(s runtime.Stream) { stdiomsg.Pump(c.ctx, s, c.writeLine) }

// smallLine is the size up to which a line and its newline are copied into
// one write; a longer line is written in pieces of this size, then the
// newline, rather than copied whole.
const smallLine = 64 << 10

// writeLine writes one message and a newline; data holding a newline is
// compacted when it is JSON, since a line must not break. When the client
// takes nothing of it for the stall timeout, the connector ends.
func (c *Connector) writeLine(data []byte) bool {
	data = stdiomsg.OneLine(data)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.stalled.Load() {
		return false
	}
	watchdog := time.AfterFunc(c.stall, c.giveUp)
	defer watchdog.Stop()
	if len(data) <= smallLine {
		return c.write(append(append(make([]byte, 0, len(data)+1), data...), '\n'))
	}
	for len(data) > 0 {
		n := min(len(data), smallLine)
		if !c.write(data[:n]) || c.stalled.Load() {
			return false
		}
		data = data[n:]
		watchdog.Reset(c.stall) // the client is reading
	}
	return c.write([]byte{'\n'})
}

// write writes p to the output; a failure ends the connector.
func (c *Connector) write(p []byte) bool {
	if _, err := c.out.Write(p); err != nil {
		if c.ctx.Err() == nil {
			c.logger.Warn("writing standard output failed", "err", err)
			c.cancel()
			c.finish()
		}
		return false
	}
	return true
}

// giveUp ends the connector when the client has not taken a line for the
// stall timeout: it stopped reading, and what is written for it only piles
// up. The blocked write stays blocked; the process is expected to exit.
func (c *Connector) giveUp() {
	c.stalled.Store(true)
	c.logger.Warn("standard output stalled: the client has read nothing for "+c.stall.String()+"; ending the session",
		"connector", c.name)
	c.cancel()
	c.finish()
}

// Stop lets the flow finish what it owes, then stops: the OPEN stream, if
// it is a runtime.Drainer, is drained and written until it ends, and a line
// with the flow is let finish, as long as ctx lasts. A read blocked on the
// process's standard input cannot be interrupted; it ends with the process.
func (c *Connector) Stop(ctx context.Context) error {
	if c.cancel == nil {
		return nil
	}
	defer c.stopOnce.Do(c.letGo)
	defer c.finish()
	defer c.cancel()
	if d, ok := c.open.(runtime.Drainer); ok && !c.stalled.Load() {
		d.Drain(ctx)
		select {
		case <-c.pumped:
		case <-c.ctx.Done(): // the output stalled or failed: nothing more gets out
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err := c.closeLines(ctx); err != nil {
		return err
	}
	c.cancel()
	if cl, ok := c.in.(io.Closer); ok && c.in != io.Reader(os.Stdin) {
		_ = cl.Close()
		if err := wait(ctx, c.readEnd); err != nil {
			return err
		}
	}
	if c.stalled.Load() {
		return nil // the pump is stuck in a write that will not return
	}
	return wait(ctx, c.pumped)
}

// closeLines waits until no line is with the flow and lets no more through.
func (c *Connector) closeLines(ctx context.Context) error {
	locked := make(chan struct{})
	go func() {
		c.lineMu.Lock()
		c.closing = true
		c.lineMu.Unlock()
		close(locked)
	}()
	return wait(ctx, locked)
}

func wait(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var (
	_ runtime.Connector = (*Connector)(nil)
	_ runtime.Resource  = streams{}
	_ runtime.Delivery  = opening{}
	_ runtime.Delivery  = lineReply{}
	_ runtime.Delivery  = ending{}
)

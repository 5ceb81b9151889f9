package octotest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/octo-run/octo/connectors/stdio"
	"github.com/octo-run/octo/runtime/lines"
)

// pipe talks to a server over a pair of pipes, one message per line, as an MCP client that
// starts it as a command does: a flow's stdio connector served in-process (through its own
// code: framing, line limit, the order of lines, the session it opens; nothing touches the
// process's standard streams), or a server process (octo test --server -- COMMAND).
type pipe struct {
	who     string // "the flow" or "the server", for messages
	conn    lineServer
	in      *io.PipeWriter // the case writes here; the connector reads the other end
	out     *io.PipeWriter // the connector writes here; read drains the other end
	lines   chan outLine   // what read got, for the case; closed when the output ends
	quit    chan struct{}  // closed when the case stops listening: read discards from then on
	readOK  chan struct{}  // closed when read returned
	unwatch func() bool    // stops closing the input when the case's context ends

	shutOnce sync.Once
}

// outLine is one line the connector wrote; one over the limit is marked, not kept.
type outLine struct {
	data    []byte
	tooLong bool
}

// lineServer is what a pipe talks to, once started on its streams.
type lineServer interface {
	// Done is closed once the server has answered what it read and heard its input end.
	Done() <-chan struct{}
	// Stop stops it, letting it finish until ctx ends.
	Stop(ctx context.Context) error
}

// startLines starts a server reading in and writing out.
type startLines func(ctx context.Context, in io.Reader, out io.Writer) (lineServer, error)

// connectorLines starts a flow's stdio connector on the streams.
func connectorLines(conn *stdio.Connector) startLines {
	return func(ctx context.Context, in io.Reader, out io.Writer) (lineServer, error) {
		return conn, conn.Start(stdio.WithStreams(ctx, in, out))
	}
}

// openPipe starts a server on a pair of pipes. Once ctx ends (the case's timeout), the case's
// end of the input is closed, so a write the server does not take returns instead of waiting.
func openPipe(ctx context.Context, who string, start startLines) (*pipe, error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pipe{who: who, in: inW, out: outW, lines: make(chan outLine),
		quit: make(chan struct{}), readOK: make(chan struct{})}
	go p.read(outR)
	conn, err := start(ctx, inR, outW)
	if err != nil {
		close(p.quit)
		_ = outW.Close()
		<-p.readOK
		return nil, err
	}
	p.conn = conn
	p.unwatch = context.AfterFunc(ctx, func() { _ = inW.Close() })
	return p, nil
}

// read hands each line the connector writes to the case, and once the case stops listening
// goes on taking them (so the connector's writes never stall) until the output closes.
func (p *pipe) read(r io.Reader) {
	defer close(p.readOK)
	defer close(p.lines)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := lines.Read(br, maxBody)
		if len(line) > 0 || tooLong {
			select {
			case p.lines <- outLine{data: line, tooLong: tooLong}:
			case <-p.quit:
			}
		}
		if err != nil {
			return
		}
	}
}

// write sends one line to the connector.
func (p *pipe) write(ctx context.Context, data []byte) error {
	_, err := p.in.Write(append(data[:len(data):len(data)], '\n'))
	if err != nil && ctx.Err() != nil {
		return errors.New(p.who + " did not read the line in time")
	}
	if err != nil {
		return fmt.Errorf("%s's input is closed: %v", p.who, err)
	}
	return nil
}

// next is the next line the connector writes; an error when ctx ended first (the flow did not
// answer in time), the output ended, or the line is over the limit.
func (p *pipe) next(ctx context.Context) (outLine, error) {
	select {
	case l, ok := <-p.lines:
		if !ok {
			return outLine{}, errors.New(p.who + "'s output ended")
		}
		if l.tooLong {
			return outLine{}, fmt.Errorf("%s wrote a line longer than %d bytes", p.who, maxBody)
		}
		return l, nil
	case <-ctx.Done():
		return outLine{}, errors.New(p.who + " wrote no answer in time") // the case's timeout says the rest
	}
}

// stopGrace is how long a connector whose client left may take to finish what it owes; a case
// that ran out of time gives it little, as nobody waits for those answers.
const (
	stopGrace        = 5 * time.Second
	stopGraceTimeout = 500 * time.Millisecond
)

// shut ends the session as a client leaving does: the input ends, the connector lets the flow
// answer the lines it read (until ctx ends) and stops, and its output is closed, so read ends
// once it has handed on or discarded the last line. It runs once.
func (p *pipe) shut(ctx context.Context) {
	p.shutOnce.Do(func() {
		p.unwatch()
		_ = p.in.Close()
		select {
		case <-p.conn.Done(): // every line read was answered, and the flow heard the input end
		case <-ctx.Done():
		}
		grace := stopGrace
		if ctx.Err() != nil {
			grace = stopGraceTimeout
		}
		sctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		_ = p.conn.Stop(sctx)
		_ = p.out.Close()
	})
}

// close shuts the session, if that is not done, and waits for read to return.
func (p *pipe) close(ctx context.Context) {
	close(p.quit)
	p.shut(ctx)
	<-p.readOK
}

// exchange sends one line and returns what the flow wrote until it stopped, once its input
// ended after that line: a plain line flow's answer to it, its lines in order.
func (p *pipe) exchange(ctx context.Context, line []byte) ([][]byte, error) {
	if err := p.write(ctx, line); err != nil {
		return nil, err
	}
	go p.shut(ctx)
	var (
		got  [][]byte
		size int
		err  error
	)
	for l := range p.lines { // read to the end, so the connector is never held back
		size += len(l.data)
		switch {
		case err != nil:
		case l.tooLong || size > maxBody:
			err = fmt.Errorf("%s wrote more than %d bytes", p.who, maxBody)
		default:
			got = append(got, l.data)
		}
	}
	if err == nil && ctx.Err() != nil {
		err = errors.New(p.who + " did not finish answering in time") // the case's timeout says the rest
	}
	return got, err
}

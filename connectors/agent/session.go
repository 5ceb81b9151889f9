package agent

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/octo-run/octo/agentlink/handshake"
	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/runtime"
)

// session is one authenticated connection: a line session of the flow.
type session struct {
	c      *Connector
	id     uint64
	conn   net.Conn
	ctx    context.Context // the flow's context for this session; ends when the connection closes
	cancel context.CancelFunc
	pumped chan struct{} // closed once the answer to Opened is written out (or was none)

	openMu sync.Mutex
	open   runtime.Stream // under openMu: the answer to Opened, written until it ends

	wmu sync.Mutex // one line at a time on conn
}

// serve runs the handshake on conn and, when it passes, serves it as a session until either
// side ends it.
func (c *Connector) serve(conn net.Conn) {
	defer c.untrack(conn)
	err := handshake.Accept(conn, c.info, handshake.AcceptOptions{Within: c.set.HandshakeTimeout, Admit: c.admit})
	<-c.handshakes
	if err != nil {
		c.refused("agent connection refused", "remote", conn.RemoteAddr().String(), "err", err)
		return
	}
	defer c.sessions.Add(-1)
	s := &session{c: c, id: c.nextID.Add(1), conn: conn, pumped: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	defer s.cancel()
	if !c.add(s) {
		return
	}
	defer c.remove(s)
	c.logger.Info("agent connected", "session", s.id)
	defer c.logger.Info("agent disconnected", "session", s.id)
	if err := c.flow.Deliver(s.ctx, s.message(stdiomsg.Opened, nil), opening{s}); err != nil {
		c.logger.Error("opening an agent session failed", "session", s.id, "flow", c.flow.Name, "err", err)
		return
	}
	s.read()
	s.cancel() // the stream's Next returns, and the pump with it
	<-s.pumped
}

func (c *Connector) add(s *session) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return false
	}
	c.open[s.id] = s
	c.conns[s.conn] = true
	return true
}

func (c *Connector) remove(s *session) {
	c.mu.Lock()
	delete(c.open, s.id)
	c.mu.Unlock()
}

func (s *session) message(kind stdiomsg.Kind, body []byte) *runtime.Message {
	return stdiomsg.NewMessage(body, stdiomsg.Event{Kind: kind, Session: s.id})
}

// read hands each line to the flow, in order (the next is read once the flow has answered),
// until the bridge's input ends or the connection closes; then the flow hears Ended, and the
// session's stream is let finish. A session whose writes failed is cancelled first: its flow
// does not hear Ended, and the session ends when the connector closes its stream.
func (s *session) read() {
	r := bufio.NewReaderSize(s.conn, 64<<10)
	for {
		line, tooLong, err := stdiomsg.ReadLine(r, s.c.set.MaxLineBytes)
		if len(line) > 0 || tooLong || err == nil {
			s.handle(line, tooLong)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && s.ctx.Err() == nil {
				s.c.logger.Debug("reading from an agent failed", "session", s.id, "err", err)
			}
			break
		}
	}
	_ = s.c.flow.Deliver(s.ctx, s.message(stdiomsg.Ended, nil), ending{s})
	// The session answers what it read, then ends its stream; a stop or a broken connection
	// ends the wait. A bridge that only closed its sending side still reads its answers, but
	// one that is gone (killed) left nobody to answer: a blank line every second, which a
	// bridge skips, finds out, and the write that fails cancels the session, so its calls end
	// (a question to the user with them) rather than wait for their own timeouts.
	probe := time.NewTicker(probeEvery)
	defer probe.Stop()
	for {
		select {
		case <-s.pumped:
			return
		case <-s.ctx.Done():
			return
		case <-probe.C:
			s.writeLine(nil)
		}
	}
}

// probeEvery is how often a session whose input ended checks that its bridge is still there.
const probeEvery = time.Second

// handle runs the flow for one line; its answer is written by lineReply.
func (s *session) handle(line []byte, tooLong bool) {
	ev := stdiomsg.Event{Kind: stdiomsg.Line, Session: s.id}
	if tooLong {
		ev.TooLong, ev.Limit, line = true, s.c.set.MaxLineBytes, nil
	}
	_ = s.c.flow.Deliver(s.ctx, stdiomsg.NewMessage(line, ev), lineReply{s})
}

// pump writes each event of st as a line until it ends, then closes the connection: the flow
// ended the session.
func (s *session) pump(st runtime.Stream) {
	defer close(s.pumped)
	defer s.conn.Close()
	stdiomsg.Pump(s.ctx, st, s.writeLine)
}

// chunk is how much of a long line is written under one stall deadline: a bridge that keeps
// reading is never cut off, however long the line.
const chunk = 64 << 10

// writeLine writes one message and a newline. A bridge that takes nothing for the stall
// timeout loses its connection (only its own).
func (s *session) writeLine(data []byte) bool {
	data = stdiomsg.OneLine(data)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.ctx.Err() != nil {
		return false
	}
	if len(data) < chunk {
		return s.write(append(append(make([]byte, 0, len(data)+1), data...), '\n'))
	}
	for len(data) > 0 {
		n := min(len(data), chunk)
		if !s.write(data[:n]) {
			return false
		}
		data = data[n:]
	}
	return s.write([]byte{'\n'})
}

// write writes p within the stall timeout; a failure closes the connection.
func (s *session) write(p []byte) bool {
	_ = s.conn.SetWriteDeadline(time.Now().Add(s.c.set.StallTimeout))
	if _, err := s.conn.Write(p); err != nil {
		if s.ctx.Err() == nil {
			s.c.logger.Warn("writing to an agent failed; closing its connection", "session", s.id, "err", err)
		}
		s.cancel()
		s.conn.Close()
		return false
	}
	return true
}

// stop drains the session's stream (the answers it owes are written) until ctx ends, then
// closes the connection.
func (s *session) stop(ctx context.Context) {
	defer s.conn.Close()
	defer s.cancel()
	s.openMu.Lock()
	d, ok := s.open.(runtime.Drainer)
	s.openMu.Unlock()
	if ok {
		d.Drain(ctx)
		select {
		case <-s.pumped:
		case <-s.ctx.Done():
		case <-ctx.Done():
		}
	}
}

// opening settles Opened: a stream in the answer is written from now on.
type opening struct{ s *session }

// Ack starts writing the answer's stream, if it has one.
func (o opening) Ack(_ context.Context, answer *runtime.Message) error {
	s := o.s
	st := answer.Stream()
	s.openMu.Lock()
	s.open = st
	s.openMu.Unlock()
	if st != nil {
		go s.pump(st)
	} else {
		close(s.pumped)
	}
	return nil
}

// Nack returns the flow's error: the session is not served.
func (opening) Nack(_ context.Context, err error) error { return err }

// lineReply settles a Line: the answer is written, a failure logged.
type lineReply struct{ s *session }

// Ack writes the answer: a stream one line per event, a body as one line, nothing for none.
func (l lineReply) Ack(_ context.Context, ans *runtime.Message) error {
	s := l.s
	if err := stdiomsg.WriteAnswer(s.ctx, ans, s.writeLine); err != nil {
		s.c.logger.Error("encoding the answer failed", "session", s.id, "err", err)
	}
	return nil
}

// Nack logs the failure with its kind and writes nothing: a line protocol has no room for an
// answer the bridge did not ask for.
func (l lineReply) Nack(_ context.Context, err error) error {
	s := l.s
	if s.ctx.Err() == nil {
		e := runtime.ErrorOf(err)
		s.c.logger.Error("flow failed for a line", "session", s.id, "flow", s.c.flow.Name, "errKind", e.Kind, "err", e.Msg)
	}
	return nil
}

// ending settles Ended: nothing is written.
type ending struct{ s *session }

// Ack has nothing to write.
func (ending) Ack(context.Context, *runtime.Message) error { return nil }

// Nack logs the failure at debug level: the session is over anyway.
func (e ending) Nack(_ context.Context, err error) error {
	e.s.c.logger.Debug("flow failed at end of input", "session", e.s.id, "err", err)
	return nil
}

var (
	_ runtime.Delivery = opening{}
	_ runtime.Delivery = lineReply{}
	_ runtime.Delivery = ending{}
)

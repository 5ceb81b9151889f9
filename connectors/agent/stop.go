package agent

import (
	"context"
	"net"
	"sync"

	"github.com/octo-run/octo/agentlink/appdata"
)

// Stop removes agent.json (no bridge should dial a closing app), stops accepting, lets each
// session write what it owes until ctx ends, then closes every connection and lets the data
// folder go.
func (c *Connector) Stop(ctx context.Context) error {
	if c.ln == nil {
		return nil
	}
	c.mu.Lock()
	already := c.closing
	c.closing = true
	sessions := make([]*session, 0, len(c.open))
	for _, s := range c.open {
		sessions = append(sessions, s)
	}
	for conn, session := range c.conns {
		if !session {
			conn.Close() // a handshake in progress: nothing is owed to it
		}
	}
	c.mu.Unlock()
	if already {
		return c.wait(ctx)
	}
	if err := appdata.RemoveInfo(c.dir, c.info.Instance); err != nil {
		c.logger.Warn("removing agent.json failed", "dataDir", c.dir, "err", err)
	}
	c.ln.Close()
	var stopping sync.WaitGroup
	for _, s := range sessions {
		stopping.Go(func() { s.stop(ctx) })
	}
	stopping.Wait()
	err := c.wait(ctx)
	if uerr := c.lock.Unlock(); err == nil {
		err = uerr
	}
	return err
}

// wait waits for every connection's goroutine; when ctx ends first, it closes the connections
// still open (a handshake in progress, a session whose flow holds a line) and waits for them
// to notice.
func (c *Connector) wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	c.mu.Lock()
	open := make([]net.Conn, 0, len(c.conns))
	for conn := range c.conns {
		open = append(open, conn)
	}
	for _, s := range c.open {
		s.cancel()
	}
	c.mu.Unlock()
	for _, conn := range open {
		conn.Close()
	}
	<-done
	return ctx.Err()
}

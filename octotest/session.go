package octotest

import (
	"context"
	"io"
	"net/http"
	"sync"
)

// A case against --server has a session of its own unless it names one (mcp.session): the
// cases of a file naming the same session share it, in the order written. The first opens it
// (its client's handshake, its headers or env); the others send their request on it, each
// with its own scripted answers and checks. Sessions end when the run does.

// sharedSession is an open session the cases naming it share.
type sharedSession struct {
	client *mcpClient
	log    *switchLog // the server's log, into the case running on it
	close  func()
	err    error // why the first case could not open it
}

// sessionKey names a session in a run: sessions are a file's own.
func sessionKey(c *loaded) string { return c.file + "\x00" + c.MCP.Session }

// inSession runs case c on the session it names, opening it for the first case.
func (r *runner) inSession(ctx context.Context, c *loaded, o *outcome) {
	s := r.sessions[sessionKey(c)]
	if s == nil {
		s = &sharedSession{log: &switchLog{}}
		s.log.to(&o.log)
		s.client, s.close, s.err = r.openSession(c, s.log)
		r.sessions[sessionKey(c)] = s
		if s.err != nil {
			s.log.to(nil)
			o.failf("%v", s.err)
			return
		}
	} else {
		if s.err != nil {
			o.failf("mcp.session %q: its first case could not open it", c.MCP.Session)
			return
		}
		s.log.to(&o.log)
		// The connection and the client keep their pointer to the script: the case's
		// answers and checks replace the last case's in place.
		*s.client.script = *newScript(c)
	}
	defer s.log.to(nil)
	r.mcpCase(ctx, s.client, c, nil, o)
}

// openSession connects to the server for a session that outlives the case opening it: bound
// by the run, not by the case's timeout.
func (r *runner) openSession(c *loaded, log io.Writer) (*mcpClient, func(), error) {
	sc := newScript(c)
	if r.server.URL != "" {
		tr := &http.Transport{}
		hc := &http.Client{Transport: tr}
		if r.server.sse {
			conn, err := openSSE(r.ctx, hc, r.server.URL, c.MCP.Headers)
			if err != nil {
				return nil, nil, err
			}
			conn.script = sc
			return newClient(conn, sc, c), func() { conn.close(); tr.CloseIdleConnections() }, nil
		}
		conn := &httpConn{hc: hc, url: r.server.URL, headers: c.MCP.Headers, script: sc}
		return newClient(conn, sc, c), func() { conn.end(r.ctx); tr.CloseIdleConnections() }, nil
	}
	p, err := openPipe(r.ctx, "the server", processLines(r.server.Command, c.Env, log))
	if err != nil {
		return nil, nil, err
	}
	return newClient(lineConn{p: p, script: sc}, sc, c), func() { p.close(r.ctx) }, nil
}

// closeSessions ends every session the run opened.
func (r *runner) closeSessions() {
	for _, s := range r.sessions {
		if s.close != nil {
			s.close()
		}
	}
}

// switchLog is a server's log that goes to the case running on its session, and nowhere
// between cases.
type switchLog struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *switchLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w != nil {
		_, _ = l.w.Write(p)
	}
	return len(p), nil
}

func (l *switchLog) to(w io.Writer) {
	l.mu.Lock()
	l.w = w
	l.mu.Unlock()
}

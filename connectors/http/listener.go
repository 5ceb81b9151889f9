package http

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/octo-run/octo/runtime"
)

// A port is one bound address, shared through runtime.Shared (key "tcp:host:port") by the
// builds of a unit, so that a reload never unbinds it. Requests go to the connector that holds
// the port now: a new build's connector takes it over when it starts, and from then on every
// request, on a new connection or on a kept-alive one, is routed by the new build. The old
// connector, when it stops, waits for the requests it had begun (and drains its streams), then
// lets go of the port; the last to let go closes it.
//
// A port's connections are read by one net/http server per set of connection settings (header
// size and timeouts): a holder with other settings gets a new server for the connections that
// arrive from then on, while the old server keeps serving the ones it has, with the current
// routes, until they close.
type port struct {
	ln    net.Listener // the bound socket under the per-client connection cap
	addr  net.Addr
	conns *clientCounts
	cur   atomic.Pointer[Connector] // the holder whose routes serve

	mu      sync.Mutex
	holders []*Connector  // attached, in order; the last one serves
	servers []*connServer // the last one takes new connections
	open    map[net.Conn]*tracked

	acceptOnce sync.Once     // starts the accept loop once a server is there to take connections
	accepting  chan struct{} // closed when the accept loop has returned (or never started)
	wg         sync.WaitGroup
}

// connServer is one net/http server over some of the port's connections.
type connServer struct {
	srv     *http.Server
	key     connSettings
	in      *handoff
	conns   int  // under port.mu: connections it serves
	serving bool // under port.mu: its Serve has not returned
}

// connSettings are what a net/http server fixes for its connections.
type connSettings struct {
	readHeaderTimeout, idleTimeout time.Duration
	maxHeaderBytes                 int
}

// tracked is one connection, with the connector whose request it carries now, so a connector
// whose stop runs out of time can close the connections of its own requests and only those.
type tracked struct {
	srv   *connServer
	owner atomic.Pointer[Connector]
	fresh atomic.Bool // accepted, and no request read from it yet (http.StateNew)
	// ctx is the connection's context, the parent of each of its requests' contexts, and cancel
	// ends it: a stop forcing the request the connection carries cancels it (serveCounted), and
	// the connection is then closed once that request is answered (mark), so no later request
	// starts under a spent context. Joining once per connection rather than per request saves
	// each request five allocations.
	ctx    context.Context
	cancel context.CancelCauseFunc
}

type trackedKey struct{}

// acquirePort returns the port c listens on, bound now or held by an earlier build, and
// whether this call bound it. Port 0 asks for a free port: it is never shared.
func acquirePort(c *Connector) (p *port, release runtime.Release, bound bool, err error) {
	addr := net.JoinHostPort(c.settings.Host, strconv.Itoa(c.settings.Port))
	open := func() (*port, error) {
		bound = true
		return listen(addr, c)
	}
	if c.settings.Port == 0 {
		p, err = open()
		if err != nil {
			return nil, nil, false, err
		}
		return p, p.Close, true, nil
	}
	p, release, err = runtime.Acquire(c.shared, "tcp:"+addr, open)
	return p, release, bound, err
}

// listen binds addr with c's per-client connection cap; the first holder to attach starts
// accepting, so that no connection arrives before a server is there to take it.
func listen(addr string, c *Connector) (*port, error) {
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", addr)
	if err != nil {
		return nil, err
	}
	p := &port{addr: ln.Addr(), conns: newClientCounts(c.settings.MaxConnsPerClient),
		open: map[net.Conn]*tracked{}, accepting: make(chan struct{})}
	p.ln = &capListener{Listener: ln, conns: p.conns, log: c.logger, refused: func() {
		if c := p.cur.Load(); c != nil {
			c.obs.reject(reasonClientConns)
		}
	}}
	return p, nil
}

// accept hands each new connection to the server that takes them now.
func (p *port) accept() {
	defer close(p.accepting)
	for {
		conn, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.handOff(conn)
	}
}

func (p *port) handOff(conn net.Conn) {
	for {
		p.mu.Lock()
		var in *handoff
		if n := len(p.servers); n > 0 {
			in = p.servers[n-1].in
		}
		p.mu.Unlock()
		if in == nil {
			_ = conn.Close()
			return
		}
		select {
		case in.conns <- conn:
			return
		case <-in.closed: // a newer server took over meanwhile
		}
	}
}

// attach makes c serve the port. Only a later build of the unit holding it may take it over:
// anyone else finds it in use, as they would a port another process bound.
func (p *port) attach(c *Connector) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.holders); n > 0 && !c.holder.Succeeds(p.holders[n-1].holder) {
		return fmt.Errorf("listen tcp %s: address already in use by connector %q", p.addr, p.holders[n-1].name)
	}
	p.holders = append(p.holders, c)
	p.serveLocked(c)
	return nil
}

// handOver takes c off the port. When c served it, the holder before it serves again (a new
// build that failed to start gives the port back). It reports whether another holder is left
// to serve: if not, c keeps serving until the port closes, so that requests on connections
// still open are answered as a server that shuts down answers them.
func (p *port) handOver(c *Connector) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.holders = slices.DeleteFunc(p.holders, func(h *Connector) bool { return h == c })
	n := len(p.holders)
	if n == 0 {
		return false
	}
	if p.cur.Load() == c {
		p.serveLocked(p.holders[n-1])
	}
	return true
}

// serveLocked routes the port's requests to c and new connections to a server with c's
// connection settings.
func (p *port) serveLocked(c *Connector) {
	p.cur.Store(c)
	p.conns.setMax(c.settings.MaxConnsPerClient)
	key := connSettings{c.settings.ReadHeaderTimeout, c.settings.IdleTimeout, c.settings.MaxHeaderBytes}
	n := len(p.servers)
	if n > 0 && p.servers[n-1].key == key {
		return
	}
	if n > 0 {
		p.servers[n-1].in.Close() // it serves the connections it has, and takes no more
	}
	p.servers = append(p.servers, p.newServer(c, key))
	p.acceptOnce.Do(func() { go p.accept() })
}

// newServer starts a net/http server with key's settings, serving the connections handed to it
// until it is closed, and the requests on them until they close.
func (p *port) newServer(c *Connector, key connSettings) *connServer {
	cs := &connServer{key: key, in: &handoff{addr: p.addr, conns: make(chan net.Conn), closed: make(chan struct{})}, serving: true}
	cs.srv = &http.Server{
		Handler:           p,
		ReadHeaderTimeout: key.readHeaderTimeout,
		IdleTimeout:       key.idleTimeout,
		MaxHeaderBytes:    key.maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(c.logger.Handler(), slog.LevelDebug),
		ConnContext: func(ctx context.Context, conn net.Conn) context.Context {
			ctx, cancel := context.WithCancelCause(ctx)
			t := &tracked{srv: cs, ctx: ctx, cancel: cancel}
			p.track(conn, t)
			return context.WithValue(ctx, trackedKey{}, t)
		},
		ConnState: func(conn net.Conn, s http.ConnState) {
			switch s {
			case http.StateClosed, http.StateHijacked:
				p.untrack(conn)
			default:
				p.mark(conn, s)
			}
		},
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		if err := cs.srv.Serve(cs.in); err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			c.logger.Error("serve failed", "err", err)
		}
		p.mu.Lock()
		cs.serving = false
		p.dropIfDone(cs)
		p.mu.Unlock()
	}()
	return cs
}

func (p *port) track(conn net.Conn, t *tracked) {
	p.mu.Lock()
	p.open[conn] = t
	t.srv.conns++
	p.mu.Unlock()
}

func (p *port) untrack(conn net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t, ok := p.open[conn]; ok {
		delete(p.open, conn)
		t.srv.conns--
		p.dropIfDone(t.srv)
	}
}

// mark records whether conn has yet to send its first request, and closes it once it has
// answered a request a stop forced: its context is spent. The answer said "Connection: close"
// already where the connector wrote it (see closeIfForced); this also covers the others.
func (p *port) mark(conn net.Conn, s http.ConnState) {
	p.mu.Lock()
	t := p.open[conn]
	p.mu.Unlock()
	if t == nil {
		return
	}
	t.fresh.Store(s == http.StateNew)
	if s == http.StateIdle && t.ctx.Err() != nil {
		_ = conn.Close()
	}
}

// closeFresh closes the connections that have sent no request: net/http's Shutdown would wait
// up to five seconds for each to send one, though a stopping port will take none.
func (p *port) closeFresh() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for conn, t := range p.open {
		if t.fresh.Load() {
			_ = conn.Close()
		}
	}
}

// dropIfDone forgets a server that takes no connections and serves none.
func (p *port) dropIfDone(cs *connServer) {
	if !cs.serving && cs.conns == 0 {
		p.servers = slices.DeleteFunc(p.servers, func(s *connServer) bool { return s == cs })
	}
}

// ServeHTTP hands a request to the connector serving the port, counting it as that
// connector's until it is answered.
func (p *port) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t := r.Context().Value(trackedKey{}).(*tracked) // every connection's (ConnContext)
	for {
		c := p.cur.Load()
		if c != nil && c.begin() {
			c.serveCounted(w, r, t)
			return
		}
		if c == nil || p.cur.Load() == c { // no holder left to serve: the port is closing
			w.Header().Set("Connection", "close")
			writeError(w, http.StatusServiceUnavailable, "the server is stopping")
			return
		}
		// c stopped between the load and the count, and the port has a new holder
	}
}

// cut closes the connections carrying c's requests: c ran out of time to finish them.
func (p *port) cut(c *Connector) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for conn, t := range p.open {
		if t.owner.Load() == c {
			_ = conn.Close()
		}
	}
}

// Close stops accepting, lets the requests in flight finish while ctx lasts, then closes every
// connection left.
func (p *port) Close(ctx context.Context) error {
	_ = p.ln.Close()
	p.acceptOnce.Do(func() { close(p.accepting) }) // no holder ever served it
	<-p.accepting
	p.closeFresh()
	p.mu.Lock()
	servers := slices.Clone(p.servers)
	p.mu.Unlock()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, cs := range servers {
		wg.Go(func() {
			if err := cs.srv.Shutdown(ctx); err != nil {
				mu.Lock()
				errs = append(errs, err, cs.srv.Close())
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	p.wg.Wait()
	return errors.Join(errs...)
}

// handoff is the listener a connServer serves: the connections the port's accept loop gives it.
type handoff struct {
	addr   net.Addr
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

// Accept returns the next connection handed over.
func (h *handoff) Accept() (net.Conn, error) {
	select {
	case c := <-h.conns:
		return c, nil
	case <-h.closed:
		return nil, net.ErrClosed
	}
}

// Close stops taking connections; the port then hands them to a newer server.
func (h *handoff) Close() error {
	h.once.Do(func() { close(h.closed) })
	return nil
}

// Addr returns the port's bound address.
func (h *handoff) Addr() net.Addr { return h.addr }

var (
	_ runtime.Resource = (*port)(nil)
	_ net.Listener     = (*handoff)(nil)
	_ http.Handler     = (*port)(nil)
)

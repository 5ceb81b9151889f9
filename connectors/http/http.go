// Package http is the http connector: it listens on a port, routes requests
// by path to the flows attached to it, and writes each flow's final message
// back as the response. It knows nothing of the protocols blocks speak.
package http

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterConnector(runtime.ConnectorSpec{
		Type:    "http",
		Summary: "serves flows over HTTP, routing requests by path and method",
		Build:   build,
	})
}

// Connector serves the flows attached to one listening address.
type Connector struct {
	name     string
	settings settings
	logger   *slog.Logger
	routes   map[string]*route

	srv        *http.Server
	ln         net.Listener
	streamCtx  context.Context
	endStreams context.CancelFunc
	stopCtx    atomic.Value // Stop's context, set before streamCtx ends (see drain)
	// base is every request's context: Stop cancels it with
	// runtime.ErrShuttingDown at three quarters of its grace period, so the
	// flows still running end and the last quarter writes their answers.
	base       context.Context
	forceFlows context.CancelCauseFunc
	serveDone  chan struct{}
	stopOnce   sync.Once
	addrMu     sync.Mutex
	boundAddr  string
}

type route struct {
	path    string
	methods []string // empty: any
	allow   string
	flow    *runtime.Flow
}

func build(b *runtime.ConnectorBuild) (runtime.Connector, error) {
	s := defaultSettings()
	if !b.Decode(&s) {
		return nil, nil
	}
	if !s.check(b) {
		return nil, nil
	}
	c := &Connector{name: b.Name, settings: s, logger: b.Logger(), routes: map[string]*route{}}
	c.streamCtx, c.endStreams = context.WithCancel(context.Background())
	c.base, c.forceFlows = context.WithCancelCause(context.Background())
	return c, nil
}

// Attach routes a flow's source path (and methods) to it.
func (c *Connector) Attach(src *runtime.SourceBuild, flow *runtime.Flow) error {
	var s sourceSettings
	if !src.Decode(&s) {
		return nil
	}
	paths := s.routes(src)
	if !s.check(src) || paths == nil {
		return nil
	}
	for _, p := range paths {
		if prev, dup := c.routes[p.path]; dup {
			src.Errorf(p.node, p.at, "path %q is already served by flow %q on connector %q", p.path, prev.flow.Name, c.name)
			continue
		}
		r := &route{path: p.path, methods: s.Methods, flow: flow}
		if len(s.Methods) > 0 {
			r.allow = joinMethods(s.Methods)
		}
		c.routes[p.path] = r
	}
	return nil
}

// Start listens and serves in the background, logging the address.
func (c *Connector) Start(ctx context.Context) error {
	addr := net.JoinHostPort(c.settings.Host, strconv.Itoa(c.settings.Port))
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("connector %q: %w", c.name, err)
	}
	ln = &capListener{Listener: ln, conns: c.settings.limits.conns, log: c.logger}
	c.ln = ln
	c.srv = &http.Server{
		Handler:           c,
		ReadHeaderTimeout: c.settings.ReadHeaderTimeout,
		IdleTimeout:       c.settings.IdleTimeout,
		MaxHeaderBytes:    c.settings.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(c.logger.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return c.base },
	}
	c.addrMu.Lock()
	c.boundAddr = ln.Addr().String()
	c.addrMu.Unlock()
	c.serveDone = make(chan struct{})
	go func() {
		defer close(c.serveDone)
		if err := c.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			c.logger.Error("serve failed", "err", err)
		}
	}()
	c.logger.Info("listening", "addr", "http://"+displayAddr(ln.Addr()), "routes", len(c.routes))
	return nil
}

// Addr returns the bound address once started.
func (c *Connector) Addr() string {
	c.addrMu.Lock()
	defer c.addrMu.Unlock()
	return c.boundAddr
}

// Stop tells open streams to end (a stream that owes answers delivers them
// first, see drain), stops accepting, and waits for in-flight requests until
// ctx ends; then it closes whatever is left. Flows still running at three
// quarters of that time are cancelled with runtime.ErrShuttingDown, so they
// are answered before it ends.
func (c *Connector) Stop(ctx context.Context) error {
	var err error
	c.stopOnce.Do(func() {
		c.stopCtx.Store(ctx)
		c.endStreams()
		if c.srv == nil {
			return
		}
		defer forceAt(ctx, func() { c.forceFlows(runtime.ErrShuttingDown) })()
		if err = c.srv.Shutdown(ctx); err != nil {
			err = errors.Join(err, c.srv.Close())
		}
		<-c.serveDone
	})
	return err
}

// forceAt calls force at three quarters of the time ctx has left, or when
// it ends if it has no deadline; the returned func cancels that.
func forceAt(ctx context.Context, force func()) (stop func() bool) {
	dl, ok := ctx.Deadline()
	if !ok {
		return context.AfterFunc(ctx, force)
	}
	return time.AfterFunc(time.Until(dl)*3/4, force).Stop
}

func joinMethods(ms []string) string {
	out := ""
	for i, m := range ms {
		if i > 0 {
			out += ", "
		}
		out += m
	}
	return out
}

// displayAddr turns a wildcard bind address into one a user can paste.
func displayAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("localhost", strconv.Itoa(tcp.Port))
}

var _ runtime.Connector = (*Connector)(nil)

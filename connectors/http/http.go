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

	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterConnector(runtime.ConnectorSpec{
		Type:    "http",
		Summary: "serves flows over HTTP, routing requests by path and method",
		Doc: "Listens on a port (loopback unless host says otherwise) and routes each request by " +
			"its exact path, and method when the source names them, to a flow; the flow's final " +
			"message is the response, a stream written as server-sent events. Every request " +
			"passes the Origin, Host and CORS guard and the body, in-flight and stream limits.",
		Example: "connectors:\n  - name: api\n    type: http\n    settings: { port: 8080 }\n" +
			"flows:\n  - name: mcp\n    source: { connector: api, settings: { path: /mcp, methods: [POST] } }\n",
		Build:  runtime.ConnectorFunc(build),
		Source: runtime.SettingsOf[sourceSettings](),
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

func build(b *runtime.ConnectorBuild, s *settings) (runtime.Connector, error) {
	if !s.check(b) {
		return nil, nil
	}
	c := &Connector{name: b.Name, settings: *s, logger: b.Logger(), routes: map[string]*route{}}
	c.streamCtx, c.endStreams = context.WithCancel(context.Background())
	return c, nil
}

// Attach routes a flow's source path (and methods) to it.
func (c *Connector) Attach(src *runtime.SourceBuild, flow *runtime.Flow) error {
	s := src.Settings().(*sourceSettings)
	paths := s.routes(src)
	if !s.check(src) || paths == nil {
		return nil
	}
	for _, p := range paths {
		if prev, dup := c.routes[p.path]; dup {
			src.Errorf(p.field, "path %q is already served by flow %q on connector %q", p.path, prev.flow.Name, c.name)
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
// ctx ends; then it closes whatever is left.
func (c *Connector) Stop(ctx context.Context) error {
	var err error
	c.stopOnce.Do(func() {
		c.stopCtx.Store(ctx)
		c.endStreams()
		if c.srv == nil {
			return
		}
		if err = c.srv.Shutdown(ctx); err != nil {
			err = errors.Join(err, c.srv.Close())
		}
		<-c.serveDone
	})
	return err
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

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
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/ports"
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
		Build:     runtime.ConnectorFunc(build),
		Transport: httpmsg.Transport,
		Source:    runtime.SettingsTypeOf[sourceSettings](),
	})
}

// Connector serves the flows attached to one listening address. The address is a port
// (listener.go) it holds with the other builds of its unit: started, it takes the port's
// traffic over; stopped, it finishes what it began and lets go.
type Connector struct {
	name     string
	settings settings
	portAt   config.Position // where the port was set, for the error when it is taken
	logger   *slog.Logger
	routes   map[string]*route
	prefixes []*route // routes of a prefix, longest first
	// firstPath is the first path each flow is served at, for URLOf.
	firstPath map[string]string
	shared    *runtime.Shared
	holder    runtime.Holder

	port       *port // set by Start
	release    runtime.Release
	streamCtx  context.Context
	endStreams context.CancelFunc
	stopCtx    atomic.Value // Stop's context, set before streamCtx ends (see drain)
	// inflight ends every request's flow: Stop forces it with runtime.ErrShuttingDown at three
	// quarters of its grace period, so the flows still running end and the last quarter
	// writes their answers (serveCounted registers each request's cancel there).
	inflight flights // flights.go
	stopOnce sync.Once

	// busy counts the requests the connector has begun and not answered; once stopping is
	// set it takes no more, and idle closes when the last one is answered.
	busy     atomic.Int64
	stopping atomic.Bool
	leaving  atomic.Bool // Leave: every answer closes its connection
	idle     chan struct{}
	idleOnce sync.Once

	obs observers // observe.go
}

type route struct {
	path    string
	methods []string // empty: any
	allow   string
	flow    *runtime.Flow
	spans   routeSpans
}

func build(b *runtime.ConnectorBuild, s *settings) (runtime.Connector, error) {
	if err := s.compile(b); err != nil {
		return nil, err
	}
	c := &Connector{name: b.Name, settings: *s, portAt: b.Positions().Of(&s.Port), logger: b.Logger(), routes: map[string]*route{}, firstPath: map[string]string{},
		shared: b.Shared(), holder: b.Holder(), idle: make(chan struct{}), obs: newObservers(b)}
	c.streamCtx, c.endStreams = context.WithCancel(context.Background())
	return c, nil
}

// Attach routes a flow's source path (and methods) to it.
func (c *Connector) Attach(src *runtime.SourceBuild, flow *runtime.Flow) error {
	s := src.Settings().(*sourceSettings)
	s.spellMethods()
	paths := s.routes(src)
	if err := src.Err(); err != nil {
		return err
	}
	for _, p := range paths {
		r := &route{path: p.path, methods: s.Methods, flow: flow}
		r.spans = newRouteSpans(c.name, r)
		if len(s.Methods) > 0 {
			r.allow = joinMethods(s.Methods)
		}
		if s.Prefix != "" {
			if !c.addPrefix(src, p, r) {
				continue
			}
		} else if prev, dup := c.routes[p.path]; dup {
			src.Errorf(p.field, "path %q is already served by flow %q on connector %q", p.path, prev.flow.Name, c.name)
			continue
		} else {
			c.routes[p.path] = r
		}
		if _, ok := c.firstPath[flow.Name]; !ok {
			c.firstPath[flow.Name] = p.path
		}
	}
	return src.Err()
}

// addPrefix routes every path under p to r, unless another flow has the same prefix.
func (c *Connector) addPrefix(src *runtime.SourceBuild, p routed, r *route) bool {
	for _, prev := range c.prefixes {
		if strings.TrimSuffix(prev.path, "/") == strings.TrimSuffix(r.path, "/") {
			src.Errorf(p.field, "prefix %q is already served by flow %q on connector %q", p.path, prev.flow.Name, c.name)
			return false
		}
	}
	c.prefixes = append(c.prefixes, r)
	slices.SortFunc(c.prefixes, func(a, b *route) int { return len(b.path) - len(a.path) })
	return true
}

// lookup finds the route of a request path: its own, else the longest prefix it is under.
func (c *Connector) lookup(path string) (*route, bool) {
	if rt, ok := c.routes[path]; ok {
		return rt, true
	}
	for _, rt := range c.prefixes {
		if rest, under := strings.CutPrefix(path, strings.TrimSuffix(rt.path, "/")); under && (rest == "" || rest[0] == '/') {
			return rt, true
		}
	}
	return nil, false
}

// Leave has every answer from now on close its connection (Connection: close), so a balancer
// that sends here over kept-alive connections opens new ones, to the replicas that stay,
// before the port closes (runtime.Leaver; octo run --drain-delay).
func (c *Connector) Leave() { c.leaving.Store(true) }

// URLOf is the URL of the flow's first path, once the connector listens: runtime.Locator.
func (c *Connector) URLOf(flow string) string {
	path, ok := c.firstPath[flow]
	if !ok || c.port == nil {
		return ""
	}
	return "http://" + displayAddr(c.port.addr) + path
}

// Start binds the connector's address, or takes it over from an earlier build of its unit,
// and serves the attached flows there from now on.
func (c *Connector) Start(context.Context) error {
	p, release, bound, err := acquirePort(c)
	if ports.InUse(err) {
		return ports.InUseError(c.portAt, c.settings.Port)
	}
	if err != nil {
		return fmt.Errorf("connector %q: %w", c.name, err)
	}
	if err := p.attach(c); err != nil {
		_ = release(context.Background())
		return fmt.Errorf("connector %q: %w", c.name, err)
	}
	c.port, c.release = p, release
	if bound {
		c.logger.Info("listening", "addr", "http://"+displayAddr(p.addr), "routes", len(c.routes)+len(c.prefixes))
	} else {
		c.logger.Debug("took over the address from the previous build", "addr", "http://"+displayAddr(p.addr), "routes", len(c.routes)+len(c.prefixes))
	}
	return nil
}

// Addr returns the bound address once started.
func (c *Connector) Addr() string {
	if c.port == nil {
		return ""
	}
	return c.port.addr.String()
}

// Stop tells open streams to end (a stream that owes answers delivers them first, see drain).
// When a later build serves the address, it waits for the requests this connector began until
// ctx ends, then closes their connections; otherwise it lets the port stop accepting and wait for
// every request in flight until ctx ends, then close whatever is left. Either way, flows still
// running at three quarters of that time are cancelled with runtime.ErrShuttingDown, so they are
// answered before it ends.
func (c *Connector) Stop(ctx context.Context) error {
	var err error
	c.stopOnce.Do(func() {
		c.stopCtx.Store(ctx)
		c.endStreams()
		if c.port == nil {
			return
		}
		if ctx.Err() == nil { // with no time left there is none to answer in: finish cuts at once
			defer forceAt(ctx, func() { c.inflight.force(runtime.ErrShuttingDown) })()
		}
		if c.port.handOver(c) {
			err = c.finish(ctx)
		}
		err = errors.Join(err, c.release(ctx))
	})
	return err
}

// begin counts a request as the connector's; false once it is stopping.
func (c *Connector) begin() bool {
	c.busy.Add(1)
	if c.stopping.Load() { // Stop may have seen no request: leave it to the next holder
		c.end()
		return false
	}
	return true
}

// end counts an answered request.
func (c *Connector) end() {
	if c.busy.Add(-1) == 0 && c.stopping.Load() {
		c.idleOnce.Do(func() { close(c.idle) })
	}
}

// serveCounted serves a request begun on c, marking its connection as c's meanwhile.
func (c *Connector) serveCounted(w http.ResponseWriter, r *http.Request, t *tracked) {
	defer c.end()
	t.owner.Store(c)
	defer t.owner.Store(nil)
	// The port's server is shared by the builds of a unit, so a request's context cannot come
	// from this connector: register its connection's cancel while it serves the request, so
	// Stop's force ends this connector's flows only (and the connection after the answer: mark).
	defer c.inflight.remove(c.inflight.add(t.cancel))
	// The context goes beside the request, not into a copy of it (r.WithContext): that copy
	// was a quarter of what octo added to a request's bytes.
	ctx := requestID(w, r, r.Context())
	if !c.settings.AccessLog {
		c.serve(ctx, w, r)
		return
	}
	aw, start := &accessWriter{ResponseWriter: w}, time.Now()
	c.serve(ctx, aw, r)
	c.logAccess(ctx, r, aw, start)
}

// finish waits for the requests c began until ctx ends, then cuts their connections.
func (c *Connector) finish(ctx context.Context) error {
	c.stopping.Store(true)
	if c.busy.Load() == 0 {
		c.idleOnce.Do(func() { close(c.idle) })
	}
	if ctx.Err() != nil { // a select would pick an idle that a forced answer made at random
		select {
		case <-c.idle:
			return nil
		default:
			c.port.cut(c)
			return ctx.Err()
		}
	}
	select {
	case <-c.idle:
		return nil
	case <-ctx.Done():
		c.port.cut(c)
		return ctx.Err()
	}
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

var (
	_ runtime.Connector = (*Connector)(nil)
	_ runtime.Leaver    = (*Connector)(nil)
)

// Package httpmock is the http-mock block: an HTTP API answered from settings instead of code.
// Routes match a method and a path with {name} parameters; each answers with a status,
// headers and a body rendered from the request (path parameters, query, headers, a JSON or
// form body), variables and dynamic values, after an optional delay; answers can vary with
// the request, come in turn, or fail at a seeded rate. A workspace saves one per file (kind
// http, its http: section); in a flow it serves the paths its source routes to it (prefix: /).
package httpmock

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/octo-run/octo/blocks/mockkit/placeholder"
	"github.com/octo-run/octo/blocks/mockkit/traffic"
	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "http-mock",
		Summary: "serves an HTTP API answered from settings: routes with path parameters, templated answers, delays, answers that vary",
		Doc: "An HTTP API answered from settings instead of code. Routes are tried in the order " +
			"written; each matches a method and a path whose {name} segments are parameters, and " +
			"answers with a status, headers and a body, templates over {{params.x}}, {{query.x}}, " +
			"{{headers.x}}, {{body.x}}, variables and {{$…}} values, after delayMs. Answers can " +
			"vary (a when expression, a sequence, a seeded failure rate). Every request and answer " +
			"goes to the traffic log. A workspace saves one server per file (kind: http); in a flow, " +
			"give its source prefix: / so every path reaches it.",
		Example: "type: http-mock\nname: Billing API\nsettings:\n  routes:\n    - method: GET\n" +
			"      path: /invoices/{id}\n      body: '{\"id\": \"{{params.id}}\", \"total\": 12.5}'\n" +
			"    - method: POST\n      path: /invoices\n      status: 201\n" +
			"      body: '{\"id\": \"{{$uuid}}\", \"customer\": \"{{body.customer}}\"}'\n",
		Transports:      []string{httpmsg.Transport},
		AnswersExchange: true,
		Build:           runtime.BlockFunc(build),
	})
}

// KindServer labels the block the workspace adapter makes for a saved server of kind http:
// its settings are the file's http: section.
const KindServer = "http-server"

// Block answers HTTP requests from its routes.
type Block struct {
	name   string
	cur    atomic.Pointer[version] // what answers now; an edit swaps it (Update)
	log    *traffic.Log
	logger *slog.Logger
	tap    func(string, session.TrafficEvent) // the app's traffic store; nil: none
	cors   bool                               // the connector's: only a new build changes it
}

// version is one version of the settings, compiled.
type version struct {
	routes []*route
	rand   *placeholder.Rand // nil: the placeholder package's own
}

func build(b *runtime.Build, s *Settings) (runtime.Block, error) {
	if s.CORS && b.At.Kind != KindServer {
		return nil, config.Diags{b.Positions().Diag(&s.CORS, "cors is a setting of the http connector (cors: true) in a flow config; http.cors applies to saved servers")}
	}
	v, ds := compile(s, b.Positions())
	if len(ds) > 0 {
		return nil, ds
	}
	blk := &Block{name: b.Name, tap: traffic.TapOf(b), cors: s.CORS, logger: b.Logger(), log: traffic.NewLog(b.Logger(), b.Name)}
	blk.cur.Store(v)
	return blk, nil
}

// compile compiles settings written at pos.
func compile(s *Settings, pos *config.Positions) (*version, config.Diags) {
	c := &compiler{pos: pos, vars: s.Variables, seed: s.Seed}
	v := &version{}
	for i := range s.Routes {
		if r := c.route(&s.Routes[i]); r != nil {
			v.routes = append(v.routes, r)
		}
	}
	if len(c.problems) > 0 {
		return nil, c.problems
	}
	if s.Seed != nil {
		v.rand = placeholder.NewRand(*s.Seed, nil)
	}
	return v, nil
}

// Update takes edited settings while the block serves (runtime.Updater): requests from now on
// get the new routes. cors is the connector's, so changing it builds the server anew.
func (b *Block) Update(d runtime.Decoded) (config.Diags, error) {
	s, ok := d.Settings.(*Settings)
	if !ok {
		return nil, fmt.Errorf("http-mock: cannot update from %T", d.Settings)
	}
	if s.CORS != b.cors {
		return nil, runtime.ErrRebuild
	}
	v, ds := compile(s, d.Positions)
	if len(ds) > 0 {
		return nil, ds
	}
	b.cur.Store(v)
	b.logger.Info("settings updated", "server", b.name, "routes", len(v.routes))
	return nil, nil
}

// Start starts the traffic log.
func (b *Block) Start(context.Context) error {
	b.log.Start()
	return nil
}

// Stop writes what the traffic log holds.
func (b *Block) Stop(context.Context) error {
	b.log.Stop()
	return nil
}

// Process answers one request: the route it fits, else 404 or 405 saying which routes there are.
func (b *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	ex, ok := httpmsg.From(m)
	if !ok {
		return nil, &runtime.Error{Kind: runtime.KindInternal, Msg: "http-mock takes HTTP requests"}
	}
	req := readRequest(ex, m)
	b.observe(req.event())
	v := b.cur.Load()
	rt, params, allowed := v.match(ex.Method, ex.Path)
	var ans answer
	switch {
	case rt != nil:
		req.in.Params = params
		out := rt.pick(req)
		if err := runtime.Sleep(ctx, out.delay); err != nil {
			return nil, err
		}
		ans = out.render(req.in, v.rand, rt.label(out))
	case len(allowed) > 0:
		ans = refusal(http.StatusMethodNotAllowed, "method "+ex.Method+" is not allowed on "+ex.Path+"; it takes "+strings.Join(allowed, ", "))
		ans.header.Set("Allow", strings.Join(allowed, ", "))
	default:
		ans = refusal(http.StatusNotFound, "no route for "+ex.Method+" "+ex.Path+v.routeList())
	}
	ans.write(ex, m)
	b.observe(ans.event(req))
	return m, nil
}

// match finds the first enabled route that fits method and path, with its parameters; with
// none, the methods the routes fitting path take.
func (v *version) match(method, path string) (*route, map[string]string, []string) {
	var allowed []string
	for _, r := range v.routes {
		params, ok := r.path.match(path)
		if !ok {
			continue
		}
		if r.method == method || r.method == http.MethodGet && method == http.MethodHead {
			return r, params, nil
		}
		if !contains(allowed, r.method) {
			allowed = append(allowed, r.method)
		}
	}
	return nil, nil, allowed
}

// routeList names the routes for a 404, so a client sees what it could have asked.
func (v *version) routeList() string {
	const most = 10
	if len(v.routes) == 0 {
		return "; this server has no routes"
	}
	names := make([]string, 0, most)
	for _, r := range v.routes[:min(len(v.routes), most)] {
		names = append(names, r.method+" "+r.path.text)
	}
	more := ""
	if len(v.routes) > most {
		more = ", …"
	}
	return "; routes: " + strings.Join(names, ", ") + more
}

// observe hands an event to the log and the app's store.
func (b *Block) observe(ev session.TrafficEvent) {
	if b.tap != nil {
		b.tap(b.name, ev)
	}
	b.log.Observe(ev)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// compiler turns routes' settings into routes, collecting every problem at its line.
type compiler struct {
	pos      *config.Positions
	vars     map[string]string
	seed     *int64
	problems config.Diags
}

func (c *compiler) problem(field any, format string, args ...any) {
	c.problems = append(c.problems, c.pos.Diag(field, format, args...))
}

var _ runtime.Updater = (*Block)(nil)

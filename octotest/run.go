package octotest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/blocks/httprequest"
	"github.com/octo-run/octo/connectors/stdio"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/jsonv"
)

// maxBody bounds the answer a case reads: a flow answering without end fails the case instead
// of filling memory.
const maxBody = 16 << 20

// httpAnswer is an HTTP answer as a case sees it.
type httpAnswer struct {
	status int
	header http.Header
	body   []byte
}

// send sends req and reads its whole answer.
func send(hc *http.Client, req *http.Request) (*httpAnswer, error) {
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return answerOf(resp)
}

// answerOf reads resp's whole body, at most maxBody bytes; the caller closes it.
func answerOf(resp *http.Response) (*httpAnswer, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %v", err)
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("the answer is larger than %d bytes", maxBody)
	}
	return &httpAnswer{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// optional is the JSON value of n, or nil when n is.
func optional(n *yaml.Node) (any, error) {
	if n == nil {
		return nil, nil
	}
	return valueOf(n)
}

// outcome is what a case got: the answer and the flow's vars, and why it failed.
type outcome struct {
	failures []string
	log      bytes.Buffer
	body     string // the answer's body (an MCP case: the result), for -v and failures
	// snap is the answer as --update writes it into the case, when it differs from what the
	// case expects; nil otherwise.
	snap *snapshot
}

func (o *outcome) failf(format string, args ...any) {
	o.failures = append(o.failures, fmt.Sprintf(format, args...))
}

// varsSeen keeps the vars of the last flow delivered, as JSON values.
type varsSeen struct {
	mu   sync.Mutex
	vars any
	seen bool
}

func (v *varsSeen) see(m *runtime.Message, _ error) {
	var val any
	if m != nil && m.Vars != nil {
		if b, err := json.Marshal(m.Vars); err == nil {
			val, _ = jsonv.Decode(b)
		}
	}
	v.mu.Lock()
	v.vars, v.seen = val, m != nil
	v.mu.Unlock()
}

func (v *varsSeen) get() (any, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.vars, v.seen
}

// runCase builds the config for c, serves the connector c is for on a loopback port of its
// own, sends c's request and checks the answer.
func (r *runner) runCase(ctx context.Context, c *loaded) *outcome {
	o := &outcome{}
	ctx, cancel := context.WithTimeoutCause(ctx, c.Timeout, fmt.Errorf("the case took longer than its timeout, %s", c.Timeout))
	defer cancel()
	if r.server != nil {
		r.againstServer(ctx, c, o)
		if ctx.Err() != nil {
			o.failf("%v", context.Cause(ctx))
		}
		return o
	}
	if c.MCP != nil && c.MCP.Session != "" {
		o.failf("mcp.session: a config's cases each build its service afresh, so they share no session; sessions are for octo test --server")
		return o
	}
	st := &stubs{c: c}
	cs, err := r.start(ctx, c, st, &o.log)
	if err != nil {
		o.failf("%v", err)
		return o
	}
	defer cs.stop()
	if cs.pipe != nil {
		r.overStdio(ctx, cs, c, o)
	} else {
		r.overHTTP(ctx, cs, c, o)
	}
	if ctx.Err() != nil {
		o.failf("%v", context.Cause(ctx))
	}
	for _, call := range st.missed() {
		o.failf("no stub with calls left matches the call %s", call)
	}
	for _, p := range st.mismatched() {
		o.failf("%s", p)
	}
	return o
}

// overHTTP serves the case's http connector on a loopback port of its own and sends the case's
// request, or its MCP requests over Streamable HTTP, through it.
func (r *runner) overHTTP(ctx context.Context, cs *caseService, c *loaded, o *outcome) {
	seen := &varsSeen{}
	base, stop, err := serve(cs.handler, seen)
	if err != nil {
		o.failf("%v", err)
		return
	}
	defer stop()
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if c.Request != nil {
		r.request(ctx, hc, base, cs.target, c, seen, o)
		return
	}
	sc := newScript(c)
	conn := &httpConn{hc: hc, url: base + cs.target.path, headers: c.MCP.Headers, script: sc}
	r.mcpCase(ctx, newClient(conn, sc, c), c, seen, o)
}

// overStdio starts the case's stdio connector on a pipe and sends the case's MCP requests
// through it, one line each, as a client that starts octo as a command does; or a request's
// body as one line, for a flow that answers lines.
func (r *runner) overStdio(ctx context.Context, cs *caseService, c *loaded, o *outcome) {
	if misfits := stdioMisfits(cs.target, c); len(misfits) > 0 {
		o.failures = append(o.failures, misfits...)
		return
	}
	p, err := openPipe(ctx, "the flow", connectorLines(cs.pipe))
	if err != nil {
		o.failf("%v", err)
		return
	}
	defer p.close(ctx)
	if c.Request != nil {
		start := time.Now()
		lineCase(ctx, p, c, o)
		checkWithin(&c.Expect, time.Since(start), o)
		return
	}
	sc := newScript(c)
	r.mcpCase(ctx, newClient(lineConn{p: p, script: sc}, sc, c), c, nil, o)
}

// caseService is a case's service, its blocks started, and where its request goes: an http
// connector's handler, or a stdio connector, not started, to start on a pipe.
type caseService struct {
	handler http.Handler
	pipe    *stdio.Connector
	target  target
	stop    func()
}

// start builds the config as c's env makes it, on a resource table holding st for
// http-request, logging to log, and starts its blocks (no connector: serve serves the one the
// case is for).
func (r *runner) start(ctx context.Context, c *loaded, st *stubs, log io.Writer) (*caseService, error) {
	lookup := overlay(c.Env, r.lookup)
	cfg, err := r.config(c, lookup)
	if err != nil {
		return nil, err
	}
	t, err := targetOf(cfg, c)
	if err != nil {
		return nil, err
	}
	shared := runtime.NewShared()
	_, release, _ := runtime.Acquire(shared, httprequest.TestTransportKey, func() (httprequest.TestTransport, error) { return st, nil })
	logger := slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	svc, err := runtime.NewService(cfg, runtime.Options{Logger: logger, LookupEnv: lookup, Shared: shared, Unit: "octo test",
		Alone: true}) // a case runs in this process: a cluster's tasks are kept here
	if err == nil {
		err = svc.StartBlocks(ctx)
	}
	if err != nil {
		_ = release(context.Background())
		return nil, err
	}
	cs := &caseService{target: t, stop: func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = svc.Stop(sctx)
		_ = release(sctx)
	}}
	switch conn := svc.Connector(t.connector).(type) {
	case *stdio.Connector:
		cs.pipe = conn
	case http.Handler:
		cs.handler = conn
		if t.path == "" {
			err = fmt.Errorf("flow %q has no path to send to: set the request's path", t.flow)
		}
	default:
		err = fmt.Errorf("flow %q: its source, connector %q, is neither an http nor a stdio connector: octo test sends cases over HTTP or a stdio pipe", t.flow, t.connector)
	}
	if err != nil {
		cs.stop()
		return nil, err
	}
	return cs, nil
}

// config loads the config as the case's env makes it.
// A workspace's saved server is named by the case (mcp.server), or is the only one.
func (r *runner) config(c *loaded, lookup func(string) (string, bool)) (*config.Config, error) {
	if r.servers != nil {
		if len(c.Env) > 0 {
			return nil, fmt.Errorf("env: a workspace's servers have no env variables (their variables are in workspace.yaml)")
		}
		name := ""
		if c.MCP != nil {
			name = c.MCP.Server
		}
		if name == "" && len(r.servers) == 1 {
			for n := range r.servers {
				name = n
			}
		}
		if name == "" {
			return nil, fmt.Errorf("mcp.server: name the saved server; %s", among("saved servers", sortedKeys(r.servers)))
		}
		cfg, ok := r.servers[name]
		if !ok {
			return nil, fmt.Errorf("mcp.server: %s", config.Unknown("saved server", name, sortedKeys(r.servers)))
		}
		return cfg, nil
	}
	if len(c.Env) == 0 && r.cfg != nil {
		return r.cfg, nil
	}
	return r.load(lookup)
}

// serve serves handler on a free loopback port until stop, watching the vars of every flow it
// delivers. The connector's own handler answers: its routes, guard, limits and error statuses.
func serve(handler http.Handler, seen *varsSeen) (base string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listening on loopback: %v", err)
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			handler.ServeHTTP(w, req.WithContext(runtime.WatchDeliveries(req.Context(), seen.see)))
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	return "http://" + ln.Addr().String(), func() {
		_ = srv.Close()
		<-done
	}, nil
}

// request sends a case's HTTP request and checks the answer.
func (r *runner) request(ctx context.Context, hc *http.Client, base string, t target, c *loaded, seen *varsSeen, o *outcome) {
	rq := c.Request
	var body io.Reader
	ctype := ""
	switch {
	case rq.Text != nil:
		body = strings.NewReader(*rq.Text)
	case rq.Body != nil:
		v, err := valueOf(rq.Body)
		if err != nil {
			o.failf("request.body: %v", err)
			return
		}
		b, _ := json.Marshal(v)
		body, ctype = bytes.NewReader(b), "application/json"
	}
	method := strings.ToUpper(rq.Method)
	if method == "" {
		method = t.method(body != nil)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+t.path, body)
	if err != nil {
		o.failf("request: %v", err)
		return
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for k, v := range rq.Headers {
		if strings.EqualFold(k, "Host") {
			req.Host = v // net/http sends req.Host, never a Host header
			continue
		}
		req.Header.Set(k, v)
	}
	start := time.Now()
	a, err := send(hc, req)
	checkWithin(&c.Expect, time.Since(start), o)
	if err != nil {
		o.failf("request: %v", err)
		return
	}
	o.body = string(a.body)
	checkHTTP(&c.Expect, a, o)
	var parsed any
	if wantsJSON(&c.Expect) {
		v, err := jsonv.Decode(a.body)
		if err != nil {
			o.failf("body: expected JSON, got %s", clip(string(a.body), 200))
			return
		}
		parsed = v
	}
	checkBody(&c.Expect, parsed, string(a.body), o)
	checkVars(&c.Expect, seen, o)
}

// mcpCase runs the handshake, sends a case's MCP request and checks the answer. seen is nil
// over stdio, where no case looks at vars (stdioMisfits).
func (r *runner) mcpCase(ctx context.Context, cl *mcpClient, c *loaded, seen *varsSeen, o *outcome) {
	m := c.MCP
	a, ok, err := cl.initialize(ctx)
	if err == nil && ok {
		method, params, perr := mcpMethod(m)
		if perr != nil {
			o.failf("mcp: %v", perr)
			return
		}
		start := time.Now()
		a, err = cl.call(ctx, method, params)
		checkWithin(&c.Expect, time.Since(start), o)
	}
	cl.script.check(&c.Expect, o) // first: a question the script could not answer explains the rest
	if err != nil {
		o.failf("mcp: %v", err)
		return
	}
	e := &c.Expect
	// An expected error comes with the status its revision gives it (2026-07-28: 400, 404).
	if a.http != nil && !(e.Error != nil && e.Status == 0 && a.err != nil && a.http.status == mcp.ModernErrorStatus(a.err.Code)) {
		checkHTTP(e, a.http, o)
	}
	if a.refused() {
		o.body = string(a.http.body)
		if r.update {
			o.failf("not updated: the server refused the request (HTTP %d), so there is no answer to write", a.http.status)
		}
		return
	}
	if r.update {
		s, err := snapshotOf(a.result, a.err, e, m.Tool != "")
		if err != nil {
			o.failf("not updated: %v", err)
		} else if s.differs(e) {
			o.snap = s
			updated := *e
			s.apply(&updated)
			e = &updated
		}
	}
	if a.err != nil {
		b, _ := json.Marshal(map[string]any{"error": a.err})
		o.body = string(b)
		switch {
		case e.Error == nil:
			o.failf("error: expected a result, got JSON-RPC error %d: %s", a.err.Code, a.err.Message)
		case e.Error.Code != 0 && e.Error.Code != a.err.Code:
			o.failf("error.code: expected %d, got %d (%s)", e.Error.Code, a.err.Code, a.err.Message)
		case !strings.Contains(a.err.Message, e.Error.Message):
			o.failf("error.message: expected it to contain %q, got %q", e.Error.Message, a.err.Message)
		}
		return
	}
	o.body = string(a.result)
	if e.Error != nil {
		o.failf("error: expected JSON-RPC error %d, got a result %s", e.Error.Code, clip(string(a.result), 200))
	}
	result, err := jsonv.Decode(a.result)
	if err != nil {
		o.failf("result: %v", err)
		return
	}
	if m.Tool != "" {
		isErr, _ := result.(map[string]any)["isError"].(bool)
		want := e.IsError != nil && *e.IsError
		if isErr != want {
			o.failf("isError: expected %t, got %t: %s", want, isErr, clip(resultText(result), 200))
		}
	}
	checkBody(e, result, resultText(result), o)
	if m.List != "" {
		checkListed(e, m.List, result, o)
	}
	if seen != nil {
		checkVars(e, seen, o)
	}
}

// checkWithin fails a case whose answer took longer than expect.within.
func checkWithin(e *Expect, took time.Duration, o *outcome) {
	if e.Within > 0 && took > e.Within {
		o.failf("within: expected the answer within %s, it took %s", e.Within, took.Round(time.Millisecond))
	}
}

package octotest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/octo-run/octo/runtime/jsonv"
)

// lineConn is MCP over stdio, on a pipe to the flow's stdio connector: each message one line of
// its input, and its output read line by line until the answer with the request's id. The
// server's notifications (progress, log messages) are kept for the case, and its requests
// answered as the case's client scripts them (ping always with {}). Anything else on the
// output breaks the protocol and fails the case.
type lineConn struct {
	p      *pipe
	script *script
}

func (c lineConn) request(ctx context.Context, id string, req []byte) (*rpcAnswer, error) {
	if err := c.p.write(ctx, req); err != nil {
		return nil, err
	}
	for {
		l, err := c.p.next(ctx)
		if err != nil {
			return nil, err
		}
		var m rpcMessage
		if err := json.Unmarshal(l.data, &m); err != nil || m.ID == nil && m.Method == "" {
			return nil, fmt.Errorf("%s wrote a line that is not a JSON-RPC message: %s", c.p.who, clip(string(l.data), 200))
		}
		switch {
		case m.Method != "" && m.ID != nil:
			if err := c.p.write(ctx, c.script.answer(m)); err != nil {
				return nil, err
			}
		case m.Method != "":
			c.script.notice(m)
		case string(m.ID) == id:
			return &rpcAnswer{result: m.Result, err: m.Error}, nil
		default:
			return nil, fmt.Errorf("%s answered id %s, which was not asked (the request is id %s): %s", c.p.who, m.ID, id, clip(string(l.data), 200))
		}
	}
}

func (c lineConn) notify(ctx context.Context, msg []byte) error { return c.p.write(ctx, msg) }

func (lineConn) initialized(string, *rpcAnswer) {} // a pipe is one session: nothing to carry

func (lineConn) stateless(string, string, string) {} // a line carries no headers

// stdioMisfits are what case c asks of flow t, served over stdio, that a pipe cannot carry:
// HTTP's parts, a line break in a line, and vars (a call runs beside the session's lines, so no delivery's outcome is
// the call's). Each names the key and why, and fails the case before anything is sent.
func stdioMisfits(t target, c *loaded) []string {
	on := fmt.Sprintf("flow %q is served over stdio (connector %q)", t.flow, t.connector)
	var out []string
	misfit := func(set bool, key, why string) {
		if set {
			out = append(out, key+": "+on+", "+why)
		}
	}
	if rq := c.Request; rq != nil {
		misfit(rq.Method != "", "request.method", "which has no HTTP methods: the request is its body, one line")
		misfit(rq.Path != "", "request.path", "which has no paths")
		misfit(len(rq.Headers) > 0, "request.headers", "whose messages carry no headers")
		misfit(rq.Text != nil && strings.ContainsAny(*rq.Text, "\r\n"), "request.text", "where a message is one line: the text must hold no line break")
	}
	if c.MCP != nil {
		misfit(len(c.MCP.Headers) > 0, "mcp.headers", "whose messages carry no headers")
		misfit(c.MCP.Path != "", "mcp.path", "which has no paths")
	}
	e := &c.Expect
	misfit(e.Status != 0, "expect.status", "which has no HTTP status")
	misfit(len(e.Headers) > 0, "expect.headers", "whose answers carry no headers")
	misfit(e.Vars != nil, "expect.vars", "where a call runs beside the session's lines and no flow outcome holds its vars: check the answer")
	return out
}

// lineCase sends a request's body to a flow on stdio as one line (body as JSON, text as written,
// an empty line for neither), and checks what the flow wrote for it until its input ended after
// that line: its lines joined by newlines, the body as JSON when the expectations look into it.
func lineCase(ctx context.Context, p *pipe, c *loaded, o *outcome) {
	rq := c.Request
	var line []byte
	switch {
	case rq.Text != nil:
		line = []byte(*rq.Text)
	case rq.Body != nil:
		v, err := valueOf(rq.Body)
		if err != nil {
			o.failf("request.body: %v", err)
			return
		}
		line, _ = json.Marshal(v)
	}
	got, err := p.exchange(ctx, line)
	if err != nil {
		o.failf("request: %v", err)
		return
	}
	text := string(bytes.Join(got, []byte("\n")))
	o.body = text
	var parsed any
	if wantsJSON(&c.Expect) {
		v, err := jsonv.Decode([]byte(text))
		if err != nil {
			o.failf("body: expected JSON, got %s", clip(text, 200))
			return
		}
		parsed = v
	}
	checkBody(&c.Expect, parsed, text, o)
}

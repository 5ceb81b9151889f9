package octotest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/octo-run/octo/mcp"
)

// mcpClient speaks MCP as a client does: the initialize handshake, then requests, over the
// transport of the flow a case is for (rpcConn). It is small on purpose: a case checks the
// server's answers, so the client adds none of its own behaviour (no retries, no reconnects).
type mcpClient struct {
	conn    rpcConn
	script  *script
	version string // the revision asked for
	id      int
	ready   bool // the handshake is done: a case on a shared session sends its request at once
}

// newClient is the client of case c on conn, answering as sc scripts.
func newClient(conn rpcConn, sc *script, c *loaded) *mcpClient {
	return &mcpClient{conn: conn, script: sc, version: protocolOf(c.Client)}
}

// rpcConn carries a case's JSON-RPC messages to the flow and its answers back: a POST each over
// Streamable HTTP (httpConn), a line each over stdio (lineConn).
type rpcConn interface {
	// request sends req, whose id is id, and returns its answer.
	request(ctx context.Context, id string, req []byte) (*rpcAnswer, error)
	// notify sends a notification.
	notify(ctx context.Context, msg []byte) error
	// initialized keeps what the handshake settled: the negotiated version, and the answer
	// that carried it.
	initialized(version string, a *rpcAnswer)
	// stateless says the next requests speak a revision without sessions, and their method and
	// name (which HTTP's headers mirror).
	stateless(version, method, name string)
}

// rpcAnswer is one JSON-RPC answer and, over HTTP, the HTTP answer that carried it.
type rpcAnswer struct {
	http   *httpAnswer // nil over stdio
	result json.RawMessage
	err    *rpcErr
}

// refused reports an HTTP answer that is not 2xx and not an error of the protocol: refused
// before it (a 401 before the router), so the HTTP answer is what to check.
func (a *rpcAnswer) refused() bool { return a.http != nil && a.http.status/100 != 2 && a.err == nil }

type rpcErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// initialize runs the handshake. A refused one (a 401 before the router) comes back as the
// answer to check, with ok false.
func (c *mcpClient) initialize(ctx context.Context) (*rpcAnswer, bool, error) {
	if c.version == mcp.Version20260728 || c.ready { // 2026-07-28 has no handshake: each request says its revision
		return nil, true, nil
	}
	a, err := c.call(ctx, "initialize", map[string]any{
		"protocolVersion": c.version,
		"capabilities":    c.script.capabilities(c.version),
		"clientInfo":      map[string]any{"name": "octo-test", "version": "1"},
	})
	if err != nil || a.err != nil || a.refused() {
		return a, false, err
	}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(a.result, &init); err != nil {
		return a, false, fmt.Errorf("initialize: reading the result: %v", err)
	}
	c.conn.initialized(init.ProtocolVersion, a)
	if err := c.conn.notify(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		return nil, false, fmt.Errorf("notifications/initialized: %v", err)
	}
	c.ready = true
	return a, true, nil
}

// call sends one request and returns its answer; on 2026-07-28, after the rounds of input
// it takes.
func (c *mcpClient) call(ctx context.Context, method string, params any) (*rpcAnswer, error) {
	if c.version == mcp.Version20260728 && method != "initialize" {
		return c.statelessCall(ctx, method, params)
	}
	return c.send(ctx, method, params)
}

// send sends one request and returns its answer.
func (c *mcpClient) send(ctx context.Context, method string, params any) (*rpcAnswer, error) {
	c.id++
	req := map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method}
	if params != nil {
		req["params"] = params
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	a, err := c.conn.request(ctx, strconv.Itoa(c.id), body)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", method, err)
	}
	return a, nil
}

// rpcMessage is a JSON-RPC message as the client reads it.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *rpcErr         `json:"error"`
}

// httpConn is Streamable HTTP: one POST per message, with the case's headers and the session a
// stateful server gives; an answer is a JSON body or an SSE stream, read as it comes, so the
// server's questions on it are answered (a POST each) while the call waits for them.
type httpConn struct {
	hc      *http.Client
	url     string
	headers map[string]string
	session string
	version string
	script  *script
	// method and name are a 2026-07-28 request's, which its headers mirror; "" before.
	method, name string
}

func (c *httpConn) request(ctx context.Context, id string, req []byte) (*rpcAnswer, error) {
	resp, err := c.do(ctx, req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		h := &httpAnswer{status: resp.StatusCode, header: resp.Header}
		msg, err := c.stream(ctx, resp.Body, id, h)
		if err != nil {
			return nil, err
		}
		return &rpcAnswer{http: h, result: msg.Result, err: msg.Error}, nil
	}
	h, err := answerOf(resp)
	if err != nil {
		return nil, err
	}
	a := &rpcAnswer{http: h}
	var m rpcMessage
	if a.refused() {
		// A 2026-07-28 error comes with a status of its own (400, 404): an answer still.
		if json.Unmarshal(h.body, &m) == nil && m.Error != nil && h.status == mcp.ModernErrorStatus(m.Error.Code) {
			a.err = m.Error
		}
		return a, nil
	}
	if err := json.Unmarshal(h.body, &m); err != nil {
		return nil, fmt.Errorf("the answer is not JSON-RPC: %v: %s", err, clip(string(h.body), 200))
	}
	a.result, a.err = m.Result, m.Error
	return a, nil
}

// end ends the session the server gave, as a client leaving does (a DELETE).
func (c *httpConn) end(ctx context.Context) {
	if c.session != "" {
		endSession(ctx, c.hc, c.url, c.session)
	}
}

func (c *httpConn) notify(ctx context.Context, msg []byte) error {
	_, err := c.post(ctx, msg)
	return err
}

func (c *httpConn) initialized(version string, a *rpcAnswer) {
	c.version, c.session = version, a.http.header.Get(mcp.HeaderSessionID)
}

func (c *httpConn) stateless(version, method, name string) {
	c.version, c.method, c.name = version, method, name
}

// stream reads an SSE answer until the event that answers request id, keeping what it read in
// h.body: the server's notifications are kept for the case and its requests answered as the
// case scripts them, each by a POST, while the call waits.
func (c *httpConn) stream(ctx context.Context, body io.Reader, want string, h *httpAnswer) (*rpcMessage, error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64*1024), maxBody)
	var data []byte
	for sc.Scan() {
		line := sc.Text()
		if len(h.body)+len(line) > maxBody {
			return nil, fmt.Errorf("the answer is larger than %d bytes", maxBody)
		}
		h.body = append(append(h.body, line...), '\n')
		if d, ok := strings.CutPrefix(line, "data:"); ok {
			if len(data) > 0 {
				data = append(data, '\n') // an event's data lines are joined by newlines
			}
			data = append(data, strings.TrimPrefix(d, " ")...)
			continue
		}
		if line != "" || len(data) == 0 {
			continue
		}
		m, err := c.event(ctx, data, want)
		data = data[:0]
		if m != nil || err != nil {
			return m, err
		}
	}
	if len(data) > 0 { // a last event the stream ended without a blank line after
		if m, err := c.event(ctx, data, want); m != nil || err != nil {
			return m, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the event stream: %v", err)
	}
	return nil, errors.New("the event stream ended without the answer")
}

// event handles one SSE event's data (serverMessage).
func (c *httpConn) event(ctx context.Context, data []byte, want string) (*rpcMessage, error) {
	return serverMessage(ctx, data, want, c.script, c.post)
}

// serverMessage handles one message the server sent while a call waits: a request of the
// server's is answered as sc scripts it (by post), a notification kept; the answer to request
// want is returned. Data that is not JSON-RPC is passed over.
func serverMessage(ctx context.Context, data []byte, want string, sc *script, post func(context.Context, []byte) (*httpAnswer, error)) (*rpcMessage, error) {
	var m rpcMessage
	if json.Unmarshal(data, &m) != nil {
		return nil, nil
	}
	switch {
	case m.Method != "" && m.ID != nil:
		h, err := post(ctx, sc.answer(m))
		if err != nil {
			return nil, fmt.Errorf("answering the server's %s: %v", m.Method, err)
		}
		if h.status/100 != 2 {
			return nil, fmt.Errorf("answering the server's %s: HTTP %d: %s", m.Method, h.status, clip(string(h.body), 200))
		}
	case m.Method != "":
		sc.notice(m)
	case string(m.ID) == want:
		return &m, nil
	}
	return nil, nil
}

// post sends one JSON-RPC message and reads the whole answer.
func (c *httpConn) post(ctx context.Context, body []byte) (*httpAnswer, error) {
	resp, err := c.do(ctx, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return answerOf(resp)
}

// do sends one JSON-RPC message with the case's headers and the session's; the caller reads
// and closes the answer's body.
func (c *httpConn) do(ctx context.Context, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	if c.session != "" {
		req.Header.Set(mcp.HeaderSessionID, c.session)
	}
	if c.version != "" {
		req.Header.Set(mcp.HeaderProtocolVersion, c.version)
	}
	if c.method != "" {
		req.Header.Set(mcp.HeaderMethod, c.method)
	}
	if c.name != "" {
		req.Header.Set(mcp.HeaderName, c.name)
	}
	return c.hc.Do(req)
}

// ProgressToken is the progress token of a case that asks for progress (mcp.progress).
const ProgressToken = "octo-test"

// mcpMethod is the JSON-RPC method and params a case's MCP request sends.
func mcpMethod(m *MCPRequest) (string, any, error) {
	args, err := optional(m.Arguments)
	if err != nil {
		return "", nil, err
	}
	switch {
	case m.Tool != "":
		if args == nil {
			args = map[string]any{}
		}
		p := map[string]any{"name": m.Tool, "arguments": args}
		if m.Progress {
			p["_meta"] = map[string]any{"progressToken": ProgressToken}
		}
		return "tools/call", p, nil
	case m.List != "":
		method := map[string]string{"tools": "tools/list", "resources": "resources/list",
			"resourceTemplates": "resources/templates/list", "prompts": "prompts/list"}[m.List]
		return method, map[string]any{}, nil
	case m.Read != "":
		return "resources/read", map[string]any{"uri": m.Read}, nil
	case m.Prompt != "":
		p := map[string]any{"name": m.Prompt}
		if args != nil {
			p["arguments"] = args
		}
		return "prompts/get", p, nil
	}
	params, err := optional(m.Params)
	return m.Method, params, err
}

// resultText is the text of a result's content, joined by newlines: a tool result's text items,
// a resource's text contents, a prompt's text messages.
func resultText(result any) string {
	r, _ := result.(map[string]any)
	var parts []string
	add := func(items any, text func(map[string]any) any) {
		list, _ := items.([]any)
		for _, it := range list {
			if m, ok := it.(map[string]any); ok {
				if s, ok := text(m).(string); ok {
					parts = append(parts, s)
				}
			}
		}
	}
	add(r["content"], func(m map[string]any) any { return m["text"] })
	add(r["contents"], func(m map[string]any) any { return m["text"] })
	add(r["messages"], func(m map[string]any) any {
		c, _ := m["content"].(map[string]any)
		return c["text"]
	})
	return strings.Join(parts, "\n")
}

package octotest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/octo-run/octo/blocks/mcp"
)

// mcpClient speaks MCP as a client does: the initialize handshake, then requests, over the
// transport of the flow a case is for (rpcConn). It is small on purpose: a case checks the
// server's answers, so the client adds none of its own behaviour (no retries, no reconnects).
type mcpClient struct {
	conn rpcConn
	id   int
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
}

// rpcAnswer is one JSON-RPC answer and, over HTTP, the HTTP answer that carried it.
type rpcAnswer struct {
	http   *httpAnswer // nil over stdio
	result json.RawMessage
	err    *rpcErr
}

// refused reports an HTTP answer that is not 2xx: refused before the protocol (a 401 before the
// router), so the HTTP answer is what to check.
func (a *rpcAnswer) refused() bool { return a.http != nil && a.http.status/100 != 2 }

type rpcErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// initialize runs the handshake. A refused one (a 401 before the router) comes back as the
// answer to check, with ok false.
func (c *mcpClient) initialize(ctx context.Context) (*rpcAnswer, bool, error) {
	a, err := c.call(ctx, "initialize", map[string]any{
		"protocolVersion": mcp.Version20250618,
		"capabilities":    map[string]any{},
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
	return a, true, nil
}

// call sends one request and returns its answer.
func (c *mcpClient) call(ctx context.Context, method string, params any) (*rpcAnswer, error) {
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
	Result json.RawMessage `json:"result"`
	Error  *rpcErr         `json:"error"`
}

// httpConn is Streamable HTTP: one POST per message, with the case's headers and the session a
// stateful server gives; an answer is a JSON body or an SSE stream.
type httpConn struct {
	hc      *http.Client
	url     string
	headers map[string]string
	session string
	version string
}

func (c *httpConn) request(ctx context.Context, id string, req []byte) (*rpcAnswer, error) {
	h, err := c.post(ctx, req)
	if err != nil {
		return nil, err
	}
	a := &rpcAnswer{http: h}
	if a.refused() {
		return a, nil
	}
	msg, err := findAnswer(h, id)
	if err != nil {
		return nil, err
	}
	a.result, a.err = msg.Result, msg.Error
	return a, nil
}

func (c *httpConn) notify(ctx context.Context, msg []byte) error {
	_, err := c.post(ctx, msg)
	return err
}

func (c *httpConn) initialized(version string, a *rpcAnswer) {
	c.version, c.session = version, a.http.header.Get(mcp.HeaderSessionID)
}

// findAnswer reads the answer to request id from an HTTP answer: its JSON body, or the event of
// an SSE stream that answers it (progress and log notifications are skipped).
func findAnswer(h *httpAnswer, want string) (*rpcMessage, error) {
	if !strings.HasPrefix(h.header.Get("Content-Type"), "text/event-stream") {
		var m rpcMessage
		if err := json.Unmarshal(h.body, &m); err != nil {
			return nil, fmt.Errorf("the answer is not JSON-RPC: %v: %s", err, clip(string(h.body), 200))
		}
		return &m, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(h.body))
	sc.Buffer(make([]byte, 64*1024), maxBody)
	var data []byte
	answers := func() *rpcMessage { // the event ending here, when it is the answer
		var m rpcMessage
		ok := len(data) > 0 && json.Unmarshal(data, &m) == nil && string(m.ID) == want
		data = data[:0]
		if ok {
			return &m
		}
		return nil
	}
	for sc.Scan() {
		line := sc.Text()
		if d, ok := strings.CutPrefix(line, "data:"); ok {
			if len(data) > 0 {
				data = append(data, '\n') // an event's data lines are joined by newlines
			}
			data = append(data, strings.TrimPrefix(d, " ")...)
			continue
		}
		if line == "" {
			if m := answers(); m != nil {
				return m, nil
			}
		}
	}
	if m := answers(); m != nil { // a last event the stream ended without a blank line after
		return m, nil
	}
	return nil, errors.New("the event stream ended without the answer")
}

// post sends one JSON-RPC message with the case's headers and the session's.
func (c *httpConn) post(ctx context.Context, body []byte) (*httpAnswer, error) {
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
	return send(c.hc, req)
}

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
		return "tools/call", map[string]any{"name": m.Tool, "arguments": args}, nil
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

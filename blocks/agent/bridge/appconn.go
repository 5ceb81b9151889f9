package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/session"
)

// appConn is the bridge's MCP client session with the app, over one connection that passed
// the handshake: one JSON-RPC message per line each way. Requests wait for their response by
// id; progress notifications go to the call whose token they carry; `octo/disconnected` marks
// the session as ended by the user.
type appConn struct {
	conn net.Conn
	log  *slog.Logger

	wmu sync.Mutex // one line at a time on conn

	mu           sync.Mutex
	next         int64
	waiting      map[jsonrpc.ID]*pending
	byToken      map[string]*pending // calls that asked for progress, by their token's text
	disconnected bool                // the app said the user disconnected this agent
	closed       chan struct{}       // closed when the connection is gone
}

// pending is a request waiting for its response.
type pending struct {
	resp chan *jsonrpc.Message // cap 1
	call *call                 // a tool call's progress goes to its agent; nil otherwise
}

// Errors of a request to the app.
var (
	errAppClosed    = errors.New("octo closed the connection")
	errDisconnected = errors.New("the user disconnected this agent")
)

// appWriteTimeout bounds a write to the app: an app that reads nothing is as good as gone.
const appWriteTimeout = 10 * time.Second

// newAppConn starts reading conn, a connection that passed the handshake.
func newAppConn(conn net.Conn, log *slog.Logger) *appConn {
	c := &appConn{conn: conn, log: log, waiting: map[jsonrpc.ID]*pending{}, byToken: map[string]*pending{},
		closed: make(chan struct{})}
	go c.read(bufio.NewReaderSize(conn, 64<<10))
	return c
}

// initialize opens the MCP session as the agent: the app shows the user which agent it is.
func (c *appConn) initialize(ctx context.Context, agent mcp.Implementation) error {
	if agent.Name == "" {
		agent.Name = "agent"
	}
	params, err := json.Marshal(struct {
		ProtocolVersion string             `json:"protocolVersion"`
		Capabilities    struct{}           `json:"capabilities"`
		ClientInfo      mcp.Implementation `json:"clientInfo"`
	}{mcp.Version20251125, struct{}{}, agent})
	if err != nil {
		return err
	}
	resp, err := c.request(ctx, "initialize", params, nil)
	if err != nil {
		return err
	}
	if resp.Error != nil {
		return fmt.Errorf("initialize: %s", resp.Error.Message)
	}
	return c.send(jsonrpc.AppendRequest(nil, jsonrpc.ID{}, "notifications/initialized", nil))
}

// callTool runs a tool call in the app and returns its result, or the message for the agent
// when the connection ends first. A JSON-RPC error from the app is returned as is.
func (c *appConn) callTool(ctx context.Context, cl *call) (*mcp.CallToolResult, error) {
	var meta any
	if tok := cl.token(); tok != nil {
		meta = struct {
			Token json.RawMessage `json:"progressToken"`
		}{tok}
	}
	params, err := json.Marshal(struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      any             `json:"_meta,omitempty"`
	}{cl.name, cl.args, meta})
	if err != nil {
		return nil, err
	}
	resp, err := c.request(ctx, "tools/call", params, cl)
	switch {
	case errors.Is(err, errDisconnected):
		return mcp.ToolError(msgDisconnected), nil
	case errors.Is(err, errAppClosed):
		return mcp.ToolError(msgClosedDuring), nil
	case err != nil:
		return nil, err
	case resp.Error != nil:
		return nil, resp.Error
	}
	return decodeResult(resp.Result)
}

// decodeResult reads the app's tools/call result; structuredContent passes through verbatim.
func decodeResult(raw json.RawMessage) (*mcp.CallToolResult, error) {
	var r struct {
		Content           []mcp.Content   `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
		Meta              map[string]any  `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("octo answered a result that is not a tool result: %w", err)
	}
	res := &mcp.CallToolResult{Content: r.Content, IsError: r.IsError, Meta: r.Meta}
	if len(r.StructuredContent) > 0 && !bytes.Equal(r.StructuredContent, []byte("null")) {
		res.StructuredContent = r.StructuredContent
	}
	if res.Content == nil {
		res.Content = []mcp.Content{}
	}
	return res, nil
}

// request sends a request and waits for its response. When ctx ends first, a tool call is
// cancelled in the app at once (notifications/cancelled) and ctx's error returned.
func (c *appConn) request(ctx context.Context, method string, params []byte, cl *call) (*jsonrpc.Message, error) {
	p := &pending{resp: make(chan *jsonrpc.Message, 1), call: cl}
	id, err := c.add(p)
	if err != nil {
		return nil, err
	}
	defer c.remove(id, p)
	if err := c.send(jsonrpc.AppendRequest(nil, id, method, params)); err != nil {
		return nil, c.ended()
	}
	select {
	case m := <-p.resp:
		return m, nil
	case <-c.closed:
		return nil, c.ended()
	case <-ctx.Done():
		if cl != nil {
			c.cancel(id, context.Cause(ctx))
		}
		return nil, ctx.Err()
	}
}

// add registers p under a fresh id; it fails once the connection is gone.
func (c *appConn) add(p *pending) (jsonrpc.ID, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.closed:
		return jsonrpc.ID{}, c.endedLocked()
	default:
	}
	c.next++
	id := jsonrpc.IntID(c.next)
	c.waiting[id] = p
	if p.call != nil && p.call.token() != nil {
		c.byToken[string(p.call.token())] = p
	}
	return id, nil
}

func (c *appConn) remove(id jsonrpc.ID, p *pending) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.waiting, id)
	if p.call != nil && p.call.token() != nil && c.byToken[string(p.call.token())] == p {
		delete(c.byToken, string(p.call.token()))
	}
}

// cancel tells the app that the agent cancelled the request id.
func (c *appConn) cancel(id jsonrpc.ID, cause error) {
	reason := "the agent cancelled the call"
	if cause != nil && !errors.Is(cause, context.Canceled) {
		reason = cause.Error()
	}
	params, err := json.Marshal(struct {
		RequestID jsonrpc.ID `json:"requestId"`
		Reason    string     `json:"reason"`
	}{id, reason})
	if err == nil {
		_ = c.send(jsonrpc.AppendRequest(nil, jsonrpc.ID{}, "notifications/cancelled", params))
	}
}

// send writes one line; a failed write ends the connection.
func (c *appConn) send(line []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(appWriteTimeout))
	_, err := c.conn.Write(append(line, '\n'))
	if err != nil {
		c.close()
	}
	return err
}

// ended is why requests fail now that the connection is gone.
func (c *appConn) ended() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.endedLocked()
}

func (c *appConn) endedLocked() error {
	if c.disconnected {
		return errDisconnected
	}
	return errAppClosed
}

// alive reports whether the connection can still carry calls.
func (c *appConn) alive() bool {
	select {
	case <-c.closed:
		return false
	default:
		return true
	}
}

// wasDisconnected reports whether the user disconnected this agent in the app.
func (c *appConn) wasDisconnected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.disconnected
}

// close closes the connection; the reader then ends and fails what waits.
func (c *appConn) close() { _ = c.conn.Close() }

// read takes the app's lines until the connection ends.
func (c *appConn) read(r *bufio.Reader) {
	defer func() {
		c.mu.Lock()
		close(c.closed)
		c.mu.Unlock()
		c.close()
	}()
	for {
		line, tooLong, err := stdiomsg.ReadLine(r, session.MaxLineBytes)
		if tooLong {
			// What it meant cannot be known, so a call waiting on it could wait for ever:
			// the connection ends, and its calls are told so.
			c.log.Warn("octo sent a line over the limit; closing the connection", "limit", session.MaxLineBytes)
			return
		}
		if len(bytes.TrimSpace(line)) > 0 {
			c.handle(line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				c.log.Warn("the connection to octo failed", "err", err)
			}
			return
		}
	}
}

// handle dispatches one line from the app.
func (c *appConn) handle(line []byte) {
	msgs, _, perr := jsonrpc.Decode(line)
	if perr != nil {
		c.log.Warn("octo sent a line that is not JSON-RPC", "err", perr.Message)
		return
	}
	for i := range msgs {
		m := &msgs[i]
		switch m.Kind {
		case jsonrpc.KindResponse:
			c.respond(m)
		case jsonrpc.KindNotification:
			c.notified(m)
		case jsonrpc.KindRequest:
			c.answer(m)
		}
	}
}

func (c *appConn) respond(m *jsonrpc.Message) {
	c.mu.Lock()
	p := c.waiting[m.ID]
	c.mu.Unlock()
	if p != nil {
		select {
		case p.resp <- m:
		default: // a second answer to one id: the first one counts
		}
	}
}

// notified handles a notification from the app: progress for a call goes to its agent.
func (c *appConn) notified(m *jsonrpc.Message) {
	switch m.Method {
	case "octo/disconnected":
		c.mu.Lock()
		c.disconnected = true
		c.mu.Unlock()
	case "notifications/progress": // passed on in the agent's revision of the protocol
		var p struct {
			Token    json.RawMessage `json:"progressToken"`
			Progress float64         `json:"progress"`
			Total    float64         `json:"total"`
			Message  string          `json:"message"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		c.mu.Lock()
		w := c.byToken[string(p.Token)]
		c.mu.Unlock()
		if w != nil {
			w.call.passOn(p.Progress, p.Total, p.Message)
		}
	}
}

// answer answers a request from the app: ping, and nothing else the bridge offers.
func (c *appConn) answer(m *jsonrpc.Message) {
	if m.Method == "ping" {
		_ = c.send(jsonrpc.AppendResult(nil, m.ID, []byte("{}")))
		return
	}
	_ = c.send(jsonrpc.AppendError(nil, m.ID, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: %s", m.Method)))
}

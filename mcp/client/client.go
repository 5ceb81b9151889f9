package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// conn is one transport's way of moving messages. What the server sends
// (answers, notifications, its own requests) is handed to the client's
// receive as it arrives; over Streamable HTTP a request's answer arrives
// before send returns, or send fails.
type conn interface {
	// send sends one encoded message; id is the request's, zero for a
	// notification or a response.
	send(ctx context.Context, msg []byte, id jsonrpc.ID) error
	// close ends the session: DELETE, the event stream closed, the process
	// ended.
	close(ctx context.Context) error
}

// versioned is a conn that must know the negotiated revision (the HTTP
// MCP-Protocol-Version header).
type versioned interface {
	setVersion(v string)
}

// Client is one initialized session with an MCP server. Its methods may be
// called from many goroutines at once.
type Client struct {
	opts Options
	conn conn
	init InitializeResult

	nextID atomic.Int64
	mu     sync.Mutex
	// pending holds the requests waiting for their answer, by id.
	pending map[jsonrpc.ID]chan jsonrpc.Message
	// progress holds the callbacks of calls that asked for progress, by token.
	progress map[jsonrpc.ID]func(Progress)
	// askers hold the calls in flight that answer the server's questions, by id.
	askers map[jsonrpc.ID]asking
	closed bool

	// done is closed when the connection ended (a stdio process exited, a
	// legacy event stream ended) or the client was closed; endErr says why.
	done   chan struct{}
	endErr error

	// renewing serializes re-initializing an expired session; generation
	// counts the sessions, so concurrent requests renew once.
	renewing   sync.Mutex
	generation atomic.Int64
}

// InitializeResult is what the server answered to initialize.
type InitializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      mcp.Implementation `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
}

// ServerCapabilities are the capabilities the server declared; a nil
// member was not declared.
type ServerCapabilities struct {
	Tools        *ListCapability `json:"tools,omitempty"`
	Resources    *ListCapability `json:"resources,omitempty"`
	Prompts      *ListCapability `json:"prompts,omitempty"`
	Logging      json.RawMessage `json:"logging,omitempty"`
	Completions  json.RawMessage `json:"completions,omitempty"`
	Experimental json.RawMessage `json:"experimental,omitempty"`
}

// ListCapability is a tools, resources or prompts capability.
type ListCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
	Subscribe   bool `json:"subscribe,omitempty"`
}

// Dial connects to the server Options name and initializes a session
// within ctx and Options.Timeout.
func Dial(ctx context.Context, o Options) (*Client, error) {
	if err := o.normalize(); err != nil {
		return nil, err
	}
	c := newClient(o)
	switch o.Transport {
	case TransportStdio:
		return c.start(ctx, func() (conn, error) { return startStdio(o, c.receive, c.end) })
	case TransportSSE:
		return c.start(ctx, func() (conn, error) { return openSSE(ctx, o, c.receive, c.end) })
	case TransportStreamable:
		return c.start(ctx, func() (conn, error) { return newStreamable(o, c.receive), nil })
	}
	cl, err := c.start(ctx, func() (conn, error) { return newStreamable(o, c.receive), nil })
	if !fallsBack(err) {
		return cl, err
	}
	o.Logger.Debug("streamable HTTP refused, trying the legacy HTTP+SSE transport", "url", o.URL, "err", err)
	c = newClient(o)
	cl, sseErr := c.start(ctx, func() (conn, error) { return openSSE(ctx, o, c.receive, c.end) })
	if sseErr != nil {
		return nil, fmt.Errorf("%w; legacy HTTP+SSE: %w", err, sseErr)
	}
	return cl, nil
}

// fallsBack reports whether initialize's failure means "not a Streamable
// HTTP endpoint": a 4xx, but not the answers about credentials or load.
func fallsBack(err error) bool {
	var he *HTTPError
	if !errors.As(err, &he) {
		return false
	}
	switch he.Status {
	case 401, 403, 407, 429:
		return false
	}
	return he.Status >= 400 && he.Status < 500
}

func newClient(o Options) *Client {
	return &Client{opts: o, pending: map[jsonrpc.ID]chan jsonrpc.Message{}, progress: map[jsonrpc.ID]func(Progress){},
		done: make(chan struct{})}
}

// start opens the transport and initializes; on failure nothing is left
// running.
func (c *Client) start(ctx context.Context, open func() (conn, error)) (*Client, error) {
	cn, err := open()
	if err != nil {
		return nil, err
	}
	c.conn = cn
	if err := c.initialize(ctx); err != nil {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
		defer cancel()
		_ = c.Close(closeCtx)
		return nil, err
	}
	if l, ok := cn.(listener); ok && (c.opts.OnListChanged != nil || c.opts.OnNotification != nil) {
		l.listen()
	}
	return c, nil
}

// InitializeResult returns what the server answered to initialize (the
// latest one, if the session was renewed).
func (c *Client) InitializeResult() InitializeResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.init
}

type initializeParams struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    json.RawMessage    `json:"capabilities"`
	ClientInfo      mcp.Implementation `json:"clientInfo"`
}

// initialize runs the handshake: initialize, then notifications/initialized.
// The client declares Options.Capabilities, none by default.
func (c *Client) initialize(ctx context.Context) error {
	caps := c.opts.Capabilities
	if len(caps) == 0 {
		caps = json.RawMessage("{}")
	}
	raw, err := c.request(withOpening(ctx), "initialize", initializeParams{ProtocolVersion: c.opts.ProtocolVersion,
		ClientInfo: c.opts.ClientInfo, Capabilities: caps}, nil)
	if err != nil {
		return err
	}
	var res InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return protocolErrorf("initialize result: %v", err)
	}
	if !versions.Speaks(res.ProtocolVersion) {
		return protocolErrorf("the server answered protocol version %q; this client speaks %s",
			res.ProtocolVersion, versions.List())
	}
	if v, ok := c.conn.(versioned); ok {
		v.setVersion(res.ProtocolVersion)
	}
	c.mu.Lock()
	c.init = res
	c.mu.Unlock()
	return c.notify(ctx, "notifications/initialized", nil)
}

// renew initializes a new session after the server forgot the one gen
// was, unless another request already did. Meanwhile other requests keep
// the old session: theirs fail as expired too and wait here for the new one.
func (c *Client) renew(ctx context.Context, gen int64) error {
	c.renewing.Lock()
	defer c.renewing.Unlock()
	if c.generation.Load() != gen {
		return nil
	}
	c.opts.Logger.Info("the server forgot the session; initializing a new one", "url", c.opts.URL)
	if err := c.initialize(ctx); err != nil {
		return fmt.Errorf("renewing the expired session: %w", err)
	}
	c.generation.Add(1)
	return nil
}

// closeTimeout bounds what Close and a cancellation notice may wait when
// the caller's context has no deadline of its own.
const closeTimeout = 5 * time.Second

// Close ends the session: over HTTP a DELETE of the session, the event
// stream closed; over stdio the input closed, then SIGTERM, then SIGKILL.
// Requests still waiting fail with ErrClosed.
func (c *Client) Close(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	c.end(ErrClosed)
	if c.conn == nil {
		return nil
	}
	return c.conn.close(ctx)
}

// end fails every waiting request with err, once.
func (c *Client) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.endErr != nil {
		return
	}
	if !errors.Is(err, ErrClosed) {
		err = fmt.Errorf("%w: %w", ErrClosed, err)
	}
	c.endErr = err
	close(c.done)
}

// Done is closed when the session can no longer be used: Close was called,
// or the connection ended. Err then says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is why the session ended, or nil while it lasts.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.endErr
}

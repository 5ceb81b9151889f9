package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/octo-run/octo/mcp/jsonrpc"
)

// Progress is one notifications/progress of a call.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// request sends method with params and waits for the answer, within
// Options.Timeout. A cancelled or timed-out request is withdrawn with
// notifications/cancelled. onProgress, when set, receives the request's
// progress (params must then carry its id as _meta.progressToken, which
// withProgress does).
func (c *Client) request(ctx context.Context, method string, params any, onProgress func(Progress)) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.opts.Timeout, errTimedOut)
	defer cancel()
	id := jsonrpc.IntID(c.nextID.Add(1))
	raw, err := encodeParams(params, id, onProgress != nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	answer, err := c.track(ctx, id, onProgress)
	if err != nil {
		return nil, err
	}
	defer c.forget(id)
	msg := jsonrpc.AppendRequest(nil, id, method, raw)
	gen := c.generation.Load()
	err = c.conn.send(ctx, msg, id)
	if errors.Is(err, errSessionExpired) && method != "initialize" {
		if err = c.renew(ctx, gen); err == nil {
			err = c.conn.send(ctx, msg, id)
		}
	}
	if err == nil {
		select {
		case m := <-answer:
			if m.Error != nil {
				return nil, fmt.Errorf("%s: %w", method, m.Error)
			}
			return m.Result, nil
		case <-ctx.Done():
		case <-c.done:
			return nil, fmt.Errorf("%s: %w", method, c.Err())
		}
	}
	if ctx.Err() != nil {
		return nil, c.withdraw(ctx, method, id)
	}
	if ended := c.Err(); ended != nil {
		// A write to a process that exited fails before its reader says why.
		err = ended
	}
	return nil, fmt.Errorf("%s: %w", method, err)
}

// withdraw tells the server a request is no longer wanted (never
// initialize, which must not be cancelled) and says why it ended.
func (c *Client) withdraw(ctx context.Context, method string, id jsonrpc.ID) error {
	reason := "the client cancelled the request"
	err := fmt.Errorf("%s: %w", method, ctx.Err())
	if errors.Is(context.Cause(ctx), errTimedOut) {
		reason = "the client timed out"
		err = fmt.Errorf("%s: no answer within %s (the client's timeout): %w", method, c.opts.Timeout, ctx.Err())
	}
	if method != "initialize" && c.Err() == nil {
		nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
		defer cancel()
		_ = c.notify(nctx, "notifications/cancelled", cancelledParams{RequestID: id, Reason: reason})
	}
	return err
}

// errTimedOut is the cause of a request's context when Options.Timeout
// ended it, rather than the caller's context.
var errTimedOut = errors.New("the client's timeout")

type cancelledParams struct {
	RequestID jsonrpc.ID `json:"requestId"`
	Reason    string     `json:"reason,omitempty"`
}

// encodeParams marshals params; with progress it adds
// _meta.progressToken, the request's own id (unique while it runs).
func encodeParams(params any, id jsonrpc.ID, progress bool) (json.RawMessage, error) {
	if params == nil && !progress {
		return nil, nil
	}
	raw, err := json.Marshal(params)
	if err != nil || !progress {
		return raw, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	if fields == nil {
		fields = map[string]json.RawMessage{}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := fields["_meta"]; ok { // what the params carry already (trace context) stays
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, err
		}
	}
	meta["progressToken"] = json.RawMessage(id.String())
	if fields["_meta"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	return json.Marshal(fields)
}

// track registers a request waiting for its answer.
func (c *Client) track(ctx context.Context, id jsonrpc.ID, onProgress func(Progress)) (chan jsonrpc.Message, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.endErr != nil {
		return nil, c.endErr
	}
	ch := make(chan jsonrpc.Message, 1)
	c.pending[id] = ch
	if onProgress != nil {
		c.progress[id] = onProgress
	}
	if a, ok := ctx.Value(askerKey{}).(Asker); ok {
		if c.askers == nil {
			c.askers = map[jsonrpc.ID]asking{}
		}
		c.askers[id] = asking{ctx: ctx, answer: a}
	}
	return ch, nil
}

func (c *Client) forget(id jsonrpc.ID) {
	c.mu.Lock()
	delete(c.pending, id)
	delete(c.progress, id)
	delete(c.askers, id)
	c.mu.Unlock()
}

// askerKey carries CallOptions.OnRequest from CallTool to track.
type askerKey struct{}

// asking is a call in flight that answers the server's questions, with its context.
type asking struct {
	ctx    context.Context
	answer Asker
}

// askerFor is who answers a question that came on request on's stream: that call, or where
// the stream is no call's, the only call in flight that answers questions. A question that
// cannot be told apart is nobody's: it is refused, never put to another call's user.
func (c *Client) askerFor(on jsonrpc.ID) (asking, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !on.IsZero() {
		a, ok := c.askers[on]
		return a, ok
	}
	if len(c.askers) != 1 {
		return asking{}, false
	}
	for _, a := range c.askers {
		return a, true
	}
	return asking{}, false
}

// notify sends a notification.
func (c *Client) notify(ctx context.Context, method string, params any) error {
	msg, err := jsonrpc.EncodeNotification(method, params)
	if err != nil {
		return err
	}
	if err := c.conn.send(ctx, msg, jsonrpc.ID{}); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// receive takes one message the server sent, on the stream of request on (zero: no one's).
func (c *Client) receive(m jsonrpc.Message, on jsonrpc.ID) {
	switch m.Kind {
	case jsonrpc.KindResponse:
		c.mu.Lock()
		ch := c.pending[m.ID]
		delete(c.pending, m.ID)
		c.mu.Unlock()
		if ch == nil {
			c.opts.Logger.Debug("an answer to no request in flight", "id", m.ID.String())
			return
		}
		ch <- m
	case jsonrpc.KindRequest:
		go c.serve(m.Request, on)
	case jsonrpc.KindNotification:
		c.notified(m.Method, m.Params)
	default:
		c.opts.Logger.Warn("the server sent a message that is not JSON-RPC", "err", m.Error.Message)
	}
}

// serve answers a request the server sent: ping with {}; a question (sampling, elicitation,
// roots) by the call it belongs to, when that call answers questions (CallOptions.OnRequest);
// anything else with method-not-found.
func (c *Client) serve(req jsonrpc.Request, on jsonrpc.ID) {
	var msg []byte
	if req.Method == "ping" {
		msg = jsonrpc.AppendResult(nil, req.ID, nil)
	} else if a, ok := c.askerFor(on); ok {
		result, err := a.answer(a.ctx, req.Method, req.Params)
		var rpcErr *jsonrpc.Error
		switch {
		case errors.As(err, &rpcErr):
			msg = jsonrpc.AppendError(nil, req.ID, rpcErr)
		case err != nil:
			msg = jsonrpc.AppendError(nil, req.ID, jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: %v", err))
		default:
			msg = jsonrpc.AppendResult(nil, req.ID, result)
		}
	} else {
		msg = jsonrpc.AppendError(nil, req.ID, jsonrpc.NewError(jsonrpc.CodeMethodNotFound,
			"Method not found: this client does not serve %s", req.Method))
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if err := c.conn.send(ctx, msg, jsonrpc.ID{}); err != nil {
		c.opts.Logger.Debug("answering the server's request failed", "method", req.Method, "err", err)
	}
}

var listChanged = map[string]string{
	"notifications/tools/list_changed":     "tools",
	"notifications/resources/list_changed": "resources",
	"notifications/prompts/list_changed":   "prompts",
}

// notified dispatches a notification: progress to its call, list changes
// and the rest to the callbacks.
func (c *Client) notified(method string, params json.RawMessage) {
	if method == "notifications/progress" {
		c.progressed(params)
		return
	}
	if list, ok := listChanged[method]; ok && c.opts.OnListChanged != nil {
		c.opts.OnListChanged(list)
		return
	}
	if c.opts.OnNotification != nil {
		c.opts.OnNotification(method, params)
	}
}

func (c *Client) progressed(params json.RawMessage) {
	var p struct {
		Token json.RawMessage `json:"progressToken"`
		Progress
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	token, err := jsonrpc.ParseID(p.Token)
	if err != nil {
		return
	}
	c.mu.Lock()
	fn := c.progress[token]
	c.mu.Unlock()
	if fn != nil {
		fn(p.Progress)
	}
}

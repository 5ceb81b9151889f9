package octotest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The legacy HTTP+SSE transport (2024-11-05), which servers written before Streamable HTTP
// still speak: the client opens an event stream with a GET, whose first event, "endpoint",
// names the URL to POST messages to; each POST is accepted (202) and its answer comes on the
// stream as a "message" event.

// sseEvent is one event of an SSE stream: its type ("message" when unnamed) and data.
type sseEvent struct {
	kind string
	data []byte
}

// legacySSE reports whether the server at u speaks the legacy transport, as the MCP spec tells
// a client that supports both to find out: POST an initialize request; a Streamable HTTP server
// answers it (or asks for credentials), while an older server refuses the POST (404, 405) and
// opens an event stream for a GET, "endpoint" first. A server that refuses both is taken to
// speak Streamable HTTP, so its cases fail on what it answers them.
func legacySSE(ctx context.Context, hc *http.Client, u string) bool {
	probe := `{"jsonrpc":"2.0","id":"octo-test-probe","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"octo-test","version":"1"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(probe))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode/100 != 4 || resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			endSession(ctx, hc, u, sid)
		}
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := openSSE(ctx, hc, u, nil)
	if err != nil {
		return false
	}
	conn.close()
	return true
}

// endSession ends the session the probe opened on a Streamable HTTP server.
func endSession(ctx context.Context, hc *http.Client, u, sid string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, u, nil)
	if err != nil {
		return
	}
	req.Header.Set("Mcp-Session-Id", sid)
	if resp, err := hc.Do(req); err == nil {
		resp.Body.Close()
	}
}

// sseConn is a case's session on a legacy SSE server: the stream it opened, and the endpoint
// it posts to. Events are read into a channel by a goroutine of their own, and handled by the
// request waiting for its answer, so the script is only ever used by the case's goroutine.
type sseConn struct {
	hc       *http.Client
	endpoint string
	headers  map[string]string
	script   *script
	body     io.Closer
	events   chan sseEvent // closed when the stream ends
	err      error         // why it ended, set before events is closed
}

// openSSE opens the event stream at u with headers and waits for its endpoint event.
func openSSE(ctx context.Context, hc *http.Client, u string, headers map[string]string) (*sseConn, error) {
	// The stream lives as long as the session, past ctx of the caller that opens it only
	// when that is the case's: the case's context is what bounds it.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: expected an event stream, got HTTP %d %s: %s", u, resp.StatusCode, resp.Header.Get("Content-Type"), clip(string(body), 200))
	}
	c := &sseConn{hc: hc, headers: headers, body: resp.Body, events: make(chan sseEvent, 64)}
	go c.read(resp.Body)
	select {
	case ev, ok := <-c.events:
		if !ok || ev.kind != "endpoint" {
			c.close()
			return nil, fmt.Errorf("GET %s: the event stream did not start with an endpoint event", u)
		}
		base, _ := url.Parse(u)
		ep, err := base.Parse(strings.TrimSpace(string(ev.data)))
		if err != nil {
			c.close()
			return nil, fmt.Errorf("the endpoint event: %v", err)
		}
		c.endpoint = ep.String()
	case <-ctx.Done():
		c.close()
		return nil, fmt.Errorf("GET %s: no endpoint event: %w", u, context.Cause(ctx))
	}
	return c, nil
}

// read turns the stream into events until it ends.
func (c *sseConn) read(body io.Reader) {
	defer close(c.events)
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64*1024), maxBody)
	var (
		ev      sseEvent
		hasData bool
	)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "": // an event ends; one without data is not dispatched
			if hasData {
				if ev.kind == "" {
					ev.kind = "message"
				}
				c.events <- ev
			}
			ev, hasData = sseEvent{}, false
		case strings.HasPrefix(line, "event:"):
			ev.kind = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			if hasData {
				ev.data = append(ev.data, '\n') // an event's data lines are joined by newlines
			}
			ev.data = append(ev.data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
			hasData = true
		}
	}
	c.err = sc.Err()
	if c.err == nil {
		c.err = errors.New("the server ended the event stream")
	}
}

func (c *sseConn) close() { c.body.Close() }

// request posts req and reads the stream until its answer, answering the server's questions
// and keeping its notifications meanwhile.
func (c *sseConn) request(ctx context.Context, id string, req []byte) (*rpcAnswer, error) {
	h, err := c.post(ctx, req)
	if err != nil {
		return nil, err
	}
	if h.status/100 != 2 {
		return &rpcAnswer{http: h}, nil
	}
	for {
		select {
		case ev, ok := <-c.events:
			if !ok {
				return nil, fmt.Errorf("waiting for the answer: %v", c.err)
			}
			if ev.kind != "message" {
				continue
			}
			m, err := serverMessage(ctx, ev.data, id, c.script, c.post)
			if err != nil {
				return nil, err
			}
			if m != nil {
				h.body = ev.data
				return &rpcAnswer{http: h, result: m.Result, err: m.Error}, nil
			}
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

func (c *sseConn) notify(ctx context.Context, msg []byte) error {
	h, err := c.post(ctx, msg)
	if err == nil && h.status/100 != 2 {
		err = fmt.Errorf("HTTP %d: %s", h.status, clip(string(h.body), 200))
	}
	return err
}

// The legacy transport has one session, its stream's, and no stateless revision.
func (c *sseConn) initialized(string, *rpcAnswer)   {}
func (c *sseConn) stateless(string, string, string) {}

// post sends one message to the endpoint.
func (c *sseConn) post(ctx context.Context, body []byte) (*httpAnswer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return answerOf(resp)
}

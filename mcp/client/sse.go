package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// legacySSE is the 2024-11-05 HTTP+SSE transport (mcp-protocol.md §7.3):
// a GET opens the event stream, whose first event names the endpoint to
// POST messages to; every answer comes back on the stream.
type legacySSE struct {
	hc       *http.Client
	headers  http.Header
	endpoint string
	cancel   context.CancelFunc
	read     chan struct{} // closed when the stream's reader returned
}

// openSSE opens the stream and waits, within ctx and Options.Timeout, for
// its endpoint event; then a goroutine reads the stream until it ends.
func openSSE(ctx context.Context, o Options, recv receiver, end func(error)) (conn, error) {
	streamCtx, cancel := context.WithCancel(context.Background())
	openCtx, stopOpen := context.WithTimeout(ctx, o.Timeout)
	defer stopOpen()
	stop := context.AfterFunc(openCtx, cancel)
	t := &legacySSE{hc: httpClient(o), headers: o.Headers, cancel: cancel, read: make(chan struct{})}
	fail := func(err error) (conn, error) {
		cancel()
		closeIdle(t.hc)
		if openCtx.Err() != nil {
			return nil, fmt.Errorf("GET %s: no endpoint event within %s: %w", o.URL, o.Timeout, openCtx.Err())
		}
		return nil, err
	}
	req, err := http.NewRequestWithContext(streamCtx, http.MethodGet, o.URL, nil)
	if err != nil {
		return fail(err)
	}
	t.header(req)
	req.Header.Set("Accept", mcp.ContentTypeSSE)
	resp, err := t.hc.Do(req)
	if err != nil {
		return fail(err)
	}
	if err := streamOpened(resp, o.MaxMessageBytes); err != nil {
		resp.Body.Close()
		return fail(err)
	}
	er := newEventReader(resp.Body, o.MaxMessageBytes)
	endpoint, err := endpointOf(er, resp.Request.URL)
	if err != nil || !stop() {
		resp.Body.Close()
		return fail(fmt.Errorf("GET %s: %w", o.URL, err))
	}
	t.endpoint = endpoint
	go t.readStream(resp.Body, er, recv, end, o)
	return t, nil
}

// streamOpened checks the GET's answer is an event stream.
func streamOpened(resp *http.Response, max int) error {
	if resp.StatusCode != http.StatusOK {
		return httpError(resp, max)
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != mcp.ContentTypeSSE {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, excerptBytes))
		return protocolErrorf("GET %s: the answer's Content-Type is %q, not %s: %q", resp.Request.URL,
			resp.Header.Get("Content-Type"), mcp.ContentTypeSSE, excerpt(body))
	}
	return nil
}

// endpointOf reads the stream's first event, which must be "endpoint",
// and resolves its URI against the stream's URL. It must stay on the
// stream's origin: the client's headers (credentials) go there.
func endpointOf(er *eventReader, base *url.URL) (string, error) {
	ev, err := er.next()
	if errors.Is(err, io.EOF) {
		return "", protocolErrorf("the event stream ended before its endpoint event")
	}
	if err != nil {
		return "", err
	}
	if ev.name != "endpoint" {
		return "", protocolErrorf("the event stream's first event is %q, not endpoint", ev.name)
	}
	ref, err := url.Parse(string(bytes.TrimSpace(ev.data)))
	if err != nil {
		return "", protocolErrorf("the endpoint event holds no URI: %q", excerpt(ev.data))
	}
	u := base.ResolveReference(ref)
	if u.Scheme != base.Scheme || u.Host != base.Host {
		return "", protocolErrorf("the endpoint %s is not on the stream's origin %s://%s", u, base.Scheme, base.Host)
	}
	return u.String(), nil
}

func (t *legacySSE) header(req *http.Request) {
	for k, v := range t.headers {
		req.Header[k] = v
	}
}

// readStream hands each message event to recv until the stream ends, then
// ends the client: the session lives as long as its stream.
func (t *legacySSE) readStream(body io.ReadCloser, er *eventReader, recv receiver, end func(error), o Options) {
	defer close(t.read)
	defer body.Close()
	for {
		ev, err := er.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the server closed the event stream")
			}
			end(fmt.Errorf("GET %s: %w", o.URL, err))
			return
		}
		if ev.name != "" && ev.name != "message" {
			continue
		}
		if _, err := deliver(ev.data, jsonrpc.ID{}, recv); err != nil {
			o.Logger.Warn("skipped an event of the stream", "url", o.URL, "err", err)
		}
	}
}

// send POSTs one message to the endpoint; its answer comes on the stream.
func (t *legacySSE) send(ctx context.Context, msg []byte, _ jsonrpc.ID) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.endpoint, bytes.NewReader(msg))
	if err != nil {
		return err
	}
	t.header(req)
	traceHeaders(ctx, req)
	req.Header.Set("Content-Type", mcp.ContentTypeJSON)
	resp, err := t.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return httpError(resp, excerptBytes)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, excerptBytes))
	return nil
}

// close ends the stream, which ends the session.
func (t *legacySSE) close(ctx context.Context) error {
	t.cancel()
	defer closeIdle(t.hc)
	select {
	case <-t.read:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

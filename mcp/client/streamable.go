package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// streamable is the Streamable HTTP transport (mcp-protocol.md §7.2): each
// message is a POST; a request's answer is a JSON body or an event stream
// that ends with it.
type streamable struct {
	url     string
	hc      *http.Client
	headers http.Header
	max     int
	recv    receiver

	mu      sync.Mutex
	session string // Mcp-Session-Id, from initialize's answer
	version string // sent as MCP-Protocol-Version once negotiated
	// stopListening ends the GET stream, listening is closed once it ended (listen.go).
	stopListening context.CancelFunc
	listening     chan struct{}
}

func newStreamable(o Options, recv receiver) *streamable {
	return &streamable{url: o.URL, hc: httpClient(o), headers: o.Headers, max: o.MaxMessageBytes, recv: recv}
}

// httpClient is Options.HTTPClient or a client with no overall timeout:
// each request is bounded by its context instead, since streams last.
func httpClient(o Options) *http.Client {
	if o.HTTPClient != nil {
		return o.HTTPClient
	}
	return &http.Client{Transport: &ownTransport{http.DefaultTransport.(*http.Transport).Clone()}}
}

// ownTransport marks a transport the client made, whose idle connections it
// closes when done; a caller's HTTPClient is left as it is.
type ownTransport struct{ *http.Transport }

// closeIdle closes the idle connections of a transport the client made.
func closeIdle(hc *http.Client) {
	if t, ok := hc.Transport.(*ownTransport); ok {
		t.CloseIdleConnections()
	}
}

func (s *streamable) setVersion(v string) {
	s.mu.Lock()
	s.version = v
	s.mu.Unlock()
}

// newRequest makes an HTTP request carrying the session's headers (none for
// an initialize, which opens a session); it returns the session id it sent.
func (s *streamable) newRequest(ctx context.Context, method string, body []byte) (*http.Request, string, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.url, r)
	if err != nil {
		return nil, "", err
	}
	for k, v := range s.headers {
		req.Header[k] = v
	}
	s.mu.Lock()
	session, version := s.session, s.version
	s.mu.Unlock()
	if opening(ctx) {
		session, version = "", ""
	}
	if session != "" {
		req.Header.Set(mcp.HeaderSessionID, session)
	}
	if version != "" {
		req.Header.Set(mcp.HeaderProtocolVersion, version)
	}
	traceHeaders(ctx, req)
	return req, session, nil
}

func (s *streamable) send(ctx context.Context, msg []byte, id jsonrpc.ID) error {
	req, session, err := s.newRequest(ctx, http.MethodPost, msg)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", mcp.ContentTypeJSON)
	req.Header.Set("Accept", mcp.ContentTypeJSON+", "+mcp.ContentTypeSSE)
	resp, err := s.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound && session != "":
		return errSessionExpired
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return httpError(resp, s.max)
	case id.IsZero():
		return nil
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		return protocolErrorf("POST %s: HTTP %d to a request: no answer", s.url, resp.StatusCode)
	}
	if opening(ctx) {
		// The session initialize's answer assigns (none: a stateless server)
		// replaces the one before, which requests keep using until now.
		s.mu.Lock()
		s.session, s.version = resp.Header.Get(mcp.HeaderSessionID), ""
		s.mu.Unlock()
	}
	return s.answer(resp, id)
}

type openingKey struct{}

// withOpening marks the context of an initialize: it goes without the
// session's headers, and its answer names the session from then on.
func withOpening(ctx context.Context) context.Context {
	return context.WithValue(ctx, openingKey{}, true)
}

func opening(ctx context.Context) bool { return ctx.Value(openingKey{}) != nil }

// answer reads a request's answer: a JSON body, or events until the one
// answering id.
func (s *streamable) answer(resp *http.Response, id jsonrpc.ID) error {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case mcp.ContentTypeJSON:
		body, err := readLimited(resp.Body, s.max)
		if err != nil {
			return fmt.Errorf("POST %s: %w", s.url, err)
		}
		answered, err := deliver(body, id, s.recv)
		if err != nil {
			return fmt.Errorf("POST %s: %w", s.url, err)
		}
		if !answered {
			return protocolErrorf("POST %s: the answer holds no response to request %s: %q", s.url, id, excerpt(body))
		}
		return nil
	case mcp.ContentTypeSSE:
		return s.events(resp.Body, id)
	}
	body, _ := readLimited(resp.Body, excerptBytes)
	return protocolErrorf("POST %s: the answer's Content-Type is %q, not %s or %s: %q", s.url,
		resp.Header.Get("Content-Type"), mcp.ContentTypeJSON, mcp.ContentTypeSSE, excerpt(body))
}

// events reads a POST's event stream until the response to id.
func (s *streamable) events(body io.Reader, id jsonrpc.ID) error {
	er := newEventReader(body, s.max)
	for {
		ev, err := er.next()
		if errors.Is(err, io.EOF) {
			return protocolErrorf("POST %s: the event stream ended before the response to request %s", s.url, id)
		}
		if err != nil {
			return fmt.Errorf("POST %s: %w", s.url, err)
		}
		if ev.name != "" && ev.name != "message" {
			continue
		}
		answered, err := deliver(ev.data, id, s.recv)
		if err != nil {
			return fmt.Errorf("POST %s: %w", s.url, err)
		}
		if answered {
			return nil
		}
	}
}

// close deletes the session, as the client is done with it; a server that
// does not let clients end sessions (405) is fine.
func (s *streamable) close(ctx context.Context) error {
	defer closeIdle(s.hc)
	s.mu.Lock()
	session, stop, listening := s.session, s.stopListening, s.listening
	s.mu.Unlock()
	if stop != nil {
		stop()
		<-listening
	}
	if session == "" {
		return nil
	}
	req, _, err := s.newRequest(ctx, http.MethodDelete, nil)
	if err != nil {
		return err
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return fmt.Errorf("DELETE %s: %w", s.url, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode <= 299,
		resp.StatusCode == http.StatusNotFound, resp.StatusCode == http.StatusMethodNotAllowed:
		return nil
	}
	return httpError(resp, s.max)
}

// receiver takes one message the server sent, and on: the request whose stream carried it
// (a POST's event stream), zero where a stream carries no one request's messages (stdio, the
// legacy event stream, the GET stream).
type receiver func(m jsonrpc.Message, on jsonrpc.ID)

// deliver decodes a body or event of JSON-RPC messages and hands each to
// recv; answered says whether one was the response to id, the request whose answer (or
// stream) body is, zero for none.
func deliver(body []byte, id jsonrpc.ID, recv receiver) (answered bool, err error) {
	msgs, _, perr := jsonrpc.Decode(body)
	if perr != nil {
		return false, protocolErrorf("the answer is not JSON-RPC (%s): %q", perr.Message, excerpt(body))
	}
	for _, m := range msgs {
		if m.Kind == jsonrpc.KindInvalid && !id.IsZero() && m.ID == id {
			return false, protocolErrorf("the response to request %s is not valid JSON-RPC (%s)", id, m.Error.Message)
		}
		if m.Kind == jsonrpc.KindResponse && !id.IsZero() && m.ID == id {
			answered = true
		}
		recv(m, id)
	}
	return answered, nil
}

// readLimited reads all of r, failing past max bytes.
func readLimited(r io.Reader, max int) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > max {
		return nil, protocolErrorf("the answer is over %d bytes", max)
	}
	return b, nil
}

// httpError describes an answer with an unusable status, quoting its body
// and the JSON-RPC error in it, if any.
func httpError(resp *http.Response, max int) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, int64(min(max, 64<<10))))
	e := &HTTPError{Method: resp.Request.Method, URL: resp.Request.URL.String(), Status: resp.StatusCode,
		Body: excerpt(bytes.TrimSpace(body))}
	if msgs, _, perr := jsonrpc.Decode(body); perr == nil && len(msgs) == 1 && msgs[0].Kind == jsonrpc.KindResponse {
		e.RPC = msgs[0].Error
	}
	return e
}

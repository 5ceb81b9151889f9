package session

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/mcptest"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/stream"
)

// leakCheck fails the test if it leaves goroutines behind. Register it
// first: cleanups run last-registered first, so it runs after the rest.
func leakCheck(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

// statefulTools adds the tools that need a session to the plain test tools.
type statefulTools struct {
	*mcptest.Tools
	started   chan jsonrpc.ID // "block" reports its request id here
	cancelled chan struct{}   // "block" reports its cancellation here
	asked     chan error      // "elicit" reports the error of its question
	gate      chan struct{}   // "gated" waits for it
}

func (p *statefulTools) ListTools(ctx context.Context, rc *mcp.RequestContext, cursor string) ([]mcp.Tool, string, error) {
	tools, next, err := p.Tools.ListTools(ctx, rc, cursor)
	for _, n := range []string{"progress", "log", "elicit", "block", "gated", "session"} {
		tools = append(tools, mcp.Tool{Name: n, Description: "Front " + n + "."})
	}
	return tools, next, err
}

func (p *statefulTools) CallTool(ctx context.Context, rc *mcp.RequestContext, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	text := func(s string) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(s)}}, nil
	}
	switch name {
	case "progress":
		for i := 1; i <= 3; i++ {
			if err := rc.Progress(ctx, float64(i), 3, "step "+strconv.Itoa(i)); err != nil {
				return nil, err
			}
		}
		return text("progressed")
	case "log":
		for _, l := range []string{"debug", "info", "warning", "error"} {
			_ = rc.Log(ctx, l, "test", l+" message")
		}
		return text("logged")
	case "elicit":
		ans, err := rc.Request(ctx, "elicitation/create", map[string]any{
			"message": "Who are you?", "requestedSchema": map[string]any{"type": "object",
				"properties": map[string]any{"name": map[string]any{"type": "string"}}}})
		if p.asked != nil {
			p.asked <- err
		}
		if err != nil {
			return mcp.ToolError("could not ask: " + err.Error()), nil
		}
		return text("answer: " + string(ans))
	case "block":
		p.started <- rc.RequestID
		<-ctx.Done()
		p.cancelled <- struct{}{}
		return text("too late")
	case "gated":
		select {
		case <-p.gate:
		case <-ctx.Done():
		}
		return text("opened")
	case "flood": // logs 64 KiB messages until cancelled (not listed)
		for ctx.Err() == nil {
			_ = rc.Log(ctx, "info", "flood", strings.Repeat("x", 64<<10))
		}
		p.cancelled <- struct{}{}
		return text("flooded")
	case "session":
		s := rc.Session.(*Session)
		return text(fmt.Sprintf("%s %s %s elicitation=%v", s.Transport(), s.Version(), s.ClientInfo().Name,
			s.HasClientCapability("elicitation")))
	}
	return p.Tools.CallTool(ctx, rc, name, args)
}

// newStatefulServer is a server configured the way mcp-mock is.
func newStatefulServer(t testing.TB) (*mcp.Server, *statefulTools) {
	tools := &statefulTools{Tools: mcptest.NewTools(t), started: make(chan jsonrpc.ID, 4),
		cancelled: make(chan struct{}, 4), gate: make(chan struct{})}
	s := &mcp.Server{
		Info:         mcp.Implementation{Name: "mock", Version: "1.0.0"},
		Versions:     mcp.MockVersions,
		Tools:        tools,
		Resources:    mcptest.NewResources(t),
		Prompts:      mcptest.Prompts{},
		Capabilities: mcp.Capabilities{ToolsListChanged: true, ResourcesListChanged: true},
	}
	mcp.SessionFeatures{Logging: true, Subscriptions: true, Completions: true}.Apply(s)
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	return s, tools
}

// front is the tiny net/http adapter a connector would be: it copies the
// request into an HTTPRequest and writes the StreamReply, SSE included.
type front struct {
	st     *Front
	srv    *httptest.Server
	client *http.Client
}

func newFront(t *testing.T, st *Front) *front {
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeReply(w, r, st.ServeStreamable(r.Context(), toRequest(r)))
	})
	mux.HandleFunc("/sse", func(w http.ResponseWriter, r *http.Request) {
		writeReply(w, r, st.ServeSSE(r.Context(), toRequest(r), "/messages"))
	})
	mux.HandleFunc("/messages", func(w http.ResponseWriter, r *http.Request) {
		writeReply(w, r, st.ServeMessages(r.Context(), toRequest(r)))
	})
	f := &front{st: st, srv: httptest.NewServer(mux), client: &http.Client{Transport: &http.Transport{}}}
	t.Cleanup(func() {
		st.Close()
		f.client.CloseIdleConnections()
		f.srv.Close()
	})
	return f
}

func toRequest(r *http.Request) mcp.HTTPRequest {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	return mcp.HTTPRequest{Method: r.Method, Header: r.Header, Body: body, Query: r.URL.Query()}
}

func writeReply(w http.ResponseWriter, r *http.Request, rep StreamReply) {
	for k, v := range rep.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(rep.Status)
	if rep.Stream == nil {
		_, _ = w.Write(rep.Body)
		return
	}
	defer rep.Stream.Close()
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	for {
		ev, err := rep.Stream.Next(r.Context())
		if err != nil {
			return
		}
		if _, err := w.Write(appendSSE(nil, ev)); err != nil {
			return
		}
		if rc.Flush() != nil {
			return
		}
	}
}

func appendSSE(b []byte, ev stream.Event) []byte {
	if ev.ID != "" {
		b = append(b, "id: "+ev.ID+"\n"...)
	}
	if ev.Name != "" {
		b = append(b, "event: "+ev.Name+"\n"...)
	}
	if ev.Retry > 0 {
		b = append(b, "retry: "+strconv.Itoa(ev.Retry)+"\n"...)
	}
	for l := range strings.SplitSeq(string(ev.Data), "\n") {
		b = append(b, "data: "+l+"\n"...)
	}
	return append(b, '\n')
}

// sseEvent is one event as a client parses it.
type sseEvent struct {
	id, name, data string
	retry          int
}

// events parses an event stream until it ends; the channel then closes.
func events(body io.ReadCloser) <-chan sseEvent {
	ch := make(chan sseEvent, 64)
	go func() {
		defer close(ch)
		defer body.Close()
		r := bufio.NewReader(body)
		var ev sseEvent
		var data []string
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				return
			}
			l = strings.TrimRight(l, "\r\n")
			if l == "" {
				ev.data = strings.Join(data, "\n")
				ch <- ev
				ev, data = sseEvent{}, nil
				continue
			}
			k, v, _ := strings.Cut(l, ":")
			v = strings.TrimPrefix(v, " ")
			switch k {
			case "id":
				ev.id = v
			case "event":
				ev.name = v
			case "retry":
				ev.retry, _ = strconv.Atoi(v)
			case "data":
				data = append(data, v)
			}
		}
	}()
	return ch
}

// within returns the next event, or fails after a while.
func within(t *testing.T, ch <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("the stream ended early")
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5s")
	}
	return sseEvent{}
}

// quiet checks that nothing arrives for a short while.
func quiet(t *testing.T, ch <-chan sseEvent) {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if ok {
			t.Fatalf("unexpected event %+v", ev)
		}
	case <-time.After(100 * time.Millisecond):
	}
}

// ended checks that the stream ends.
func ended(t *testing.T, ch <-chan sseEvent) {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if ok {
			t.Fatalf("expected the end of the stream, got %+v", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream did not end")
	}
}

// do sends a request; header is key, value pairs.
func (f *front) do(t *testing.T, method, path, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			req.Header.Del(header[i])
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := f.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// client is a raw Streamable HTTP session.
type client struct {
	f       *front
	id      string
	version string
}

const initBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,` +
	`"capabilities":%s,"clientInfo":{"name":"raw","version":"1"}}}`

// open initializes a session at version with the given client capabilities.
func (f *front) open(t *testing.T, version, caps string) *client {
	t.Helper()
	resp := f.do(t, http.MethodPost, "/mcp", fmt.Sprintf(initBody, version, caps))
	body := readAll(t, resp)
	id := resp.Header.Get(mcp.HeaderSessionID)
	if resp.StatusCode != 200 || id == "" {
		t.Fatalf("initialize: %d %q %s", resp.StatusCode, id, body)
	}
	c := &client{f: f, id: id, version: version}
	if r := c.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.StatusCode != 202 {
		t.Fatalf("initialized: %d", r.StatusCode)
	}
	return c
}

func (c *client) post(t *testing.T, body string, header ...string) *http.Response {
	t.Helper()
	h := append([]string{mcp.HeaderSessionID, c.id, mcp.HeaderProtocolVersion, c.version}, header...)
	return c.f.do(t, http.MethodPost, "/mcp", body, h...)
}

// call posts a request and returns the whole answer body.
func (c *client) call(t *testing.T, body string, header ...string) (int, string) {
	t.Helper()
	resp := c.post(t, body, header...)
	return resp.StatusCode, readAll(t, resp)
}

// stream opens the session's GET stream.
func (c *client) stream(t *testing.T) <-chan sseEvent {
	t.Helper()
	resp := c.f.do(t, http.MethodGet, "/mcp", "", "Accept", "text/event-stream", mcp.HeaderSessionID, c.id,
		mcp.HeaderProtocolVersion, c.version)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %d %s", resp.StatusCode, readAll(t, resp))
	}
	return events(resp.Body)
}

// recorder of traffic events, safe for concurrent use.
type trafficLog struct {
	mu  sync.Mutex
	evs []TrafficEvent
}

func (l *trafficLog) add(ev TrafficEvent) {
	l.mu.Lock()
	l.evs = append(l.evs, ev)
	l.mu.Unlock()
}

func (l *trafficLog) summaries() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.evs))
	for _, ev := range l.evs {
		out = append(out, string(ev.Direction)+" "+ev.Summary)
	}
	return out
}

// waitFor polls cond for a while.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

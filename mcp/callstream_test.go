package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/mcptest"
	"github.com/octo-run/octo/mcp/stream"
)

// waitTools has one tool, "wait", which reports progress, then waits until its call is
// cancelled and says so on ended.
type waitTools struct{ started, ended chan struct{} }

func (waitTools) ListTools(context.Context, *mcp.RequestContext, string) ([]mcp.Tool, string, error) {
	return []mcp.Tool{{Name: "wait"}}, "", nil
}

func (w waitTools) CallTool(ctx context.Context, rc *mcp.RequestContext, _ string, _ json.RawMessage) (*mcp.CallToolResult, error) {
	_ = rc.Progress(ctx, 1, 0, "waiting")
	close(w.started)
	<-ctx.Done()
	close(w.ended)
	return nil, ctx.Err()
}

func streamPost(body, accept string) mcp.HTTPRequest {
	return mcp.HTTPRequest{Method: http.MethodPost, Header: http.Header{"Accept": {accept}}, Body: []byte(body)}
}

// streamData reads a stream to its end, bounded in time.
func streamData(t *testing.T, s stream.Stream) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	defer s.Close()
	var out []string
	for {
		ev, err := s.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("after %q: %v", out, err)
		}
		out = append(out, string(ev.Data))
	}
}

func TestAToolsCallWithAProgressTokenIsAnsweredAsAStream(t *testing.T) {
	s := mcptest.RouterServer(t)
	const call = `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"whoami","_meta":{"progressToken":"p-1"}}}`
	t.Run("progress comes first, then the result, then the stream ends", func(t *testing.T) {
		resp := s.ServeStateless(context.Background(), streamPost(call, "application/json, text/event-stream"))
		if resp.Stream == nil || resp.ContentType != mcp.ContentTypeSSE || resp.Status != http.StatusOK || resp.Body != nil {
			t.Fatalf("not a stream: %d %q %s", resp.Status, resp.ContentType, resp.Body)
		}
		got := streamData(t, resp.Stream)
		want := []string{
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-1","progress":1,"total":2,"message":"halfway"}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"sub=<nil> version=2025-03-26 token=\"p-1\" id=4"}]}}`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
	plain := []struct{ name, body, accept string }{
		{"without a progress token", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"whoami"}}`, "application/json, text/event-stream"},
		{"when Accept does not name text/event-stream", call, "application/json"},
		{"when Accept only has a wildcard, as curl sends", call, "*/*"},
		{"when Accept refuses text/event-stream", call, "application/json, text/event-stream;q=0"},
		{"for a method other than tools/call", `{"jsonrpc":"2.0","id":4,"method":"ping","params":{"_meta":{"progressToken":"p-1"}}}`, "text/event-stream"},
	}
	for _, tc := range plain {
		t.Run("the answer stays one JSON body "+tc.name, func(t *testing.T) {
			resp := s.ServeStateless(context.Background(), streamPost(tc.body, tc.accept))
			if resp.Stream != nil || resp.ContentType != mcp.ContentTypeJSON || !strings.HasPrefix(string(resp.Body), `{"jsonrpc":"2.0","id":4,"result":`) {
				t.Fatalf("%d %q %s (stream %v)", resp.Status, resp.ContentType, resp.Body, resp.Stream != nil)
			}
		})
	}
}

func TestAStreamedCallEndsWhenItsReaderGoes(t *testing.T) {
	w := waitTools{started: make(chan struct{}), ended: make(chan struct{})}
	s := &mcp.Server{Info: mcp.Implementation{Name: "t", Version: "1"}, Versions: mcp.RouterVersions, Tools: w}
	resp := s.ServeStateless(context.Background(), streamPost(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","_meta":{"progressToken":1}}}`, "text/event-stream"))
	if resp.Stream == nil {
		t.Fatalf("not a stream: %s", resp.Body)
	}
	ev, err := resp.Stream.Next(context.Background())
	if err != nil || !strings.Contains(string(ev.Data), `"notifications/progress"`) {
		t.Fatalf("%s %v", ev.Data, err)
	}
	<-w.started
	resp.Stream.Close() // the client left
	select {
	case <-w.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the call still runs after its reader went")
	}
}

func TestAStreamedCallEndsWithItsRequest(t *testing.T) {
	w := waitTools{started: make(chan struct{}), ended: make(chan struct{})}
	s := &mcp.Server{Info: mcp.Implementation{Name: "t", Version: "1"}, Versions: mcp.RouterVersions, Tools: w}
	ctx, cancel := context.WithCancel(context.Background())
	resp := s.ServeStateless(ctx, streamPost(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","_meta":{"progressToken":1}}}`, "text/event-stream"))
	<-w.started
	cancel() // the connection closed
	<-w.ended
	got := streamData(t, resp.Stream)
	if len(got) != 2 || !strings.Contains(got[1], `"id":1,"error"`) {
		t.Fatalf("events: %q", got)
	}
}

// A server that stops cancels a streamed call with its ShutdownCause: the call is answered so,
// as the last event, rather than taken for one whose client left.
func TestAStreamedCallStoppedByShutdownIsAnsweredSo(t *testing.T) {
	stopping := errors.New("stopping")
	w := waitTools{started: make(chan struct{}), ended: make(chan struct{})}
	s := &mcp.Server{Info: mcp.Implementation{Name: "t", Version: "1"}, Versions: mcp.RouterVersions, Tools: w, ShutdownCause: stopping}
	ctx, cancel := context.WithCancelCause(context.Background())
	resp := s.ServeStateless(ctx, streamPost(
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"wait","_meta":{"progressToken":1}}}`, "text/event-stream"))
	<-w.started
	cancel(stopping)
	got := streamData(t, resp.Stream)
	want := `{"jsonrpc":"2.0","id":"x","error":{"code":-32603,"message":"Internal error: the server is shutting down"}}`
	if len(got) != 2 || got[1] != want {
		t.Fatalf("events: %q", got)
	}
}

// floodTools has one tool, "flood", which reports progress with a large message as fast as it
// may, until its call ends.
type floodTools struct{ ended chan struct{} }

func (floodTools) ListTools(context.Context, *mcp.RequestContext, string) ([]mcp.Tool, string, error) {
	return []mcp.Tool{{Name: "flood"}}, "", nil
}

func (f floodTools) CallTool(ctx context.Context, rc *mcp.RequestContext, _ string, _ json.RawMessage) (*mcp.CallToolResult, error) {
	defer close(f.ended)
	big := strings.Repeat("x", 8<<10)
	for i := 1; ctx.Err() == nil && i <= 10_000; i++ { // 80 MB, were nothing held back
		if rc.Progress(ctx, float64(i), 0, big) != nil {
			break
		}
	}
	return nil, ctx.Err()
}

// A client that asks for progress and never reads holds at most the queue's bound: the tool
// is held back rather than buffered without end, and once the client goes the call ends.
func TestAStreamedCallToAClientThatNeverReadsIsBounded(t *testing.T) {
	f := floodTools{ended: make(chan struct{})}
	s := &mcp.Server{Info: mcp.Implementation{Name: "t", Version: "1"}, Versions: mcp.RouterVersions, Tools: f}
	resp := s.ServeStateless(context.Background(), streamPost(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"flood","_meta":{"progressToken":1}}}`, "text/event-stream"))
	q, ok := resp.Stream.(*stream.Queue)
	if !ok {
		t.Fatalf("not a queued stream: %T %s", resp.Stream, resp.Body)
	}
	// The tool fills the queue, then waits for room that never comes.
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		held, full := q.Held()
		if held > stream.MaxBytes+16<<10 {
			t.Fatalf("the queue holds %d bytes, over its bound of %d", held, stream.MaxBytes)
		}
		if full {
			break
		}
		select {
		case <-tick.C:
		case <-f.ended:
			t.Fatal("the tool sent everything to a client that reads nothing")
		case <-deadline:
			t.Fatal("the tool was never held back")
		}
	}
	resp.Stream.Close() // the client leaves
	select {
	case <-f.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the call still runs after its reader went")
	}
}

// logTool logs one line and answers.
type logTool struct{}

func (logTool) ListTools(context.Context, *mcp.RequestContext, string) ([]mcp.Tool, string, error) {
	return []mcp.Tool{{Name: "log"}}, "", nil
}

func (logTool) CallTool(ctx context.Context, rc *mcp.RequestContext, _ string, _ json.RawMessage) (*mcp.CallToolResult, error) {
	_ = rc.Log(ctx, "warning", "", "disk almost full")
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("done")}}, nil
}

// Logs reach a stateless call that can take a stream without a progress token: any call of a
// server that sends logs, or a 2026-07-28 call that names a log level; the answer is then a
// stream whose log line comes before the result.
func TestLogsReachAStatelessCallWithoutAProgressToken(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"log"}}`
	logging := &mcp.Server{Info: mcp.Implementation{Name: "l", Version: "1"}, Versions: mcp.RouterVersions, Tools: logTool{},
		Capabilities: mcp.Capabilities{Logging: true}, Handlers: map[string]mcp.HandlerFunc{"logging/setLevel": mcp.HandleSetLevelAnywhere},
		StreamCalls: true}
	quiet := &mcp.Server{Info: mcp.Implementation{Name: "q", Version: "1"}, Versions: mcp.RouterVersions, Tools: logTool{}}
	for _, s := range []*mcp.Server{logging, quiet} {
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
	}
	resp := logging.ServeStateless(context.Background(), streamPost(call, "application/json, text/event-stream"))
	if resp.Stream == nil {
		t.Fatalf("a server that sends logs answered %s", resp.Body)
	}
	if got := streamData(t, resp.Stream); len(got) != 2 || !strings.Contains(got[0], `"method":"notifications/message"`) || !strings.Contains(got[1], `"result"`) {
		t.Fatalf("events: %q", got)
	}
	if resp := quiet.ServeStateless(context.Background(), streamPost(call, "application/json, text/event-stream")); resp.Stream != nil {
		t.Fatal("a server that sends no logs streamed a call that asked for nothing")
	}
	// On 2026-07-28 only a request naming a log level hears logs: StreamCalls does not stream
	// one that names none (its errors keep their HTTP status).
	plain := mcptest.ModernPost("tools/call", `{"name":"log"}`, "{}")
	plain.Header.Set("Accept", "application/json, text/event-stream")
	if resp := logging.ServeStateless(context.Background(), plain); resp.Stream != nil {
		t.Fatal("a 2026-07-28 call that named no log level was streamed")
	}
	modern := mcptest.ModernPost("tools/call", `{"name":"log"}`, "{}")
	modern.Body = []byte(strings.Replace(string(modern.Body), `"_meta":{`, `"_meta":{"io.modelcontextprotocol/logLevel":"info",`, 1))
	modern.Header.Set("Accept", "application/json, text/event-stream")
	resp = quiet.ServeStateless(context.Background(), modern)
	if resp.Stream == nil {
		t.Fatalf("a 2026-07-28 call naming a log level answered %d %s", resp.Status, resp.Body)
	}
	if got := streamData(t, resp.Stream); len(got) != 2 || !strings.Contains(got[0], `disk almost full`) {
		t.Fatalf("events: %q", got)
	}
}

// askTool asks its client a question over the call and answers with what it said.
type askTool struct{}

func (askTool) ListTools(context.Context, *mcp.RequestContext, string) ([]mcp.Tool, string, error) {
	return []mcp.Tool{{Name: "ask"}}, "", nil
}

func (askTool) CallTool(ctx context.Context, rc *mcp.RequestContext, _ string, _ json.RawMessage) (*mcp.CallToolResult, error) {
	reply, err := rc.Request(ctx, "elicitation/create", map[string]any{"message": "Sure?"})
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(string(reply))}}, nil
}

// A stateless streamed call asks its client on its stream with an id of its own; the client's
// response POSTed alone finds it, while a response with another id (another client's guess)
// is accepted, dropped, and completes nothing.
func TestAStatelessStreamedCallAsksItsClient(t *testing.T) {
	s := &mcp.Server{Info: mcp.Implementation{Name: "a", Version: "1"}, Versions: mcp.RouterVersions, Tools: askTool{}, StreamCalls: true}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	resp := s.ServeStateless(t.Context(), streamPost(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask"}}`, "application/json, text/event-stream"))
	if resp.Stream == nil {
		t.Fatalf("not streamed: %s", resp.Body)
	}
	defer resp.Stream.Close()
	ev, err := resp.Stream.Next(t.Context())
	var q struct {
		ID     string `json:"id"`
		Method string `json:"method"`
	}
	if err != nil || json.Unmarshal(ev.Data, &q) != nil || q.Method != "elicitation/create" || !strings.HasPrefix(q.ID, "octo-ask-") || len(q.ID) < 30 {
		t.Fatalf("question %s %v", ev.Data, err)
	}
	for _, id := range []string{"octo-ask-AAAAAAAAAAAAAAAAAAAAAAAAAA", q.ID} {
		answer := `{"jsonrpc":"2.0","id":"` + id + `","result":{"action":"accept","content":{"by":"` + id + `"}}}`
		if r := s.ServeStateless(t.Context(), streamPost(answer, "application/json")); r.Status != http.StatusAccepted {
			t.Fatalf("answer: %d %s", r.Status, r.Body)
		}
	}
	if got := streamData(t, resp.Stream); len(got) != 1 || !strings.Contains(got[0], `by\":\"`+q.ID) {
		t.Fatalf("result: %q", got)
	}
}

package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/octo-run/octo/mcp"
)

// errTestShutdown stands for the runtime's ErrShuttingDown, the cause a
// stopping connector cancels a request's context with.
var errTestShutdown = errors.New("shutting down")

// waitingTools has one tool, "wait", that runs until its context ends and
// returns its error, as a router branch with a delay block does.
type waitingTools struct{ started chan struct{} }

func (w waitingTools) ListTools(context.Context, *mcp.RequestContext, string) ([]mcp.Tool, string, error) {
	return []mcp.Tool{{Name: "wait"}}, "", nil
}

func (w waitingTools) CallTool(ctx context.Context, _ *mcp.RequestContext, _ string, _ json.RawMessage) (*mcp.CallToolResult, error) {
	select {
	case w.started <- struct{}{}:
		<-ctx.Done()
	case <-ctx.Done(): // a later call of a batch
	}
	return nil, ctx.Err()
}

// cancelWhenStarted cancels ctx with cause once started has heard n times.
func cancelWhenStarted(started <-chan struct{}, n int, cause error) context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		for range n {
			<-started
		}
		cancel(cause)
	}()
	return ctx
}

func TestAStatelessCallStoppedForShutdownIsAnsweredSo(t *testing.T) {
	tools := waitingTools{started: make(chan struct{})}
	s := &mcp.Server{Info: mcp.Implementation{Name: "router", Version: "1"}, Versions: mcp.RouterVersions, Tools: tools,
		ShutdownCause: errTestShutdown}
	call := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"wait"}}`, id)
	}
	tests := []struct {
		name, body string
		calls      int
		cause      error
		want       string
	}{
		{"one call gets the shutdown error", call(1), 1, errTestShutdown, `{"jsonrpc":"2.0","id":1,` + stopped},
		{"each call of a batch gets it", "[" + call(1) + "," + call(2) + "]", 1, errTestShutdown,
			`[{"jsonrpc":"2.0","id":1,` + stopped + `,{"jsonrpc":"2.0","id":2,` + stopped + `]`},
		{"a call whose client left is not taken for one", call(3), 1, context.Canceled,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error: context canceled"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := cancelWhenStarted(tools.started, tt.calls, tt.cause)
			out := s.ServeStateless(ctx, mcp.HTTPRequest{Method: http.MethodPost, Body: []byte(tt.body)})
			if out.Status != 200 || string(out.Body) != tt.want {
				t.Fatalf("got %d %s\nwant 200 %s", out.Status, out.Body, tt.want)
			}
		})
	}
}

func TestAStatefulPlainAnswerStoppedForShutdownIsAnsweredSo(t *testing.T) {
	leakCheck(t)
	s, tools := newStatefulServer(t)
	s.ShutdownCause = errTestShutdown
	st := New(s, Options{AllowBatch: true})
	defer st.Close()
	sid := post(st, "", "application/json", fmt.Sprintf(initBody, "2025-03-26", "{}")).Header.Get(mcp.HeaderSessionID)
	serve := func(ctx context.Context, body string) StreamReply {
		h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}, mcp.HeaderSessionID: {sid}, mcp.HeaderProtocolVersion: {"2025-03-26"}}
		return st.ServeStreamable(ctx, mcp.HTTPRequest{Method: http.MethodPost, Header: h, Body: []byte(body)})
	}
	started := make(chan struct{})
	go func() {
		for range tools.started {
			started <- struct{}{}
		}
	}()
	defer close(tools.started)
	t.Run("each call of a batch gets the shutdown error", func(t *testing.T) {
		r := serve(cancelWhenStarted(started, 2, errTestShutdown),
			`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block"}}]`)
		want := `[{"jsonrpc":"2.0","id":1,` + stopped + `,{"jsonrpc":"2.0","id":2,` + stopped + `]`
		if r.Status != 200 || string(r.Body) != want {
			t.Fatalf("got %d %s\nwant 200 %s", r.Status, r.Body, want)
		}
	})
	t.Run("a call whose client left is abandoned", func(t *testing.T) {
		r := serve(cancelWhenStarted(started, 1, context.Canceled), `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"block"}}`)
		want := `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: the request was abandoned"}}`
		if r.Status != 503 || string(r.Body) != want {
			t.Fatalf("got %d %s\nwant 503 %s", r.Status, r.Body, want)
		}
	})
}

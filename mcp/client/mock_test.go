package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/client"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// exercise runs what every transport must do against the mock.
func exercise(t *testing.T, c *client.Client, log *runtimetest.Buffer) {
	ctx := testCtx(t)
	t.Run("initialize names the server and its instructions", func(t *testing.T) {
		init := c.InitializeResult()
		if init.ServerInfo.Name != "Weather mock" || init.Instructions == "" || init.Capabilities.Tools == nil ||
			init.ProtocolVersion != mcp.Version20251125 {
			t.Fatalf("%+v", init)
		}
	})
	t.Run("ping answers", func(t *testing.T) {
		if err := c.Ping(ctx); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("tools are listed", func(t *testing.T) {
		tools, err := c.ListTools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range tools {
			names = append(names, tl.Name)
		}
		if !slices.Contains(names, "get_weather") || len(names) != 6 {
			t.Fatalf("tools: %v", names)
		}
	})
	t.Run("a tool call answers with its text", func(t *testing.T) {
		res, err := c.CallTool(ctx, "get_weather", json.RawMessage(`{"city":"Oslo"}`), client.CallOptions{})
		if err != nil || res.IsError || res.Content[0].Text != `{"city": "Oslo", "forecast": "sunny"}` {
			t.Fatalf("%+v %v", res, err)
		}
	})
	t.Run("structured content comes as JSON text", func(t *testing.T) {
		res, err := c.CallTool(ctx, "structured", nil, client.CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if raw, ok := res.StructuredContent.(json.RawMessage); !ok || string(raw) != `{"n":7}` {
			t.Fatalf("structuredContent = %#v", res.StructuredContent)
		}
	})
	t.Run("a failed tool is an isError result, not an error", func(t *testing.T) {
		res, err := c.CallTool(ctx, "broken", nil, client.CallOptions{})
		if err != nil || !res.IsError || res.Content[0].Text != "the upstream is down" {
			t.Fatalf("%+v %v", res, err)
		}
	})
	t.Run("an unknown tool is a typed JSON-RPC error", func(t *testing.T) {
		_, err := c.CallTool(ctx, "nope", nil, client.CallOptions{})
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(err.Error(), "tools/call: ") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("progress reaches the callback", func(t *testing.T) {
		var (
			mu  sync.Mutex
			got []client.Progress
		)
		res, err := c.CallTool(ctx, "report", nil, client.CallOptions{Progress: func(p client.Progress) {
			mu.Lock()
			got = append(got, p)
			mu.Unlock()
		}})
		if err != nil || res.Content[0].Text != "reported" {
			t.Fatalf("%+v %v", res, err)
		}
		mu.Lock()
		defer mu.Unlock()
		want := []client.Progress{{Progress: 1, Total: 2, Message: "first half"}, {Progress: 2, Total: 2, Message: "second half"}}
		if !slices.Equal(got, want) {
			t.Fatalf("progress = %+v", got)
		}
	})
	t.Run("the client declares no elicitation, so the mock does not ask", func(t *testing.T) {
		res, err := c.CallTool(ctx, "ask_user", nil, client.CallOptions{})
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].Text, "did not declare") {
			t.Fatalf("%+v %v", res, err)
		}
	})
	t.Run("resources and templates are listed and read", func(t *testing.T) {
		rs, err := c.ListResources(ctx)
		if err != nil || len(rs) != 1 || rs[0].URI != "docs://readme" {
			t.Fatalf("%+v %v", rs, err)
		}
		ts, err := c.ListResourceTemplates(ctx)
		if err != nil || len(ts) != 1 || ts[0].URITemplate != "stations://{name}" {
			t.Fatalf("%+v %v", ts, err)
		}
		contents, err := c.ReadResource(ctx, "stations://Bergen")
		if err != nil || contents[0].Text != "Station Bergen" {
			t.Fatalf("%+v %v", contents, err)
		}
		_, err = c.ReadResource(ctx, "nowhere://x")
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeResourceNotFound {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("prompts are listed and got", func(t *testing.T) {
		ps, err := c.ListPrompts(ctx)
		if err != nil || len(ps) != 1 || ps[0].Name != "plan_trip" {
			t.Fatalf("%+v %v", ps, err)
		}
		p, err := c.GetPrompt(ctx, "plan_trip", map[string]string{"city": "Bergen"})
		if err != nil || p.Messages[0].Content.Text != "Plan a day in Bergen." {
			t.Fatalf("%+v %v", p, err)
		}
	})
	t.Run("cancelling a call ends it at once", func(t *testing.T) {
		cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.CallTool(cctx, "slow", nil, client.CallOptions{})
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second ||
			strings.Contains(err.Error(), "client's timeout") {
			t.Fatalf("err = %v after %s", err, time.Since(start))
		}
		log.WaitFor(t, "msg=notifications/cancelled")
		if err := c.Ping(ctx); err != nil {
			t.Fatalf("the session is gone after a cancel: %v", err)
		}
	})
}

func TestStreamableHTTP(t *testing.T) {
	base, log := startMock(t)
	c := dial(t, client.Options{URL: base + "/mcp", Transport: client.TransportStreamable})
	exercise(t, c, log)
	if err := c.Close(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	log.WaitFor(t, "reason=deleted")
}

func TestAutoOnAStreamableEndpoint(t *testing.T) {
	base, log := startMock(t)
	c := dial(t, client.Options{URL: base + "/mcp"})
	exercise(t, c, log)
	if strings.Contains(log.String(), "transport=sse") {
		t.Fatal("auto used the legacy transport on a Streamable HTTP endpoint")
	}
}

func TestLegacySSE(t *testing.T) {
	base, log := startMock(t)
	c := dial(t, client.Options{URL: base + "/sse", Transport: client.TransportSSE})
	exercise(t, c, log)
	if err := c.Close(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	log.WaitFor(t, "transport=sse kind=session-closed")
}

func TestAutoFallsBackToLegacySSE(t *testing.T) {
	base, log := startMock(t)
	// The mock's /sse answers a POST with 405, as a legacy-only server does.
	exercise(t, dial(t, client.Options{URL: base + "/sse"}), log)
	log.WaitFor(t, "transport=sse kind=session-opened")
}

// One session carries many calls at once, on every transport, each answered to its caller.
func TestConcurrentCallsShareOneSession(t *testing.T) {
	base, log := startMock(t)
	for _, o := range []client.Options{{URL: base + "/mcp"}, {URL: base + "/sse", Transport: client.TransportSSE}} {
		t.Run(string(o.Transport)+" "+o.URL[len(base):], func(t *testing.T) {
			c := dial(t, o)
			ctx := testCtx(t)
			var wg sync.WaitGroup
			errs := make(chan error, 40)
			for i := range 40 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					city := fmt.Sprintf("city-%d", i)
					res, err := c.CallTool(ctx, "get_weather", json.RawMessage(`{"city":"`+city+`"}`), client.CallOptions{})
					if err == nil && !strings.Contains(res.Content[0].Text, `"`+city+`"`) {
						err = fmt.Errorf("call for %s answered %q", city, res.Content[0].Text)
					}
					if err != nil {
						errs <- err
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
	if n := strings.Count(log.String(), "kind=session-opened"); n != 2 {
		t.Fatalf("%d sessions opened, want one per client", n)
	}
}

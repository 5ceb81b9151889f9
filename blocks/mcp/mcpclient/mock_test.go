package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/octo-run/octo/blocks/mcp"
	"github.com/octo-run/octo/blocks/mcp/mcpclient"
)

// exercise runs what every transport must do against the mock.
func exercise(t *testing.T, c *mcpclient.Client) {
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
		res, err := c.CallTool(ctx, "get_weather", json.RawMessage(`{"city":"Oslo"}`), mcpclient.CallOptions{})
		if err != nil || res.IsError || res.Content[0].Text != `{"city": "Oslo", "forecast": "sunny"}` {
			t.Fatalf("%+v %v", res, err)
		}
	})
	t.Run("structured content comes as JSON text", func(t *testing.T) {
		res, err := c.CallTool(ctx, "structured", nil, mcpclient.CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if raw, ok := res.StructuredContent.(json.RawMessage); !ok || string(raw) != `{"n":7}` {
			t.Fatalf("structuredContent = %#v", res.StructuredContent)
		}
	})
	t.Run("a failed tool is an isError result, not an error", func(t *testing.T) {
		res, err := c.CallTool(ctx, "broken", nil, mcpclient.CallOptions{})
		if err != nil || !res.IsError || res.Content[0].Text != "the upstream is down" {
			t.Fatalf("%+v %v", res, err)
		}
	})
	t.Run("an unknown tool is a typed JSON-RPC error", func(t *testing.T) {
		_, err := c.CallTool(ctx, "nope", nil, mcpclient.CallOptions{})
		var rpc *mcp.Error
		if !errors.As(err, &rpc) || rpc.Code != mcp.CodeInvalidParams || !strings.HasPrefix(err.Error(), "tools/call: ") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("progress reaches the callback", func(t *testing.T) {
		var (
			mu  sync.Mutex
			got []mcpclient.Progress
		)
		res, err := c.CallTool(ctx, "report", nil, mcpclient.CallOptions{Progress: func(p mcpclient.Progress) {
			mu.Lock()
			got = append(got, p)
			mu.Unlock()
		}})
		if err != nil || res.Content[0].Text != "reported" {
			t.Fatalf("%+v %v", res, err)
		}
		mu.Lock()
		defer mu.Unlock()
		want := []mcpclient.Progress{{Progress: 1, Total: 2, Message: "first half"}, {Progress: 2, Total: 2, Message: "second half"}}
		if !slices.Equal(got, want) {
			t.Fatalf("progress = %+v", got)
		}
	})
	t.Run("the client declares no elicitation, so the mock does not ask", func(t *testing.T) {
		res, err := c.CallTool(ctx, "ask_user", nil, mcpclient.CallOptions{})
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
		var rpc *mcp.Error
		if !errors.As(err, &rpc) || rpc.Code != mcp.CodeResourceNotFound {
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
		_, err := c.CallTool(cctx, "slow", nil, mcpclient.CallOptions{})
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
			t.Fatalf("err = %v after %s", err, time.Since(start))
		}
		if err := c.Ping(ctx); err != nil {
			t.Fatalf("the session is gone after a cancel: %v", err)
		}
	})
}

func TestStreamableHTTP(t *testing.T) {
	base := startMock(t)
	exercise(t, dial(t, mcpclient.Options{URL: base + "/mcp", Transport: mcpclient.TransportStreamable}))
}

func TestAutoOnAStreamableEndpoint(t *testing.T) {
	base := startMock(t)
	exercise(t, dial(t, mcpclient.Options{URL: base + "/mcp"}))
}

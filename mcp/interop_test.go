//go:build sdkinterop

// The official Go SDK is a test-only dependency whose go.sum entries the
// module does not hold yet; run with -tags sdkinterop once they are there.

package mcp_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/mcptest"
)

// TestOfficialClientOverHTTP drives the server through a real socket with the
// official Go SDK client, which negotiates, sends the version header, probes
// GET and reads every answer strictly.
func TestOfficialClientOverHTTP(t *testing.T) {
	srv := httptest.NewServer(mcptest.StatelessHandler(mcptest.RouterServer(t)))
	defer srv.Close()
	ctx := context.Background()
	client := sdk.NewClient(&sdk.Implementation{Name: "probe", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()

	t.Run("the handshake negotiates the router's newest version", func(t *testing.T) {
		if v := cs.InitializeResult().ProtocolVersion; v != mcp.Version20250618 {
			t.Fatalf("negotiated %q", v)
		}
	})
	t.Run("the tool list carries the schema", func(t *testing.T) {
		res, err := cs.ListTools(ctx, nil)
		if err != nil || len(res.Tools) != 2 || res.Tools[1].Name != "weather" || res.Tools[1].Title != "Weather" {
			t.Fatalf("ListTools = %+v, %v", res, err)
		}
	})
	t.Run("a tool call returns text and structured content", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "weather", Arguments: map[string]any{"city": "Lisbon"}})
		if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != "sunny in Lisbon" {
			t.Fatalf("CallTool = %+v, %v", res, err)
		}
	})
	t.Run("an unknown tool is a readable error result", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "nope"})
		if err != nil || !res.IsError || res.Content[0].(*sdk.TextContent).Text != "Unknown tool: nope" {
			t.Fatalf("CallTool = %+v, %v", res, err)
		}
	})
	t.Run("a templated resource reads with decoded values", func(t *testing.T) {
		res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "weather://S%C3%A3o%20Paulo/today"})
		if err != nil || res.Contents[0].Text != "sunny in São Paulo" {
			t.Fatalf("ReadResource = %+v, %v", res, err)
		}
	})
	t.Run("an unknown resource is an error", func(t *testing.T) {
		if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://nope"}); err == nil || !strings.Contains(err.Error(), "Resource not found") {
			t.Fatalf("ReadResource error = %v", err)
		}
	})
	t.Run("a prompt renders", func(t *testing.T) {
		res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "Ana"}})
		if err != nil || res.Messages[0].Content.(*sdk.TextContent).Text != "Hello Ana" {
			t.Fatalf("GetPrompt = %+v, %v", res, err)
		}
	})
	t.Run("ping works", func(t *testing.T) {
		if err := cs.Ping(ctx, nil); err != nil {
			t.Fatal(err)
		}
	})
}

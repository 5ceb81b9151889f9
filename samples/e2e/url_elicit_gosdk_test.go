package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGoSDKClientOpensTheCalendarLinks drives the calendar sample, served by the built binary,
// with the official Go SDK client declaring elicitation.url: at its default 2026-07-28 both
// tools ask through input_required and answer once the link is accepted; at 2025-11-25
// list_events is -32042 until notifications/elicitation/complete, then the retry answers.
func TestGoSDKClientOpensTheCalendarLinks(t *testing.T) {
	url, _ := serveWorkspace(t, "samples/calendar-mock")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	completed := make(chan string, 4)
	open := func(version string) *mcp.ClientSession {
		client := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e", Version: "1"}, &mcp.ClientOptions{
			Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept"}, nil
			},
			ElicitationCompleteHandler: func(_ context.Context, r *mcp.ElicitationCompleteNotificationRequest) {
				completed <- r.Params.ElicitationID
			},
		})
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("connect at %q: %v", version, err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	text := func(cs *mcp.ClientSession, tool string) (string, error) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"user": "ana"}})
		if err != nil {
			return "", err
		}
		if res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s: %s", tool, jsonText(res))
		}
		return res.Content[0].(*mcp.TextContent).Text, nil
	}
	const events = `{"events": [{"title": "Stand-up", "at": "09:30"}]}`

	t.Run("2026-07-28: the links are input requests", func(t *testing.T) {
		cs := open("")
		if got, err := text(cs, "connect_calendar"); err != nil || got != "Calendar connected for ana (accept)." {
			t.Fatalf("connect_calendar = %q, %v", got, err)
		}
		if got, err := text(cs, "list_events"); err != nil || got != events {
			t.Fatalf("list_events = %q, %v", got, err)
		}
	})
	t.Run("2025-11-25: list_events is -32042 until the sign-in completes", func(t *testing.T) {
		cs := open("2025-11-25")
		_, err := text(cs, "list_events")
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeURLElicitationRequired {
			t.Fatalf("err = %v, want -32042", err)
		}
		var data struct{ Elicitations []mcp.ElicitParams }
		if json.Unmarshal(rpcErr.Data, &data) != nil || len(data.Elicitations) != 1 ||
			data.Elicitations[0].URL != "https://calendar.example.com/connect?elicitation="+data.Elicitations[0].ElicitationID {
			t.Fatalf("data = %s", rpcErr.Data)
		}
		select {
		case id := <-completed:
			if id != data.Elicitations[0].ElicitationID {
				t.Fatalf("completed %s, want %s", id, data.Elicitations[0].ElicitationID)
			}
		case <-ctx.Done():
			t.Fatal("no notifications/elicitation/complete")
		}
		if got, err := text(cs, "list_events"); err != nil || got != events {
			t.Fatalf("retried list_events = %q, %v", got, err)
		}
	})
}

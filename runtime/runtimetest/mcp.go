package runtimetest

import (
	"context"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ConnectMCP connects the official Go SDK client to the Streamable HTTP
// server at url; the session closes when the test ends.
func ConnectMCP(t testing.TB, url string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	return ConnectMCPAt(t, url, opts, SessionRevision)
}

// SessionRevision is the revision ConnectMCP asks for: the newest with initialize and sessions,
// which the tests built on it are about. Left to itself the SDK opens with the stateless
// 2026-07-28 (server/discover).
const SessionRevision = "2025-11-25"

// ConnectMCPAt is ConnectMCP asking for the protocol revision version ("" lets the SDK choose,
// 2026-07-28 first).
func ConnectMCPAt(t testing.TB, url string, opts *sdk.ClientOptions, version string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "octo-test", Version: "1"}, opts).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// ToolNames lists the session's tools by name, in the server's order.
func ToolNames(t testing.TB, cs *sdk.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	names := make([]string, len(res.Tools))
	for i, tool := range res.Tools {
		names[i] = tool.Name
	}
	return names
}

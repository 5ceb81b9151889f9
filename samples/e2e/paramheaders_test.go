package e2e

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// paramHeaderSpy records the Mcp-Param-Region header of every request it passes on.
type paramHeaderSpy struct {
	mu   sync.Mutex
	seen []string
}

func (s *paramHeaderSpy) RoundTrip(req *http.Request) (*http.Response, error) {
	if v := req.Header.Get("Mcp-Param-Region"); v != "" {
		s.mu.Lock()
		s.seen = append(s.seen, v)
		s.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(req)
}

// TestXMCPHeaderThroughTheBinary: `octo serve samples/conformance` lists test_x_mcp_header;
// the Go SDK client at 2026-07-28 mirrors its region in Mcp-Param-Region (base64 for a
// non-ASCII value) and is served, and a request whose header differs is HTTP 400, -32020.
func TestXMCPHeaderThroughTheBinary(t *testing.T) {
	url := serveConformance(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	spy := &paramHeaderSpy{}
	client := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: spy}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_x_mcp_header", Arguments: map[string]any{"region": "São Paulo", "level": 2}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "Region São Paulo" {
		t.Fatalf("tools/call = %+v, %v", res, err)
	}
	if len(spy.seen) != 1 || !strings.HasPrefix(spy.seen[0], "=?base64?") {
		t.Fatalf("Mcp-Param-Region sent: %q", spy.seen)
	}

	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"test_x_mcp_header","arguments":{"region":"eu","level":2},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "test_x_mcp_header",
		"Mcp-Param-Region": "eu", "Mcp-Param-Level": "3"} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32020,"message":"Header mismatch: the Mcp-Param-Level header \"3\" differs from arguments.level 2"}}`
	if resp.StatusCode != 400 || strings.TrimSpace(string(got)) != want {
		t.Fatalf("got %d %s\nwant 400 %s", resp.StatusCode, got, want)
	}
}

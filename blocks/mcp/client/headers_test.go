package client_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// echoServer is an MCP server whose one tool answers with the Authorization header it got.
func echoServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		msgs, _, perr := jsonrpc.Decode(body)
		if r.Method != http.MethodPost || perr != nil {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		m := msgs[0]
		w.Header().Set("Content-Type", "application/json")
		switch {
		case m.Kind != jsonrpc.KindRequest:
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "initialize":
			_, _ = w.Write(jsonrpc.AppendResult(nil, m.ID, []byte(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"echo","version":"1"}}`)))
		default:
			text := fmt.Sprintf("%q", r.Header.Get("Authorization"))
			_, _ = w.Write(jsonrpc.AppendResult(nil, m.ID, []byte(`{"content":[{"type":"text","text":`+text+`}]}`)))
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestHeadersAreRenderedFromEnvAndSentEveryTime(t *testing.T) {
	upstream := echoServer(t)
	cfg := routerConfig(fmt.Sprintf(`
- name: whoami
  process:
    - type: mcp-client
      settings:
        server:
          url: "%s/mcp"
          headers: { Authorization: "Bearer {{ env.ECHO_TOKEN }}" }
        tool: whoami
        result: text
`, upstream))
	cfg = "env:\n  - { name: ECHO_TOKEN, default: t0k3n }\n" + cfg
	svc := runtimetest.StartConfig(t, cfg, nil)
	cs := runtimetest.ConnectMCP(t, "http://"+svc.Connector("api").(interface{ Addr() string }).Addr()+"/mcp", nil)
	for range 2 {
		res, err := cs.CallTool(testCtx(t), &sdk.CallToolParams{Name: "whoami"})
		if err != nil || res.IsError || text(t, res) != "Bearer t0k3n" {
			t.Fatalf("%v %v", res, err)
		}
	}
}

func TestResultStructuredNeedsStructuredContent(t *testing.T) {
	upstream := echoServer(t)
	url, _ := startRouter(t, fmt.Sprintf(`
- name: whoami
  process:
    - type: mcp-client
      settings: { server: { url: "%s/mcp" }, tool: whoami, result: structured }
`, upstream))
	cs := runtimetest.ConnectMCP(t, url, nil)
	res, err := cs.CallTool(testCtx(t), &sdk.CallToolParams{Name: "whoami"})
	if err != nil || !res.IsError || text(t, res) != "the tool's result has no structuredContent (result: structured)" {
		t.Fatalf("%v %v", res, err)
	}
}

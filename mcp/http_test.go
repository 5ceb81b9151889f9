package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/mcptest"
)

func TestServeStateless(t *testing.T) {
	s := mcptest.RouterServer(t)
	post := func(body string, header ...string) mcp.HTTPRequest {
		h := http.Header{}
		for i := 0; i+1 < len(header); i += 2 {
			h.Set(header[i], header[i+1])
		}
		return mcp.HTTPRequest{Method: http.MethodPost, Header: h, Body: []byte(body), Vars: map[string]any{"sub": "alice"}}
	}
	tests := []struct {
		name   string
		in     mcp.HTTPRequest
		status int
		allow  string
		body   string // exact; "" means no body
	}{
		{"a GET is 405 with Allow: POST", mcp.HTTPRequest{Method: http.MethodGet, Header: http.Header{"Accept": {"text/event-stream"}}},
			405, "POST", `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Method not allowed: this MCP endpoint is stateless and accepts POST only"}}`},
		{"a DELETE is 405 with Allow: POST", mcp.HTTPRequest{Method: http.MethodDelete}, 405, "POST",
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Method not allowed: this MCP endpoint is stateless and accepts POST only"}}`},
		{"a request gets one JSON answer with its string id", post(`{"jsonrpc":"2.0","id":"abc","method":"ping"}`), 200, "",
			`{"jsonrpc":"2.0","id":"abc","result":{}}`},
		{"a request gets one JSON answer with its integer id", post(`{"jsonrpc":"2.0","id":7,"method":"ping"}`), 200, "",
			`{"jsonrpc":"2.0","id":7,"result":{}}`},
		{"Content-Type and Accept do not change the answer", post(`{"jsonrpc":"2.0","id":7,"method":"ping"}`,
			"Content-Type", "text/plain", "Accept", "text/event-stream"), 200, "", `{"jsonrpc":"2.0","id":7,"result":{}}`},
		{"malformed JSON is 400 with a parse error", post(`{"jsonrpc":`), 400, "",
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: unexpected end of JSON input at offset 11"}}`},
		{"a message of the wrong shape is 400 with invalid request and its id", post(`{"jsonrpc":"2.0","id":3}`), 400, "",
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request: missing \"method\""}}`},
		{"a null id is 400", post(`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`), 400, "",
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: id must not be null"}}`},
		{"an unknown method is 200 with method not found", post(`{"jsonrpc":"2.0","id":1,"method":"server/discover"}`), 200, "",
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: server/discover"}}`},
		{"a notification is 202 with no body", post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), 202, "", ""},
		{"a client response is 202 with no body", post(`{"jsonrpc":"2.0","id":"s1","result":{}}`), 202, "", ""},
		{"a batch gets an array in order, skipping notifications", post(`[{"jsonrpc":"2.0","id":1,"method":"ping"},
			{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"nope"},{"jsonrpc":"2.0","id":null}]`), 200, "",
			`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"b","error":{"code":-32601,"message":"Method not found: nope"}},{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: id must not be null"}}]`},
		{"a batch of notifications is 202", post(`[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]`), 202, "", ""},
		{"initialize inside a batch is refused", post(`[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`), 200, "",
			`[{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: initialize must not be part of a batch"}}]`},
		{"a batch from a 2025-06-18 client is 400", post(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "MCP-Protocol-Version", "2025-06-18"), 400, "",
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: JSON-RPC batches are not supported in protocol version 2025-06-18"}}`},
		{"an empty batch is 400", post(`[]`), 400, "", `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: empty batch"}}`},
		{"an unsupported protocol version header is 400 naming the spoken ones", post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			"MCP-Protocol-Version", "2099-01-01"), 400, "",
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Bad Request: unsupported Mcp-Protocol-Version \"2099-01-01\"; this server speaks 2025-06-18, 2025-03-26, 2024-11-05","data":{"requested":"2099-01-01","supported":["2025-06-18","2025-03-26","2024-11-05"]}}}`},
		{"an empty protocol version header is 400", post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "MCP-Protocol-Version", ""), 400, "",
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Bad Request: unsupported Mcp-Protocol-Version \"\"; this server speaks 2025-06-18, 2025-03-26, 2024-11-05","data":{"requested":"","supported":["2025-06-18","2025-03-26","2024-11-05"]}}}`},
		{"an unsupported header is ignored on initialize", post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
			"MCP-Protocol-Version", "2025-11-25"), 200, "",
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"resources":{},"prompts":{}},"serverInfo":{"name":"test","title":"Test","version":"1.0.0"},"instructions":"Be nice."}}`},
		{"a spoken header and the vars reach the provider", post(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"whoami"}}`,
			"MCP-Protocol-Version", "2025-06-18"), 200, "",
			`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"sub=alice version=2025-06-18 token= id=5"}]}}`},
		{"without a header the provider sees the assumed 2025-03-26", post(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"whoami"}}`), 200, "",
			`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"sub=alice version=2025-03-26 token= id=5"}]}}`},
		{"a 2025-06-18 client gets a resource link", post(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"link"}}`,
			"MCP-Protocol-Version", "2025-06-18"), 200, "",
			`{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"resource_link","uri":"docs://readme","name":"readme"}]}}`},
		{"a client without a header gets the link as text", post(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"link"}}`), 200, "",
			`{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"Resource readme: docs://readme"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := s.ServeStateless(context.Background(), tt.in)
			if out.Status != tt.status || string(out.Body) != tt.body {
				t.Fatalf("got %d %s\nwant %d %s", out.Status, out.Body, tt.status, tt.body)
			}
			if got := out.Header.Get("Allow"); got != tt.allow {
				t.Fatalf("Allow = %q, want %q", got, tt.allow)
			}
			ct := out.ContentType
			if (tt.body != "") != (ct == "application/json") {
				t.Fatalf("Content-Type = %q with body %q", ct, out.Body)
			}
		})
	}
}

func TestRawHTTPOverASocket(t *testing.T) {
	srv := httptest.NewServer(mcptest.StatelessHandler(mcptest.RouterServer(t)))
	defer srv.Close()
	tests := []struct {
		name, method, body string
		status             int
		want               string
	}{
		{"a POST gets its JSON answer", http.MethodPost, `{"jsonrpc":"2.0","id":"x","method":"ping"}`, 200, `{"jsonrpc":"2.0","id":"x","result":{}}`},
		{"a GET is refused with 405", http.MethodGet, "", 405, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Method not allowed: this MCP endpoint is stateless and accepts POST only"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, srv.URL, strings.NewReader(tt.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || string(b) != tt.want {
				t.Fatalf("got %d %s, want %d %s", resp.StatusCode, b, tt.status, tt.want)
			}
		})
	}
}

// benchTools is the trivial provider the hot-path benchmark calls.
type benchTools struct{}

func (benchTools) ListTools(context.Context, *mcp.RequestContext, string) ([]mcp.Tool, string, error) {
	return []mcp.Tool{{Name: "add"}}, "", nil
}

func (benchTools) CallTool(_ context.Context, _ *mcp.RequestContext, name string, _ json.RawMessage) (*mcp.CallToolResult, error) {
	if name != "add" {
		return nil, mcp.ErrUnknownTool
	}
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("3")}}, nil
}

func BenchmarkServeStatelessToolsCall(b *testing.B) {
	s := &mcp.Server{Info: mcp.Implementation{Name: "bench", Version: "1"}, Versions: mcp.RouterVersions, Tools: benchTools{}, UnknownTool: mcp.UnknownToolAsResult}
	in := mcp.HTTPRequest{
		Method: http.MethodPost,
		Header: http.Header{"Content-Type": {"application/json"}, mcp.HeaderProtocolVersion: {mcp.Version20250618}},
		Body:   []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"progressToken":"t"}}}`),
	}
	want := `{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"3"}]}}`
	if out := s.ServeStateless(context.Background(), in); string(out.Body) != want {
		b.Fatalf("answer %s", out.Body)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.ServeStateless(context.Background(), in)
	}
}

func BenchmarkServeStatelessToolsList(b *testing.B) {
	s := &mcp.Server{Info: mcp.Implementation{Name: "bench", Version: "1"}, Tools: benchTools{}, CacheLists: true}
	in := mcp.HTTPRequest{Method: http.MethodPost, Header: http.Header{}, Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)}
	b.ReportAllocs()
	for b.Loop() {
		s.ServeStateless(context.Background(), in)
	}
}

func TestStatelessLimits(t *testing.T) {
	s := mcptest.RouterServer(t)
	s.MaxBatch, s.MaxResponseBytes = 3, 1000
	post := func(body string) mcp.HTTPResponse {
		return s.ServeStateless(context.Background(), mcp.HTTPRequest{Method: http.MethodPost, Header: http.Header{}, Body: []byte(body)})
	}
	const (
		ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		big  = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big","arguments":{"n":%d}}}`
	)
	answer := func(id, n int) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", n) + `"}]}}`
	}
	t.Run("a batch over maxBatch is refused whole with one error", func(t *testing.T) {
		out := post("[" + strings.Repeat(ping+",", 3) + ping + "]")
		want := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: a batch of 4 messages is over the limit of 3 (maxBatch); send fewer messages per request"}}`
		if out.Status != 400 || string(out.Body) != want {
			t.Fatalf("got %d %s\nwant 400 %s", out.Status, out.Body, want)
		}
	})
	t.Run("a batch of maxBatch messages is served", func(t *testing.T) {
		if out := post("[" + ping + "," + ping + "," + ping + "]"); out.Status != 200 {
			t.Fatalf("got %d %s", out.Status, out.Body)
		}
	})
	t.Run("answers past the response budget become errors for their ids", func(t *testing.T) {
		out := post("[" + fmt.Sprintf(big, 1, 400) + "," + fmt.Sprintf(big, 2, 400) + "," + fmt.Sprintf(big, 3, 400) + "]")
		want := "[" + answer(1, 400) + "," + answer(2, 400) + "," +
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error: the answer (473 bytes) does not fit in the 1000 bytes allowed for the answers to one request (maxResponseBytes)"}}]`
		if out.Status != 200 || string(out.Body) != want {
			t.Fatalf("got %d %s\nwant 200 %s", out.Status, out.Body, want)
		}
	})
	t.Run("a single answer over the budget is an error for its id", func(t *testing.T) {
		out := post(fmt.Sprintf(big, 9, 2000))
		want := `{"jsonrpc":"2.0","id":9,"error":{"code":-32603,"message":"Internal error: the answer (2073 bytes) does not fit in the 1000 bytes allowed for the answers to one request (maxResponseBytes)"}}`
		if out.Status != 200 || string(out.Body) != want {
			t.Fatalf("got %d %s\nwant 200 %s", out.Status, out.Body, want)
		}
	})
	t.Run("an answer as large as twice its request fits whatever the limit", func(t *testing.T) {
		arg := strings.Repeat("a", 2000)
		out := post(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"s":"` + arg + `"}}}`)
		if out.Status != 200 || !strings.Contains(string(out.Body), `"result"`) {
			t.Fatalf("got %d %.200s", out.Status, out.Body)
		}
	})
}

package mock_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// post sends body on session sid (none when "") and returns the status,
// the session id header and the body.
func post(t *testing.T, url, sid, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
}

func TestLimitSettingsReachTheServer(t *testing.T) {
	s := serve(t, `
maxBatch: 2
maxResponseBytes: 700
tools:
  - { name: echo, result: "{{args.s}}{{args.s}}{{args.s}}{{args.s}}" }
resources:
  - { uri: "docs://{name}", name: doc, text: "{{params.name}}{{params.name}}{{params.name}}{{params.name}}" }
prompts:
  - name: p
    arguments: [ { name: s } ]
    messages: [ { text: "{{args.s}}{{args.s}}{{args.s}}{{args.s}}" } ]
`)
	_, sid, _ := post(t, s.url, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`)
	big := strings.Repeat("x", 200)
	over := `"error":{"code":-32603,"message":"Internal error: the answer (800 bytes) does not fit in the 700 bytes allowed for the answers to one request (maxResponseBytes)"}`
	cases := []struct {
		name, body string
		status     int
		want       string
	}{
		{"a batch over maxBatch is refused", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
			400, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: a batch of 3 messages is over the limit of 2 (maxBatch); send fewer messages per request"}}`},
		{"a tool answer over the budget is an error for its id", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"s":"` + big + `"}}}`,
			200, `{"jsonrpc":"2.0","id":4,` + over + `}`},
		{"a resource over the budget is an error for its id", `{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"docs://` + big + `"}}`,
			200, `{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Internal error: the answer (1007 bytes) does not fit in the 700 bytes allowed for the answers to one request (maxResponseBytes)"}}`},
		{"a prompt over the budget is an error for its id", `{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"p","arguments":{"s":"` + big + `"}}}`,
			200, `{"jsonrpc":"2.0","id":6,` + over + `}`},
		{"a small answer fits", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"s":"ab"}}}`,
			200, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"abababab"}]}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if status, _, body := post(t, s.url, sid, tc.body); status != tc.status || body != tc.want {
				t.Fatalf("got %d %s\nwant %d %s", status, body, tc.status, tc.want)
			}
		})
	}
}

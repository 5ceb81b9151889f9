package mock_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mirroring is a server whose tool mirrors its region argument in Mcp-Param-Region.
const mirroring = `
tools:
  - name: run
    description: runs somewhere
    inputSchema:
      type: object
      properties:
        region: { type: string, x-mcp-header: Region }
        query: { type: string }
    result: "{{args.query}} in {{args.region}}"
`

// The Go SDK client at 2026-07-28 mirrors the argument itself (base64 for a non-ASCII value)
// and is served; a request whose header differs from the body is HTTP 400, -32020.
func TestParamHeadersOnTheMock(t *testing.T) {
	s := serve(t, mirroring)
	cs := connectAt(t, s.url, nil, "")
	ctx := testCtx(t)
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "run", Arguments: map[string]any{"region": "Zürich", "query": "q"}})
	if err != nil || texts(res)[0] != "q in Zürich" {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
	body := `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"run","arguments":{"region":"eu"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "run", "Mcp-Param-Region": "us"} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `{"jsonrpc":"2.0","id":4,"error":{"code":-32020,"message":"Header mismatch: the Mcp-Param-Region header \"us\" differs from arguments.region \"eu\""}}`
	if resp.StatusCode != 400 || strings.TrimSpace(string(got)) != want {
		t.Fatalf("got %d %s\nwant 400 %s", resp.StatusCode, got, want)
	}
	// The traffic log says which revision the sessionless requests came with.
	waitForLog(t, s, `"msg":"error of tools/call run","flow":"mcp","block":"mcp-mock","name":"test-mock","server":"test-mock","session":"","transport":"streamable-http","kind":"error","direction":"out","version":"2026-07-28"`)
}

// An annotation clients would refuse is a build problem at its place in the settings.
func TestParamHeadersRefusedAtBuild(t *testing.T) {
	_, _, err := build(t, strings.Replace(mirroring, "{ type: string, x-mcp-header: Region }", "{ type: number, x-mcp-header: Region }", 1))
	if err == nil || !strings.Contains(err.Error(), `x-mcp-header "Region" at /properties/region: the property's type must be`) {
		t.Fatalf("build: %v", err)
	}
}

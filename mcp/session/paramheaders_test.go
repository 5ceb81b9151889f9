package session

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/mcptest"
	"github.com/octo-run/octo/mcp/schema"
)

// routeSchema mirrors region, the nested target.zone, count and dry.
const routeSchema = `{"type":"object","properties":{
	"region":{"type":"string","x-mcp-header":"Region"},
	"target":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},
	"count":{"type":"integer","x-mcp-header":"Count"},
	"dry":{"type":"boolean","x-mcp-header":"Dry"},
	"query":{"type":"string"}}}`

// headerTools serves one tool, "route", whose schema is routeSchema; a call answers its
// arguments as text.
type headerTools struct{ schema *schema.Schema }

func (p *headerTools) ListTools(context.Context, *mcp.RequestContext, string) ([]mcp.Tool, string, error) {
	return []mcp.Tool{{Name: "route", Description: "routes", InputSchema: p.schema.Raw()}}, "", nil
}

func (p *headerTools) CallTool(_ context.Context, _ *mcp.RequestContext, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	if name != "route" {
		return nil, mcp.ErrUnknownTool
	}
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(string(args))}}, nil
}

func (p *headerTools) ParamHeaders(name string) []schema.ParamHeader {
	if name == "route" {
		return p.schema.ParamHeaders()
	}
	return nil
}

func newHeaderFront(t *testing.T) *front {
	sc, err := schema.Compile([]byte(routeSchema))
	if err != nil {
		t.Fatal(err)
	}
	s := &mcp.Server{Info: mcp.Implementation{Name: "hdr", Version: "1"}, Versions: mcp.MockVersions, Tools: &headerTools{sc}}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	return newFront(t, New(s, Options{}))
}

// Over a real socket, a 2026-07-28 tools/call is served only when its Mcp-Param headers mirror
// its arguments; any disagreement is HTTP 400 with -32020 naming the header.
func TestParamHeadersOverHTTP(t *testing.T) {
	f := newHeaderFront(t)
	post := func(args string, header ...string) (int, string) {
		in := mcptest.ModernPost("tools/call", `{"name":"route","arguments":`+args+`}`, "{}")
		h := []string{}
		for k, v := range in.Header {
			h = append(h, k, v[0])
		}
		resp := f.do(t, http.MethodPost, "/mcp", string(in.Body), append(h, header...)...)
		return resp.StatusCode, readAll(t, resp)
	}
	cases := []struct {
		name   string
		args   string
		header []string
		status int
		want   string
	}{
		{"plain values match", `{"region":"us-west1","count":3,"dry":true}`,
			[]string{"Mcp-Param-Region", "us-west1", "Mcp-Param-Count", "3", "Mcp-Param-Dry", "true"}, 200, `"resultType":"complete"`},
		{"header names are case-insensitive, values trimmed", `{"region":"eu"}`, []string{"mcp-param-region", " \teu "}, 200, `"resultType":"complete"`},
		{"base64 is decoded", `{"region":"Hello, 世界"}`, []string{"Mcp-Param-Region", "=?base64?SGVsbG8sIOS4lueVjA==?="}, 200, `"resultType":"complete"`},
		{"a value without the suffix is literal", `{"region":"=?base64?SGVsbG8="}`, []string{"Mcp-Param-Region", "=?base64?SGVsbG8="}, 200, `"resultType":"complete"`},
		{"integers compare as numbers", `{"count":42}`, []string{"Mcp-Param-Count", "42.0"}, 200, `"resultType":"complete"`},
		{"a nested argument", `{"target":{"zone":"b"}}`, []string{"Mcp-Param-Zone", "b"}, 200, `"resultType":"complete"`},
		{"a null argument needs no header", `{"target":{"zone":null},"query":"x"}`, nil, 200, `"resultType":"complete"`},
		{"no mirrored argument needs no header", `{}`, nil, 200, `"resultType":"complete"`},
		{"a missing header", `{"region":"us"}`, nil, 400,
			`"error":{"code":-32020,"message":"Header mismatch: missing the Mcp-Param-Region header that mirrors arguments.region"}`},
		{"a different value", `{"region":"us"}`, []string{"Mcp-Param-Region", "eu"}, 400,
			`"message":"Header mismatch: the Mcp-Param-Region header \"eu\" differs from arguments.region \"us\""`},
		{"a value of another case", `{"dry":true}`, []string{"Mcp-Param-Dry", "True"}, 400, `"code":-32020`},
		{"a different number", `{"count":42}`, []string{"Mcp-Param-Count", "43"}, 400, `"code":-32020`},
		{"big integers compare exactly", `{"count":9007199254740993}`, []string{"Mcp-Param-Count", "9007199254740992"}, 400, `"code":-32020`},
		{"big integers that match", `{"count":9007199254740993}`, []string{"Mcp-Param-Count", "9007199254740993"}, 200, `"resultType":"complete"`},
		{"a number that is not JSON", `{"count":42}`, []string{"Mcp-Param-Count", "0x2a"}, 400, `"code":-32020`},
		{"a header without its argument", `{}`, []string{"Mcp-Param-Region", "us"}, 400,
			`"message":"Header mismatch: the Mcp-Param-Region header is set but arguments.region is absent or null"`},
		{"bad base64 padding", `{"region":"Hello"}`, []string{"Mcp-Param-Region", "=?base64?SGVsbG8?="}, 400,
			`"message":"Header mismatch: the Mcp-Param-Region header is not valid base64`},
		{"bad base64 characters", `{"region":"Hello"}`, []string{"Mcp-Param-Region", "=?base64?SGVs!!!bG8=?="}, 400, `"code":-32020`},
		{"a byte a header value cannot hold", `{"region":"é"}`, []string{"Mcp-Param-Region", "é"}, 400,
			`"message":"Header mismatch: the Mcp-Param-Region header holds a byte (0xc3) a header value cannot`},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			status, body := post(tt.args, tt.header...)
			if status != tt.status || !strings.Contains(body, tt.want) {
				t.Fatalf("got %d %s\nwant %d with %s", status, body, tt.status, tt.want)
			}
		})
	}
	t.Run("a header sent twice", func(t *testing.T) {
		in := mcptest.ModernPost("tools/call", `{"name":"route","arguments":{"region":"us"}}`, "{}")
		req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/mcp", strings.NewReader(string(in.Body)))
		req.Header = in.Header
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header["Mcp-Param-Region"] = []string{"us", "eu"}
		resp, err := f.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if body := readAll(t, resp); resp.StatusCode != 400 || !strings.Contains(body, `the Mcp-Param-Region header is sent 2 times`) {
			t.Fatalf("got %d %s", resp.StatusCode, body)
		}
	})
	t.Run("the older revisions never look at the headers", func(t *testing.T) {
		c := f.open(t, mcp.Version20251125, "{}")
		status, body := c.call(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"route","arguments":{"region":"us"}}}`)
		if status != 200 || !strings.Contains(body, `{\"region\":\"us\"}`) {
			t.Fatalf("got %d %s", status, body)
		}
	})
}

// The official Go SDK client speaks 2026-07-28 by default and mirrors x-mcp-header arguments
// itself, base64 included: its calls pass the server's check.
func TestParamHeadersWithTheOfficialClient(t *testing.T) {
	f := newHeaderFront(t)
	client := sdk.NewClient(&sdk.Implementation{Name: "probe", Version: "1"}, nil)
	ctx := context.Background()
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: f.srv.URL + "/mcp", HTTPClient: f.client, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil { // the client learns the annotations here
		t.Fatal(err)
	}
	args := map[string]any{"region": " Hello, 世界 ", "count": 7, "dry": false, "target": map[string]any{"zone": "=?base64?x?="}}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "route", Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
	if got := res.Content[0].(*sdk.TextContent).Text; !strings.Contains(got, `" Hello, 世界 "`) {
		t.Fatalf("arguments seen: %s", got)
	}
}

// A long header value is quoted clipped in the error, not whole.
func TestParamHeaderMismatchQuotesAClippedValue(t *testing.T) {
	f := newHeaderFront(t)
	in := mcptest.ModernPost("tools/call", `{"name":"route","arguments":{"region":"us"}}`, "{}", "Mcp-Param-Region", strings.Repeat("x", 10000))
	h := []string{}
	for k, v := range in.Header {
		h = append(h, k, v[0])
	}
	resp := f.do(t, http.MethodPost, "/mcp", string(in.Body), h...)
	body := readAll(t, resp)
	if resp.StatusCode != 400 || len(body) > 500 || !strings.Contains(body, `xxx…\" differs from arguments.region \"us\"`) {
		t.Fatalf("got %d %s", resp.StatusCode, body)
	}
}

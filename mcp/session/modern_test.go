package session

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/mcptest"
)

// modernCase is one 2026-07-28 exchange, checked on the router's and the mock's server.
type modernCase struct {
	name   string
	in     mcp.HTTPRequest
	status int
	want   string // the body holds this
}

func modernCases() []modernCase {
	return []modernCase{
		{"server/discover names the revisions, capabilities and serverInfo", mcptest.ModernPost("server/discover", "", "{}"), 200,
			`"supportedVersions":["2026-07-28",`},
		{"server/discover says where serverInfo is", mcptest.ModernPost("server/discover", "", "{}"), 200,
			`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":`},
		{"a list carries resultType and the cache hints", mcptest.ModernPost("tools/list", "", "{}"), 200,
			`{"jsonrpc":"2.0","id":9,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[`},
		{"a call carries resultType only", mcptest.ModernPost("tools/call", `{"name":"echo","arguments":{"a":1}}`, "{}"), 200,
			`{"jsonrpc":"2.0","id":9,"result":{"resultType":"complete","content":[`},
		{"a missing MCP-Protocol-Version header is -32020", mcptest.ModernPost("tools/list", "", "{}", "Mcp-Protocol-Version", "",
			"X", "y"), 400, `{"jsonrpc":"2.0","id":9,"error":{"code":-32020,`},
		{"a header naming another version than _meta is -32020", mcptest.ModernPost("tools/list", "", "{}",
			"Mcp-Protocol-Version", "2025-11-25"), 400, `"code":-32020`},
		{"no clientCapabilities in _meta is -32602", mcp.HTTPRequest{Method: http.MethodPost,
			Header: http.Header{"Mcp-Protocol-Version": {mcp.Version20260728}, "Mcp-Method": {"tools/list"}},
			Body:   []byte(`{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)},
			400, `{"jsonrpc":"2.0","id":"x","error":{"code":-32602,`},
		{"an unknown version in both is -32022 naming the spoken ones", mcp.HTTPRequest{Method: http.MethodPost,
			Header: http.Header{"Mcp-Protocol-Version": {"v9"}, "Mcp-Method": {"tools/list"}},
			Body: []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v9",` +
				`"io.modelcontextprotocol/clientCapabilities":{}}}}`)},
			400, `"code":-32022,"message":"Unsupported protocol version v9","data":{"requested":"v9","supported":["2026-07-28",`},
		{"a missing Mcp-Method header is -32020", mcptest.ModernPost("tools/list", "", "{}", "Mcp-Method", ""), 400, `"code":-32020`},
		{"an Mcp-Method of another case is -32020", mcptest.ModernPost("tools/list", "", "{}", "Mcp-Method", "TOOLS/LIST"), 400, `"code":-32020`},
		{"an Mcp-Name other than the tool's is -32020", mcptest.ModernPost("tools/call", `{"name":"echo"}`, "{}", "Mcp-Name", "other"), 400,
			`"code":-32020`},
		{"a missing Mcp-Name is -32020", mcptest.ModernPost("tools/call", `{"name":"echo"}`, "{}", "Mcp-Name", ""), 400, `"code":-32020`},
		{"Mcp-Name is trimmed and may be base64", mcptest.ModernPost("tools/call", `{"name":"echo"}`, "{}", "Mcp-Name", " =?base64?ZWNobw==?= "), 200,
			`"resultType":"complete"`},
		{"bad base64 in Mcp-Name is -32020", mcptest.ModernPost("tools/call", `{"name":"echo"}`, "{}", "Mcp-Name", "=?base64?*?="), 400,
			`"code":-32020`},
		{"a method the revision dropped is 404 -32601", mcptest.ModernPost("ping", "", "{}"), 404,
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"Method not found: ping"}}`},
		{"initialize with 2026 _meta is 404 -32601", mcptest.ModernPost("initialize", "", "{}"), 404, `"code":-32601`},
		{"an unknown resource is -32602 with its uri", mcptest.ModernPost("resources/read", `{"uri":"nope://x"}`, "{}"), 200,
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Invalid params: resource not found","data":{"uri":"nope://x"}}}`},
		{"a tool that asks gets an input_required result", mcptest.ModernPost("tools/call", `{"name":"greet"}`, `{"elicitation":{}}`), 200,
			`"result":{"resultType":"input_required","inputRequests":{"who":{"method":"elicitation/create","params":{"message":"Your name?"`},
		{"a tool that asks a client without the capability is 400 -32021", mcptest.ModernPost("tools/call", `{"name":"greet"}`, "{}"), 400,
			`"code":-32021,"message":"Missing required client capability: elicitation (for elicitation/create)","data":{"requiredCapabilities":{"elicitation":{}}}`},
		{"a forged requestState is -32602", mcptest.ModernPost("tools/call", `{"name":"greet","requestState":"e30.AAAA"}`, `{"elicitation":{}}`), 200,
			`"code":-32602,"message":"Invalid params: requestState failed its integrity check`},
		{"a batch is 400", mcp.HTTPRequest{Method: http.MethodPost, Header: http.Header{"Mcp-Protocol-Version": {mcp.Version20260728}},
			Body: []byte(`[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`)}, 400, `"code":-32600`},
	}
}

func TestModernRequestsOnTheStatelessServer(t *testing.T) {
	s := mcptest.RouterServer(t)
	for _, tt := range modernCases() {
		t.Run(tt.name, func(t *testing.T) {
			out := s.ServeStateless(context.Background(), tt.in)
			if out.Status != tt.status || !strings.Contains(string(out.Body), tt.want) {
				t.Fatalf("got %d %s\nwant %d with %s", out.Status, out.Body, tt.status, tt.want)
			}
		})
	}
}

func TestModernRequestsOnTheStatefulServer(t *testing.T) {
	srv, _ := newStatefulServer(t)
	st := New(srv, Options{})
	defer st.Close()
	for _, tt := range modernCases() {
		t.Run(tt.name, func(t *testing.T) {
			out := st.ServeStreamable(context.Background(), tt.in)
			if out.Status != tt.status || !strings.Contains(string(out.Body), tt.want) {
				t.Fatalf("got %d %s\nwant %d with %s", out.Status, out.Body, tt.status, tt.want)
			}
		})
	}
	if n := len(st.Sessions()); n != 0 {
		t.Fatalf("2026-07-28 requests opened %d sessions", n)
	}
}

// The older revisions keep their rules on the same endpoint: an initialize is one whatever
// header it comes with, and server/discover without 2026 _meta is an ordinary -32601.
func TestTheOlderRevisionsStayAsTheyWere(t *testing.T) {
	s := mcptest.RouterServer(t)
	init := mcp.HTTPRequest{Method: http.MethodPost, Header: http.Header{"Mcp-Protocol-Version": {mcp.Version20260728}},
		Body: []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)}
	out := s.ServeStateless(context.Background(), init)
	if out.Status != 200 || !strings.Contains(string(out.Body), `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize: %d %s", out.Status, out.Body)
	}
	probe := mcp.HTTPRequest{Method: http.MethodPost, Header: http.Header{},
		Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover"}`)}
	out = s.ServeStateless(context.Background(), probe)
	if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: server/discover"}}`; string(out.Body) != want {
		t.Fatalf("server/discover: %d %s", out.Status, out.Body)
	}
}

// Two rounds of a tool that asks: the second sends the answer and the requestState back and
// gets the complete result; the same state for another tool is refused.
func TestInputRequiredRoundTrip(t *testing.T) {
	s := mcptest.RouterServer(t)
	caps := `{"elicitation":{}}`
	first := s.ServeStateless(context.Background(), mcptest.ModernPost("tools/call", `{"name":"greet"}`, caps))
	var r1 struct {
		Result struct {
			ResultType   string `json:"resultType"`
			RequestState string `json:"requestState"`
		}
	}
	if err := json.Unmarshal(first.Body, &r1); err != nil || r1.Result.ResultType != "input_required" || r1.Result.RequestState == "" {
		t.Fatalf("round 1: %s", first.Body)
	}
	state, _ := json.Marshal(r1.Result.RequestState)
	again := `{"name":"greet","requestState":` + string(state) +
		`,"inputResponses":{"who":{"action":"accept","content":{"name":"Ana"}},"extra":{"action":"decline"}}}`
	second := s.ServeStateless(context.Background(), mcptest.ModernPost("tools/call", again, caps))
	if want := `"result":{"resultType":"complete","content":[{"type":"text","text":"hello Ana"}]}`; !strings.Contains(string(second.Body), want) {
		t.Fatalf("round 2: %s", second.Body)
	}
	other := strings.Replace(again, `"name":"greet"`, `"name":"echo"`, 1)
	third := s.ServeStateless(context.Background(), mcptest.ModernPost("tools/call", other, caps))
	if !strings.Contains(string(third.Body), `"code":-32602`) {
		t.Fatalf("state for another tool: %s", third.Body)
	}
}

// A subscriptions/listen stream opens with its acknowledgement and then carries the list
// changes it asked for, tagged with its id; the stateless server has none to offer.
func TestSubscriptionsListen(t *testing.T) {
	srv, _ := newStatefulServer(t)
	st := New(srv, Options{})
	defer st.Close()
	in := mcptest.ModernPost("subscriptions/listen", `{"notifications":{"toolsListChanged":true,"promptsListChanged":true}}`, "{}")
	out := st.ServeStreamable(context.Background(), in)
	if out.Stream == nil {
		t.Fatalf("no stream: %d %s", out.Status, out.Body)
	}
	defer out.Stream.Close()
	next := func() string {
		ctx, cancel := context.WithTimeout(context.Background(), 5e9)
		defer cancel()
		ev, err := out.Stream.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return string(ev.Data)
	}
	if got, want := next(), `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":9},"notifications":{"toolsListChanged":true}}}`; got != want {
		t.Fatalf("ack = %s\nwant %s", got, want)
	}
	st.ListChanged("resources") // not asked for
	st.ListChanged("tools")
	if got, want := next(), `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":9}}}`; got != want {
		t.Fatalf("change = %s\nwant %s", got, want)
	}
	disc := st.ServeStreamable(context.Background(), mcptest.ModernPost("server/discover", "", "{}"))
	if !strings.Contains(string(disc.Body), `"tools":{"listChanged":true}`) {
		t.Fatalf("discover: %s", disc.Body)
	}
	if r := mcptest.RouterServer(t).ServeStateless(context.Background(), in); r.Status != 404 {
		t.Fatalf("stateless listen: %d %s", r.Status, r.Body)
	}
}

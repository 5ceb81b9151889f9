package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/mcptest"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// roundTrip decodes body, hands it to s and encodes the answer.
func roundTrip(t *testing.T, s *mcp.Server, body string, rc *mcp.RequestContext) string {
	t.Helper()
	msgs, _, err := jsonrpc.Decode([]byte(body))
	if err != nil || len(msgs) != 1 || msgs[0].Kind != jsonrpc.KindRequest {
		t.Fatalf("test body %s does not decode to one request: %v", body, err)
	}
	return string(jsonrpc.AppendResponse(nil, s.Handle(context.Background(), &msgs[0].Request, rc)))
}

func TestHandle(t *testing.T) {
	router := mcptest.RouterServer(t)
	mock := &mcp.Server{Info: mcp.Implementation{Name: "mock", Version: "0.1"}, Versions: mcp.MockVersions,
		Tools: mcptest.NewTools(t), UnknownTool: mcp.UnknownToolAsError}
	bare := &mcp.Server{Info: mcp.Implementation{Name: "bare", Version: "0"}}
	tests := []struct {
		name   string
		server *mcp.Server
		body   string
		want   string
	}{
		{"initialize without params answers the version for an absent one and honest capabilities", router,
			`{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{},"resources":{},"prompts":{}},"serverInfo":{"name":"test","title":"Test","version":"1.0.0"},"instructions":"Be nice."}}`},
		{"initialize echoes a spoken version", router,
			`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{"x":{}},"clientInfo":{"name":"c","version":"1"}}}`,
			`{"jsonrpc":"2.0","id":"i","result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{},"resources":{},"prompts":{}},"serverInfo":{"name":"test","title":"Test","version":"1.0.0"},"instructions":"Be nice."}}`},
		{"initialize answers an unknown version with the policy's choice", router,
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"resources":{},"prompts":{}},"serverInfo":{"name":"test","title":"Test","version":"1.0.0"},"instructions":"Be nice."}}`},
		{"initialize of a server without providers declares no capability", bare,
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"bare","version":"0"}}}`},
		{"initialize with a numeric version is invalid params", router,
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":20250618}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: \"protocolVersion\" must be a string, got number"}}`},
		{"ping answers an empty object", router, `{"jsonrpc":"2.0","id":"p","method":"ping"}`,
			`{"jsonrpc":"2.0","id":"p","result":{}}`},
		{"ping works on a server without providers", bare, `{"jsonrpc":"2.0","id":7,"method":"ping","params":null}`,
			`{"jsonrpc":"2.0","id":7,"result":{}}`},
		{"tools/list keeps schemas verbatim, fills the default and omits nextCursor", router,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","description":"Echoes its arguments.","inputSchema":{"type":"object"}},{"name":"weather","title":"Weather","inputSchema":` + mcptest.WeatherSchema + `,"annotations":{"readOnlyHint":true}}]}}`},
		{"tools/list with a cursor the provider never issued is invalid params", router,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"zzz"}}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: invalid cursor"}}`},
		{"tools/list with a numeric cursor is invalid params", router,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":5}}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: \"cursor\" must be a string, got number"}}`},
		{"tools/call passes the arguments object verbatim", router,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"b":1,"a":[true]}}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\"b\":1,\"a\":[true]}"}]}}`},
		{"tools/call without arguments passes an empty object", router,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{}"}]}}`},
		{"tools/call with null arguments passes an empty object", router,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":null}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{}"}]}}`},
		{"tools/call with array arguments is invalid params", router,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":[1]}}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: \"arguments\" must be an object, got array"}}`},
		{"tools/call without a name is invalid params", router,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: missing \"name\""}}`},
		{"tools/call with a numeric name is invalid params", router,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":1}}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: \"name\" must be a string, got number"}}`},
		{"tools/call returns structured content and schema errors as results", router,
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"weather","arguments":{"city":"Lisbon"}}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"sunny in Lisbon"}],"structuredContent":{"city":"Lisbon","sky":"sunny"}}}`},
		{"tools/call arguments failing the schema come back as an isError result naming the field", router,
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"weather","arguments":{"city":7}}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"argument \"city\": expected string, got number"}],"isError":true}}`},
		{"an unknown tool is an isError result on the router", router,
			`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope"}}`,
			`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"Unknown tool: nope"}],"isError":true}}`},
		{"an unknown tool is -32602 on the mock", mock,
			`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope"}}`,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Unknown tool: nope"}}`},
		{"a tool returning nothing gives an empty content list", router,
			`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nothing"}}`,
			`{"jsonrpc":"2.0","id":6,"result":{"content":[]}}`},
		{"a panicking tool becomes an internal error", router,
			`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"panic"}}`,
			`{"jsonrpc":"2.0","id":6,"error":{"code":-32603,"message":"Internal error while handling tools/call"}}`},
		{"a failing tool becomes an internal error naming the failure", router,
			`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"fail"}}`,
			`{"jsonrpc":"2.0","id":6,"error":{"code":-32603,"message":"Internal error: backend down"}}`},
		{"a tool's own JSON-RPC error passes through", router,
			`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"rpcfail"}}`,
			`{"jsonrpc":"2.0","id":6,"error":{"code":-32000,"message":"quota exceeded"}}`},
		{"resources/list lists resources", router, `{"jsonrpc":"2.0","id":8,"method":"resources/list"}`,
			`{"jsonrpc":"2.0","id":8,"result":{"resources":[{"uri":"docs://readme","name":"readme","mimeType":"text/markdown"}]}}`},
		{"resources/templates/list lists templates", router, `{"jsonrpc":"2.0","id":8,"method":"resources/templates/list"}`,
			`{"jsonrpc":"2.0","id":8,"result":{"resourceTemplates":[{"uriTemplate":"weather://{city}/today","name":"forecast"}]}}`},
		{"resources/read reads a template match", router,
			`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"weather://S%C3%A3o%20Paulo/today"}}`,
			`{"jsonrpc":"2.0","id":9,"result":{"contents":[{"uri":"weather://S%C3%A3o%20Paulo/today","text":"sunny in São Paulo"}]}}`},
		{"resources/read of an unknown uri is -32002 with the uri", router,
			`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"docs://nope"}}`,
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"docs://nope"}}}`},
		{"resources/read with empty contents is not found either", router,
			`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"img://empty"}}`,
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"img://empty"}}}`},
		{"resources/read without a uri is invalid params", router,
			`{"jsonrpc":"2.0","id":9,"method":"resources/read"}`,
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Invalid params: missing \"uri\""}}`},
		{"prompts/list returns the first page with its cursor", router, `{"jsonrpc":"2.0","id":10,"method":"prompts/list"}`,
			`{"jsonrpc":"2.0","id":10,"result":{"prompts":[{"name":"greet","arguments":[{"name":"who","required":true}]}],"nextCursor":"page2"}}`},
		{"prompts/get finds a prompt on a later page", router,
			`{"jsonrpc":"2.0","id":50,"method":"prompts/get","params":{"name":"restock_plan","arguments":{"warehouse":"north"}}}`,
			`{"jsonrpc":"2.0","id":50,"result":{"description":"restock_plan","messages":[{"role":"user","content":{"type":"text","text":"Draft a restock plan for warehouse north."}}]}}`},
		{"prompts/get names a missing required argument", router,
			`{"jsonrpc":"2.0","id":51,"method":"prompts/get","params":{"name":"restock_plan","arguments":{"tone":"dry"}}}`,
			`{"jsonrpc":"2.0","id":51,"error":{"code":-32602,"message":"Invalid params: missing required argument \"warehouse\""}}`},
		{"prompts/get refuses a non-string argument", router,
			`{"jsonrpc":"2.0","id":51,"method":"prompts/get","params":{"name":"greet","arguments":{"who":3}}}`,
			`{"jsonrpc":"2.0","id":51,"error":{"code":-32602,"message":"Invalid params: argument \"who\" must be a string, got number"}}`},
		{"prompts/get of an unknown prompt is -32602", router,
			`{"jsonrpc":"2.0","id":52,"method":"prompts/get","params":{"name":"nope"}}`,
			`{"jsonrpc":"2.0","id":52,"error":{"code":-32602,"message":"Unknown prompt: nope"}}`},
		{"an unknown method is -32601 naming it", router, `{"jsonrpc":"2.0","id":"u","method":"tools/destroy"}`,
			`{"jsonrpc":"2.0","id":"u","error":{"code":-32601,"message":"Method not found: tools/destroy"}}`},
		{"a method of an absent provider is -32601", mock, `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: resources/list"}}`},
		{"prompts/get on a server without prompts is -32601", bare, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"x"}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: prompts/get"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := roundTrip(t, tt.server, tt.body, nil); got != tt.want {
				t.Fatalf("\ngot  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestHandleFillsTheRequestContext(t *testing.T) {
	s := mcptest.RouterServer(t)
	tests := []struct {
		name string
		body string
		rc   *mcp.RequestContext
		want string
		sent []string
	}{
		{"vars, version, id and progress token reach the provider and progress is sent",
			`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"whoami","_meta":{"progressToken":"p-31"}}}`,
			&mcp.RequestContext{Vars: map[string]any{"sub": "alice"}, Version: "2025-06-18", Notifier: new(mcptest.Recorder)},
			`sub=alice version=2025-06-18 token="p-31" id="c1"`,
			[]string{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-31","progress":1,"total":2,"message":"halfway"}}`}},
		{"an integer progress token is kept raw",
			`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"whoami","_meta":{"progressToken":12}}}`,
			&mcp.RequestContext{Notifier: new(mcptest.Recorder)},
			`sub=<nil> version= token=12 id=12`,
			[]string{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":12,"progress":1,"total":2,"message":"halfway"}}`}},
		{"no progress is sent without a token",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}`,
			&mcp.RequestContext{Notifier: new(mcptest.Recorder)}, `sub=<nil> version= token= id=1`, nil},
		{"a fractional progress token is ignored",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","_meta":{"progressToken":1.5}}}`,
			&mcp.RequestContext{Notifier: new(mcptest.Recorder)}, `sub=<nil> version= token= id=1`, nil},
		{"a stateless request without a notifier drops progress quietly",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","_meta":{"progressToken":"t"}}}`,
			&mcp.RequestContext{}, `sub=<nil> version= token="t" id=1`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := roundTrip(t, s, tt.body, tt.rc)
			var resp struct {
				Result mcp.CallToolResult `json:"result"`
			}
			if err := json.Unmarshal([]byte(got), &resp); err != nil || len(resp.Result.Content) != 1 {
				t.Fatalf("unexpected answer %s: %v", got, err)
			}
			if text := resp.Result.Content[0].Text; text != tt.want {
				t.Fatalf("provider saw %q, want %q", text, tt.want)
			}
			var sent []string
			if r, ok := tt.rc.Notifier.(*mcptest.Recorder); ok {
				sent = r.Sent
			}
			if strings.Join(sent, "\n") != strings.Join(tt.sent, "\n") {
				t.Fatalf("sent %q, want %q", sent, tt.sent)
			}
		})
	}
	t.Run("initialize records the negotiated version", func(t *testing.T) {
		rc := &mcp.RequestContext{}
		roundTrip(t, s, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`, rc)
		if rc.Version != "2025-03-26" {
			t.Fatalf("rc.Version = %q", rc.Version)
		}
	})
}

func TestHandleExtraMethodsAndNotifications(t *testing.T) {
	var heard []string
	s := &mcp.Server{
		Info:         mcp.Implementation{Name: "mock", Version: "1"},
		Capabilities: mcp.Capabilities{Logging: true},
		Handlers: map[string]mcp.HandlerFunc{
			"logging/setLevel": func(_ context.Context, req *jsonrpc.Request, _ *mcp.RequestContext) (any, error) {
				heard = append(heard, "setLevel "+string(req.Params))
				return nil, nil
			},
			"notifications/cancelled": func(_ context.Context, req *jsonrpc.Request, _ *mcp.RequestContext) (any, error) {
				heard = append(heard, "cancelled "+string(req.Params))
				panic("a notification handler panics")
			},
			"x/raw": func(context.Context, *jsonrpc.Request, *mcp.RequestContext) (any, error) {
				return json.RawMessage(`{"b":1,"a":2}`), nil
			},
			"x/bad": func(context.Context, *jsonrpc.Request, *mcp.RequestContext) (any, error) {
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: bad level")
			},
		},
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, body, want string
	}{
		{"a handler serves a method the core lacks", `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"a handler's raw result passes verbatim", `{"jsonrpc":"2.0","id":2,"method":"x/raw"}`,
			`{"jsonrpc":"2.0","id":2,"result":{"b":1,"a":2}}`},
		{"a handler's error is the answer", `{"jsonrpc":"2.0","id":3,"method":"x/bad"}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: bad level"}}`},
		{"initialize declares the logging flag", `{"jsonrpc":"2.0","id":4,"method":"initialize"}`,
			`{"jsonrpc":"2.0","id":4,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{}},"serverInfo":{"name":"mock","version":"1"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := roundTrip(t, s, tt.body, nil); got != tt.want {
				t.Fatalf("\ngot  %s\nwant %s", got, tt.want)
			}
		})
	}
	t.Run("a notification reaches its handler, survives its panic and gets no answer", func(t *testing.T) {
		req := &jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":3}`)}
		resp := s.Handle(context.Background(), req, nil)
		if !resp.ID.IsZero() || resp.Result != nil || resp.Error != nil {
			t.Fatalf("got an answer %+v", resp)
		}
		if heard[len(heard)-1] != `cancelled {"requestId":3}` {
			t.Fatalf("heard %q", heard)
		}
	})
	t.Run("an unknown notification is dropped", func(t *testing.T) {
		if resp := s.Handle(context.Background(), &jsonrpc.Request{Method: "notifications/initialized"}, nil); !resp.ID.IsZero() || resp.Result != nil || resp.Error != nil {
			t.Fatalf("got an answer %+v", resp)
		}
	})
}

func TestCheck(t *testing.T) {
	tools := mcptest.NewTools(t)
	h := func(context.Context, *jsonrpc.Request, *mcp.RequestContext) (any, error) { return nil, nil }
	tests := []struct {
		name    string
		server  *mcp.Server
		wantErr string
	}{
		{"a router-like server is consistent", mcptest.RouterServer(t), ""},
		{"a server needs a name", &mcp.Server{}, "serverInfo name is empty"},
		{"a broken version policy is reported", &mcp.Server{Info: mcp.Implementation{Name: "x"}, Versions: mcp.Versions{Supported: []string{"a"}, Unknown: "b"}}, `unknown version "b"`},
		{"a handler may not shadow a core method", &mcp.Server{Info: mcp.Implementation{Name: "x"}, Handlers: map[string]mcp.HandlerFunc{"tools/call": h}}, `handler for "tools/call" would shadow`},
		{"a nil handler is reported", &mcp.Server{Info: mcp.Implementation{Name: "x"}, Handlers: map[string]mcp.HandlerFunc{"x/y": nil}}, `handler for "x/y" is nil`},
		{"subscribe needs its handlers", &mcp.Server{Info: mcp.Implementation{Name: "x"}, Resources: mcptest.NewResources(t), Capabilities: mcp.Capabilities{ResourcesSubscribe: true}}, "resources.subscribe declared"},
		{"tools listChanged needs tools", &mcp.Server{Info: mcp.Implementation{Name: "x"}, Capabilities: mcp.Capabilities{ToolsListChanged: true}}, "tools.listChanged declared"},
		{"completions need a handler", &mcp.Server{Info: mcp.Implementation{Name: "x"}, Capabilities: mcp.Capabilities{Completions: true}}, "completions declared"},
		{"listChanged with a provider is fine", &mcp.Server{Info: mcp.Implementation{Name: "x"}, Tools: tools, Capabilities: mcp.Capabilities{ToolsListChanged: true}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.server.Check()
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Check() = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestCapabilityFlags(t *testing.T) {
	h := func(context.Context, *jsonrpc.Request, *mcp.RequestContext) (any, error) { return nil, nil }
	s := &mcp.Server{
		Info: mcp.Implementation{Name: "x", Version: "1"}, Tools: mcptest.NewTools(t), Resources: mcptest.NewResources(t), Prompts: mcptest.Prompts{},
		Capabilities: mcp.Capabilities{ToolsListChanged: true, ResourcesSubscribe: true, ResourcesListChanged: true,
			PromptsListChanged: true, Logging: true, Completions: true},
		Handlers: map[string]mcp.HandlerFunc{"resources/subscribe": h, "resources/unsubscribe": h, "logging/setLevel": h, "completion/complete": h},
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	got := roundTrip(t, s, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`, nil)
	want := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{},"completions":{}},"serverInfo":{"name":"x","version":"1"}}}`
	if got != want {
		t.Fatalf("\ngot  %s\nwant %s", got, want)
	}
}

// countingTools counts list calls, to see the cache at work.
type countingTools struct {
	*mcptest.Tools
	lists int
}

func (c *countingTools) ListTools(ctx context.Context, rc *mcp.RequestContext, cursor string) ([]mcp.Tool, string, error) {
	c.lists++
	return c.Tools.ListTools(ctx, rc, cursor)
}

func TestCacheLists(t *testing.T) {
	tests := []struct {
		name      string
		cache     bool
		wantLists int
	}{
		{"a cached list is built once", true, 1},
		{"an uncached list is built per request", false, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools := &countingTools{Tools: mcptest.NewTools(t)}
			s := &mcp.Server{Info: mcp.Implementation{Name: "x"}, Tools: tools, CacheLists: tt.cache}
			first := roundTrip(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil)
			for range 2 {
				if got := roundTrip(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil); got != first {
					t.Fatalf("answers differ:\n%s\n%s", got, first)
				}
			}
			if tools.lists != tt.wantLists {
				t.Fatalf("ListTools ran %d times, want %d", tools.lists, tt.wantLists)
			}
		})
	}
}

func TestPanicHook(t *testing.T) {
	var method string
	var stack []byte
	s := mcptest.RouterServer(t)
	s.OnPanic = func(m string, v any, st []byte) { method, stack = m, st }
	roundTrip(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"panic"}}`, nil)
	if method != "tools/call" || !strings.Contains(string(stack), "CallTool") {
		t.Fatalf("hook heard method %q with stack %.200s", method, stack)
	}
}

func TestConcurrentRequestsShareTheCachesSafely(t *testing.T) {
	s := mcptest.RouterServer(t)
	s.CacheLists = true
	bodies := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/list"}`,
		`{"jsonrpc":"2.0","id":4,"method":"prompts/list"}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"weather","arguments":{"city":"Porto"}}}`,
	}
	reference := mcptest.RouterServer(t) // answers computed elsewhere, so s starts cold
	want := make([]string, len(bodies))
	for i, b := range bodies {
		want[i] = string(reference.ServeStateless(context.Background(), mcp.HTTPRequest{Method: "POST", Body: []byte(b)}).Body)
	}
	errs := make(chan string, 8*len(bodies))
	done := make(chan struct{})
	for g := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range bodies {
				k := (i + g) % len(bodies)
				got := string(s.ServeStateless(context.Background(), mcp.HTTPRequest{Method: "POST", Body: []byte(bodies[k])}).Body)
				if got != want[k] {
					errs <- got
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Errorf("a concurrent answer differed: %s", e)
	}
}

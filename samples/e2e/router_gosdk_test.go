package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// routerVersion is the newest revision the stateless router speaks; both SDKs
// ask for a newer one and must settle on this.
const routerVersion = "2025-06-18"

// exchange is one HTTP round trip the client made, reduced to what the
// Streamable HTTP rules (mcp-protocol.md §7.2) say about it.
type exchange struct {
	method, rpc, sentSession, sentVersion string
	status                                int
	gotSession, allow                     string
}

func (e exchange) String() string {
	return fmt.Sprintf("%s %s -> %d (sent session %q, version %q; got session %q, Allow %q)",
		e.method, e.rpc, e.status, e.sentSession, e.sentVersion, e.gotSession, e.allow)
}

// wireLog is an http.RoundTripper that records every exchange of the real
// client, so the test can check how it coped with a server without sessions.
type wireLog struct {
	mu  sync.Mutex
	log []exchange
}

func (w *wireLog) RoundTrip(req *http.Request) (*http.Response, error) {
	e := exchange{method: req.Method, sentSession: req.Header.Get("Mcp-Session-Id"), sentVersion: req.Header.Get("MCP-Protocol-Version")}
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		var msg struct{ Method string }
		_ = json.Unmarshal(body, &msg) // a response to the server has no method; "" is what we want then
		e.rpc = msg.Method
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil {
		e.status, e.gotSession, e.allow = resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), resp.Header.Get("Allow")
	}
	w.mu.Lock()
	w.log = append(w.log, e)
	w.mu.Unlock()
	return resp, err
}

func (w *wireLog) exchanges() []exchange {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]exchange(nil), w.log...)
}

// TestGoSDKClientUsesTheRouterSample drives the mcp-router sample with the
// official Go SDK client over Streamable HTTP. The transport needs no special
// setting: the SDK probes server/discover first, falls back to initialize on
// the 400, treats the 405 on GET as "no standalone stream" and sends no
// session id because it never got one.
func TestGoSDKClientUsesTheRouterSample(t *testing.T) {
	base, _ := runSample(t, "mcp-router")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	wire := &wireLog{}
	client := mcp.NewClient(&mcp.Implementation{Name: "octo-e2e", Version: "1"}, nil)
	transport := &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: wire}}
	cs, err := client.Connect(ctx, transport, sessionRevision) // the initialize wire is under test
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, exchangesText(wire.exchanges()))
	}
	defer func() {
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}()

	checks := []struct {
		name  string
		check func(t *testing.T, ctx context.Context, cs *mcp.ClientSession) error
	}{
		{"the handshake names the server and settles on the router's newest revision", checkGoInitialize},
		{"the stateless transport is used without a session and GET is refused with 405", func(t *testing.T, _ context.Context, _ *mcp.ClientSession) error {
			return checkStatelessWire(wire.exchanges())
		}},
		{"the tool list carries title, annotations and both schemas", checkGoToolList},
		{"a forecast for Lisbon returns the JSON as text and as structured content", checkGoForecast},
		{"a city that is not a string is a tool error naming the field", checkGoForecastWrongType},
		{"the resource list holds the guide", checkGoResourceList},
		{"the template list holds the city briefing", checkGoTemplateList},
		{"the guide reads as the markdown file", checkGoReadGuide},
		{"a percent-encoded city reads back decoded", checkGoReadCity},
		{"the prompt list describes assist and its required argument", checkGoPromptList},
		{"assist for Porto is one user message naming Porto", checkGoAssist},
		{"assist without a city is an invalid-params error naming it", checkGoAssistWithoutCity},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if err := c.check(t, ctx, cs); err != nil {
				t.Fatalf("%v\nwire:\n%s", err, exchangesText(wire.exchanges()))
			}
		})
	}
	t.Logf("wire:\n%s", exchangesText(wire.exchanges()))
}

func exchangesText(log []exchange) string {
	var b strings.Builder
	for _, e := range log {
		b.WriteString("  " + e.String() + "\n")
	}
	return b.String()
}

func checkGoInitialize(_ *testing.T, _ context.Context, cs *mcp.ClientSession) error {
	res := cs.InitializeResult()
	if res.ServerInfo == nil || res.ServerInfo.Name != "weather-tools" {
		return fmt.Errorf("serverInfo = %+v, want name weather-tools", res.ServerInfo)
	}
	if res.ProtocolVersion != routerVersion {
		return fmt.Errorf("protocolVersion = %q, want %q", res.ProtocolVersion, routerVersion)
	}
	if c := res.Capabilities; c == nil || c.Tools == nil || c.Resources == nil || c.Prompts == nil || c.Logging != nil || c.Completions != nil {
		return fmt.Errorf("capabilities = %+v, want exactly tools, resources and prompts", c)
	}
	return nil
}

// checkStatelessWire holds the client to what a stateless server means: no
// request carries a session id because no answer gave one, the one GET was
// refused with 405 and Allow: POST, and every POST after the handshake names
// the negotiated revision.
func checkStatelessWire(log []exchange) error {
	gets, initialized := 0, false
	for _, e := range log {
		if e.sentSession != "" || e.gotSession != "" {
			return fmt.Errorf("a session id crossed the wire: %v", e)
		}
		switch {
		case e.method == http.MethodGet:
			gets++
			if e.status != http.StatusMethodNotAllowed || e.allow != "POST" {
				return fmt.Errorf("GET answered %v, want 405 with Allow: POST", e)
			}
		case e.method == http.MethodPost && e.rpc == "initialize":
			initialized = e.status == http.StatusOK
		case e.method == http.MethodPost && initialized && e.sentVersion != routerVersion:
			return fmt.Errorf("a request after initialize sent MCP-Protocol-Version %q: %v", e.sentVersion, e)
		}
	}
	if !initialized || gets != 1 {
		return fmt.Errorf("want one 200 initialize and one GET, got initialized=%v and %d GETs", initialized, gets)
	}
	return nil
}

func checkGoToolList(t *testing.T, ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	want := []*mcp.Tool{{
		Name:         "forecast",
		Title:        "Weather forecast",
		Description:  "Return a short weather forecast for a city.",
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(true)},
		InputSchema:  jsonValue(t, `{"type":"object","required":["city"],"properties":{"city":{"type":"string"}}}`),
		OutputSchema: jsonValue(t, `{"type":"object","properties":{"city":{"type":"string"},"summary":{"type":"string"}},"required":["city","summary"]}`),
	}}
	if res.NextCursor != "" || !reflect.DeepEqual(res.Tools, want) {
		return fmt.Errorf("tools/list = %s (nextCursor %q), want %s", jsonText(res.Tools), res.NextCursor, jsonText(want))
	}
	return nil
}

func checkGoForecast(_ *testing.T, ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{"city": "Lisbon"}})
	if err != nil {
		return err
	}
	want := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: `{"city":"Lisbon","summary":"Sunny, 24C"}`}},
		StructuredContent: map[string]any{"city": "Lisbon", "summary": "Sunny, 24C"},
	}
	if res.IsError || !reflect.DeepEqual(res.Content, want.Content) || !reflect.DeepEqual(res.StructuredContent, want.StructuredContent) {
		return fmt.Errorf("tools/call = %s, want %s", jsonText(res), jsonText(want))
	}
	return nil
}

func checkGoForecastWrongType(_ *testing.T, ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{"city": 42}})
	if err != nil {
		return fmt.Errorf("a schema failure must be a tool result, not a protocol error: %w", err)
	}
	if !res.IsError || res.StructuredContent != nil || len(res.Content) != 1 {
		return fmt.Errorf("tools/call = %s, want isError with one text block and no structuredContent", jsonText(res))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok || !strings.Contains(text.Text, `"city"`) {
		return fmt.Errorf("error content %s does not name the field \"city\"", jsonText(res.Content))
	}
	return nil
}

func checkGoResourceList(_ *testing.T, ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		return err
	}
	want := []*mcp.Resource{{URI: "octo://guide", Name: "guide", Description: "Operator guide for the weather tools.", MIMEType: "text/markdown"}}
	if res.NextCursor != "" || !reflect.DeepEqual(res.Resources, want) {
		return fmt.Errorf("resources/list = %s, want %s", jsonText(res.Resources), jsonText(want))
	}
	return nil
}

func checkGoTemplateList(_ *testing.T, ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		return err
	}
	want := []*mcp.ResourceTemplate{{URITemplate: "octo://city/{city}", Name: "city-briefing", Description: "A briefing for any city.", MIMEType: "text/markdown"}}
	if res.NextCursor != "" || !reflect.DeepEqual(res.ResourceTemplates, want) {
		return fmt.Errorf("resources/templates/list = %s, want %s", jsonText(res.ResourceTemplates), jsonText(want))
	}
	return nil
}

func checkGoReadGuide(_ *testing.T, ctx context.Context, cs *mcp.ClientSession) error {
	guide, err := os.ReadFile(filepath.Join(repoRoot(), "samples", "mcp-router", "guide.md"))
	if err != nil {
		return err
	}
	return readExactly(ctx, cs, "octo://guide", string(guide))
}

func checkGoReadCity(_ *testing.T, ctx context.Context, cs *mcp.ClientSession) error {
	return readExactly(ctx, cs, "octo://city/S%C3%A3o%20Paulo",
		"# São Paulo\n\nA city profile for São Paulo. Ask the forecast tool for today's weather there.\n")
}

// readExactly reads uri and wants one markdown text content under the same
// uri, as it was asked for.
func readExactly(ctx context.Context, cs *mcp.ClientSession, uri, text string) error {
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return err
	}
	want := []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}
	if !reflect.DeepEqual(res.Contents, want) {
		return fmt.Errorf("resources/read %s = %s, want %s", uri, jsonText(res.Contents), jsonText(want))
	}
	return nil
}

func checkGoPromptList(_ *testing.T, ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		return err
	}
	want := []*mcp.Prompt{{
		Name:        "assist",
		Description: "Prime an assistant to help a user in a given city.",
		Arguments:   []*mcp.PromptArgument{{Name: "city", Description: "The user's city.", Required: true}},
	}}
	if res.NextCursor != "" || !reflect.DeepEqual(res.Prompts, want) {
		return fmt.Errorf("prompts/list = %s, want %s", jsonText(res.Prompts), jsonText(want))
	}
	return nil
}

func checkGoAssist(_ *testing.T, ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "assist", Arguments: map[string]string{"city": "Porto"}})
	if err != nil {
		return err
	}
	want := &mcp.GetPromptResult{
		Description: "Prime an assistant to help a user in a given city.",
		Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{
			Text: "You are helping a user in Porto. Offer to fetch the forecast with the\n`forecast` tool, and keep answers short and friendly.\n",
		}}},
	}
	if res.Description != want.Description || !reflect.DeepEqual(res.Messages, want.Messages) {
		return fmt.Errorf("prompts/get = %s, want %s", jsonText(res), jsonText(want))
	}
	return nil
}

func checkGoAssistWithoutCity(_ *testing.T, ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "assist"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		return fmt.Errorf("prompts/get without city = %s, %v; want a JSON-RPC error", jsonText(res), err)
	}
	if rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpcErr.Message, "city") {
		return fmt.Errorf("error %d %q, want %d naming city", rpcErr.Code, rpcErr.Message, jsonrpc.CodeInvalidParams)
	}
	return nil
}

// jsonValue decodes a literal the way the SDK decodes an untyped field.
func jsonValue(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad literal %s: %v", s, err)
	}
	return v
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}

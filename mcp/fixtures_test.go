package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/schema"
	"github.com/octo-run/octo/mcp/uritemplate"
)

// The providers below are small, real implementations of the provider
// interfaces: they exercise the server the way the router and mock will.

var weatherSchema = `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1}},"required":["city"]}`

type testTools struct {
	weather *schema.Schema
}

func newTestTools(t testing.TB) *testTools {
	s, err := schema.Compile([]byte(weatherSchema))
	if err != nil {
		t.Fatal(err)
	}
	return &testTools{weather: s}
}

func (p *testTools) ListTools(_ context.Context, _ *RequestContext, cursor string) ([]Tool, string, error) {
	if cursor != "" {
		return nil, "", ErrInvalidCursor
	}
	ro := true
	return []Tool{
		{Name: "echo", Description: "Echoes its arguments."},
		{Name: "weather", Title: "Weather", InputSchema: p.weather.Raw(),
			Annotations: &ToolAnnotations{ReadOnlyHint: &ro}},
	}, "", nil
}

func (p *testTools) CallTool(ctx context.Context, rc *RequestContext, name string, args json.RawMessage) (*CallToolResult, error) {
	switch name {
	case "echo":
		return &CallToolResult{Content: []Content{TextContent(string(args))}}, nil
	case "big": // n x's: an answer much larger than its request
		var a struct{ N int }
		_ = json.Unmarshal(args, &a)
		return &CallToolResult{Content: []Content{TextContent(strings.Repeat("x", a.N))}}, nil
	case "weather":
		if err := p.weather.Validate(args); err != nil {
			return ToolError(err.Error()), nil
		}
		var a struct{ City string }
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		return &CallToolResult{
			Content:           []Content{TextContent("sunny in " + a.City)},
			StructuredContent: map[string]any{"city": a.City, "sky": "sunny"},
		}, nil
	case "whoami":
		_ = rc.Progress(ctx, 1, 2, "halfway")
		return &CallToolResult{Content: []Content{TextContent(fmt.Sprintf("sub=%v version=%s token=%s id=%s",
			rc.Vars["sub"], rc.Version, rc.ProgressToken, rc.RequestID))}}, nil
	case "link":
		return &CallToolResult{Content: []Content{ResourceLink(Resource{URI: "docs://readme", Name: "readme"})}}, nil
	case "greet": // asks the user's name (over the session, or as a 2026-07-28 input request)
		reply, err := rc.Ask(ctx, "who", "elicitation/create", map[string]any{"message": "Your name?",
			"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
		if err != nil {
			return nil, err
		}
		var a struct{ Content struct{ Name string } }
		_ = json.Unmarshal(reply, &a)
		return &CallToolResult{Content: []Content{TextContent("hello " + a.Content.Name)}}, nil
	case "nothing":
		return nil, nil
	case "panic":
		panic("boom")
	case "fail":
		return nil, errors.New("backend down")
	case "rpcfail":
		return nil, jsonrpc.NewError(-32000, "quota exceeded")
	}
	return nil, fmt.Errorf("tool %q: %w", name, ErrUnknownTool)
}

type testResources struct {
	city *uritemplate.Template
}

func newTestResources(t testing.TB) *testResources {
	tpl, err := uritemplate.Parse("weather://{city}/today")
	if err != nil {
		t.Fatal(err)
	}
	return &testResources{city: tpl}
}

func (p *testResources) ListResources(context.Context, *RequestContext, string) ([]Resource, string, error) {
	return []Resource{{URI: "docs://readme", Name: "readme", MimeType: "text/markdown"}}, "", nil
}

func (p *testResources) ListResourceTemplates(context.Context, *RequestContext, string) ([]ResourceTemplate, string, error) {
	return []ResourceTemplate{{URITemplate: p.city.String(), Name: "forecast"}}, "", nil
}

func (p *testResources) ReadResource(_ context.Context, _ *RequestContext, uri string) ([]ResourceContents, error) {
	if uri == "docs://readme" {
		return []ResourceContents{{URI: uri, MimeType: "text/markdown", Text: "# Hello"}}, nil
	}
	if uri == "img://empty" {
		return nil, nil
	}
	if vars, ok := p.city.Match(uri); ok {
		return []ResourceContents{{URI: uri, Text: "sunny in " + vars["city"]}}, nil
	}
	return nil, ErrResourceNotFound
}

// testPrompts serves two pages, so lookups must follow the cursor.
type testPrompts struct{}

func (testPrompts) ListPrompts(_ context.Context, _ *RequestContext, cursor string) ([]Prompt, string, error) {
	switch cursor {
	case "":
		return []Prompt{{Name: "greet", Arguments: []PromptArgument{{Name: "who", Required: true}}}}, "page2", nil
	case "page2":
		return []Prompt{{Name: "restock_plan", Description: "Restock plan",
			Arguments: []PromptArgument{{Name: "warehouse", Required: true}, {Name: "tone"}}}}, "", nil
	}
	return nil, "", ErrInvalidCursor
}

func (testPrompts) GetPrompt(_ context.Context, _ *RequestContext, name string, args map[string]string) (*GetPromptResult, error) {
	text := "Hello " + args["who"]
	if name == "restock_plan" {
		text = "Draft a restock plan for warehouse " + args["warehouse"] + "."
	}
	return &GetPromptResult{Description: name, Messages: []PromptMessage{{Role: "user", Content: TextContent(text)}}}, nil
}

// newRouterServer is a server configured the way mcp-router is.
func newRouterServer(t testing.TB) *Server {
	s := &Server{
		Info:         Implementation{Name: "test", Title: "Test", Version: "1.0.0"},
		Instructions: "Be nice.",
		Versions:     RouterVersions,
		Tools:        newTestTools(t),
		Resources:    newTestResources(t),
		Prompts:      testPrompts{},
		UnknownTool:  UnknownToolAsResult,
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	return s
}

// recorder is a Notifier that keeps what it was asked to send.
type recorder struct{ sent []string }

func (r *recorder) Notify(_ context.Context, method string, params any) error {
	b, err := jsonrpc.EncodeNotification(method, params)
	if err != nil {
		return err
	}
	r.sent = append(r.sent, string(b))
	return nil
}

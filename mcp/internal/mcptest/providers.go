// Package mcptest holds the small, real providers and helpers the tests of mcp and
// mcp/session share: a server configured as mcp-router's is, a tool that runs as a task, and
// clients of the 2026-07-28 revision over a real socket. It uses the core's exported API only.
package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/schema"
	"github.com/octo-run/octo/mcp/uritemplate"
)

// The providers below are small, real implementations of the provider
// interfaces: they exercise the server the way the router and mock will.

// WeatherSchema is the weather tool's input schema: a city, and days of at least 1.
var WeatherSchema = `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1}},"required":["city"]}`

// Tools are echo, weather, whoami, link, greet (which asks), big, nothing, panic, fail and
// rpcfail, each showing one way a tool answers.
type Tools struct {
	weather *schema.Schema
}

// NewTools returns the tools, their schema compiled.
func NewTools(t testing.TB) *Tools {
	s, err := schema.Compile([]byte(WeatherSchema))
	if err != nil {
		t.Fatal(err)
	}
	return &Tools{weather: s}
}

func (p *Tools) ListTools(_ context.Context, _ *mcp.RequestContext, cursor string) ([]mcp.Tool, string, error) {
	if cursor != "" {
		return nil, "", mcp.ErrInvalidCursor
	}
	ro := true
	return []mcp.Tool{
		{Name: "echo", Description: "Echoes its arguments."},
		{Name: "weather", Title: "Weather", InputSchema: p.weather.Raw(),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: &ro}},
	}, "", nil
}

func (p *Tools) CallTool(ctx context.Context, rc *mcp.RequestContext, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	switch name {
	case "echo":
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(string(args))}}, nil
	case "big": // n x's: an answer much larger than its request
		var a struct{ N int }
		_ = json.Unmarshal(args, &a)
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(strings.Repeat("x", a.N))}}, nil
	case "weather":
		if err := p.weather.Validate(args); err != nil {
			return mcp.ToolError(err.Error()), nil
		}
		var a struct{ City string }
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{mcp.TextContent("sunny in " + a.City)},
			StructuredContent: map[string]any{"city": a.City, "sky": "sunny"},
		}, nil
	case "whoami":
		_ = rc.Progress(ctx, 1, 2, "halfway")
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(fmt.Sprintf("sub=%v version=%s token=%s id=%s",
			rc.Vars["sub"], rc.Version, rc.ProgressToken, rc.RequestID))}}, nil
	case "link":
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.ResourceLink(mcp.Resource{URI: "docs://readme", Name: "readme"})}}, nil
	case "greet": // asks the user's name (over the session, or as a 2026-07-28 input request)
		Reply, err := rc.Ask(ctx, "who", "elicitation/create", map[string]any{"message": "Your name?",
			"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
		if err != nil {
			return nil, err
		}
		var a struct{ Content struct{ Name string } }
		_ = json.Unmarshal(Reply, &a)
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("hello " + a.Content.Name)}}, nil
	case "nothing":
		return nil, nil
	case "panic":
		panic("boom")
	case "fail":
		return nil, errors.New("backend down")
	case "rpcfail":
		return nil, jsonrpc.NewError(-32000, "quota exceeded")
	}
	return nil, fmt.Errorf("tool %q: %w", name, mcp.ErrUnknownTool)
}

// Resources are docs://readme and the template weather://{city}/today.
type Resources struct {
	city *uritemplate.Template
}

// NewResources returns the resources, their template parsed.
func NewResources(t testing.TB) *Resources {
	tpl, err := uritemplate.Parse("weather://{city}/today")
	if err != nil {
		t.Fatal(err)
	}
	return &Resources{city: tpl}
}

func (p *Resources) ListResources(context.Context, *mcp.RequestContext, string) ([]mcp.Resource, string, error) {
	return []mcp.Resource{{URI: "docs://readme", Name: "readme", MimeType: "text/markdown"}}, "", nil
}

func (p *Resources) ListResourceTemplates(context.Context, *mcp.RequestContext, string) ([]mcp.ResourceTemplate, string, error) {
	return []mcp.ResourceTemplate{{URITemplate: p.city.String(), Name: "forecast"}}, "", nil
}

func (p *Resources) ReadResource(_ context.Context, _ *mcp.RequestContext, uri string) ([]mcp.ResourceContents, error) {
	if uri == "docs://readme" {
		return []mcp.ResourceContents{{URI: uri, MimeType: "text/markdown", Text: "# Hello"}}, nil
	}
	if uri == "img://empty" {
		return nil, nil
	}
	if vars, ok := p.city.Match(uri); ok {
		return []mcp.ResourceContents{{URI: uri, Text: "sunny in " + vars["city"]}}, nil
	}
	return nil, mcp.ErrResourceNotFound
}

// Prompts serves two pages, so lookups must follow the cursor.
type Prompts struct{}

func (Prompts) ListPrompts(_ context.Context, _ *mcp.RequestContext, cursor string) ([]mcp.Prompt, string, error) {
	switch cursor {
	case "":
		return []mcp.Prompt{{Name: "greet", Arguments: []mcp.PromptArgument{{Name: "who", Required: true}}}}, "page2", nil
	case "page2":
		return []mcp.Prompt{{Name: "restock_plan", Description: "Restock plan",
			Arguments: []mcp.PromptArgument{{Name: "warehouse", Required: true}, {Name: "tone"}}}}, "", nil
	}
	return nil, "", mcp.ErrInvalidCursor
}

func (Prompts) GetPrompt(_ context.Context, _ *mcp.RequestContext, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	text := "Hello " + args["who"]
	if name == "restock_plan" {
		text = "Draft a restock plan for warehouse " + args["warehouse"] + "."
	}
	return &mcp.GetPromptResult{Description: name, Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent(text)}}}, nil
}

// RouterServer is a server configured the way mcp-router is.
func RouterServer(t testing.TB) *mcp.Server {
	s := &mcp.Server{
		Info:         mcp.Implementation{Name: "test", Title: "Test", Version: "1.0.0"},
		Instructions: "Be nice.",
		Versions:     mcp.RouterVersions,
		Tools:        NewTools(t),
		Resources:    NewResources(t),
		Prompts:      Prompts{},
		UnknownTool:  mcp.UnknownToolAsResult,
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	return s
}

// Recorder is a Notifier that keeps what it was asked to send.
type Recorder struct{ Sent []string }

func (r *Recorder) Notify(_ context.Context, method string, params any) error {
	b, err := jsonrpc.EncodeNotification(method, params)
	if err != nil {
		return err
	}
	r.Sent = append(r.Sent, string(b))
	return nil
}

// ModernPost builds a 2026-07-28 POST: params gain the _meta the revision requires (caps are
// the client's capabilities), and the headers mirror the body unless header overrides them
// ("" removes one).
func ModernPost(method, params, caps string, header ...string) mcp.HTTPRequest {
	if params == "" {
		params = "{}"
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	if params != "{}" {
		meta += ","
	}
	body := `{"jsonrpc":"2.0","id":9,"method":"` + method + `","params":{` + meta + params[1:] + `}`
	h := http.Header{"Mcp-Protocol-Version": {mcp.Version20260728}, "Mcp-Method": {method}}
	var p map[string]any
	_ = json.Unmarshal([]byte(params), &p)
	if name, ok := p["name"].(string); ok {
		h.Set(mcp.HeaderName, name)
	} else if uri, ok := p["uri"].(string); ok {
		h.Set(mcp.HeaderName, uri)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			h.Del(header[i])
		} else {
			h.Set(header[i], header[i+1])
		}
	}
	return mcp.HTTPRequest{Method: http.MethodPost, Header: h, Body: []byte(body)}
}

// StatelessHandler is the thinnest possible HTTP adapter, as a connector
// would write it.
func StatelessHandler(s *mcp.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out := s.ServeStateless(r.Context(), mcp.HTTPRequest{Method: r.Method, Header: r.Header, Body: body})
		for k, v := range out.Header {
			w.Header()[k] = v
		}
		if out.ContentType != "" {
			w.Header().Set("Content-Type", out.ContentType)
		}
		w.WriteHeader(out.Status)
		_, _ = w.Write(out.Body)
	})
}

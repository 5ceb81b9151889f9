package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/octo-run/octo/mcp"
)

// Ping asks the server to answer at once.
func (c *Client) Ping(ctx context.Context) error {
	_, err := c.request(ctx, "ping", nil, nil)
	return err
}

// ListTools lists every tool, following nextCursor.
func (c *Client) ListTools(ctx context.Context) ([]mcp.Tool, error) {
	return listAll[mcp.Tool](ctx, c, "tools/list", "tools")
}

// ListResources lists every resource, following nextCursor.
func (c *Client) ListResources(ctx context.Context) ([]mcp.Resource, error) {
	return listAll[mcp.Resource](ctx, c, "resources/list", "resources")
}

// ListResourceTemplates lists every resource template, following nextCursor.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]mcp.ResourceTemplate, error) {
	return listAll[mcp.ResourceTemplate](ctx, c, "resources/templates/list", "resourceTemplates")
}

// ListPrompts lists every prompt, following nextCursor.
func (c *Client) ListPrompts(ctx context.Context) ([]mcp.Prompt, error) {
	return listAll[mcp.Prompt](ctx, c, "prompts/list", "prompts")
}

type cursorParams struct {
	Cursor string `json:"cursor,omitempty"`
}

// listAll follows a list's pages, at most Options.MaxPages of them; a
// cursor the server repeats ends the walk as an error rather than a loop.
func listAll[T any](ctx context.Context, c *Client, method, member string) ([]T, error) {
	out := []T{}
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page == c.opts.MaxPages {
			return nil, fmt.Errorf("%s: %w", method, protocolErrorf("more than %d pages", c.opts.MaxPages))
		}
		var params any
		if cursor != "" {
			params = cursorParams{cursor}
		}
		raw, err := c.request(ctx, method, params, nil)
		if err != nil {
			return nil, err
		}
		var res map[string]json.RawMessage
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("%s: %w", method, protocolErrorf("result: %v", err))
		}
		var items []T
		if err := json.Unmarshal(res[member], &items); err != nil {
			return nil, fmt.Errorf("%s: %w", method, protocolErrorf("%s: %v", member, err))
		}
		out = append(out, items...)
		if err := json.Unmarshal(res["nextCursor"], &cursor); err != nil || cursor == "" {
			return out, nil
		}
		if seen[cursor] {
			return nil, fmt.Errorf("%s: %w", method, protocolErrorf("the server repeated the cursor %q", cursor))
		}
		seen[cursor] = true
	}
}

// CallOptions tune one tool call.
type CallOptions struct {
	// Progress, when set, asks for progress and receives each notification
	// (from the goroutine reading the connection: return quickly).
	Progress func(Progress)
	// OnRequest, when set, answers what the server asks the client while the call runs
	// (elicitation/create, sampling/createMessage, roots/list): a question on the call's own
	// event stream, or, where a stream carries no one call's messages (stdio, the legacy
	// transport), while it is the only call in flight that answers questions. Declare what it
	// answers in Options.Capabilities. An error that is a *jsonrpc.Error is the answer as
	// written; any other is an internal error.
	OnRequest Asker
	// Meta goes in the call's params._meta: the W3C trace context (traceparent, tracestate),
	// as the MCP semantic conventions carry it. Over HTTP, its traceparent and tracestate are
	// the POST's headers too, for a server whose HTTP layer reads them.
	Meta map[string]string
}

// traceHeadersKey holds a call's Meta in its context, for the HTTP transport's headers.
type traceHeadersKey struct{}

// traceHeaders sets the W3C trace context headers of a call's Meta on req.
func traceHeaders(ctx context.Context, req *http.Request) {
	meta, _ := ctx.Value(traceHeadersKey{}).(map[string]string)
	for _, k := range [...]string{"traceparent", "tracestate"} {
		if v := meta[k]; v != "" {
			req.Header.Set(k, v)
		}
	}
}

// Asker answers a request of the server's: its result, or an error.
type Asker func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)

type callParams struct {
	Name      string            `json:"name"`
	Arguments json.RawMessage   `json:"arguments,omitempty"`
	Meta      map[string]string `json:"_meta,omitempty"`
}

// callResultWire decodes a tools/call result, keeping structuredContent as
// its JSON text.
type callResultWire struct {
	Content           []mcp.Content   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              map[string]any  `json:"_meta,omitempty"`
}

// CallTool calls a tool with arguments (a JSON object, or nil for none). A
// tool that failed is a result with IsError, not an error; its
// StructuredContent, when present, is a json.RawMessage.
func (c *Client) CallTool(ctx context.Context, name string, args json.RawMessage, opts CallOptions) (*mcp.CallToolResult, error) {
	if opts.OnRequest != nil {
		ctx = context.WithValue(ctx, askerKey{}, opts.OnRequest)
	}
	if opts.Meta["traceparent"] != "" {
		ctx = context.WithValue(ctx, traceHeadersKey{}, opts.Meta)
	}
	raw, err := c.request(ctx, "tools/call", callParams{Name: name, Arguments: args, Meta: opts.Meta}, opts.Progress)
	if err != nil {
		return nil, err
	}
	var w callResultWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("tools/call: %w", protocolErrorf("result: %v", err))
	}
	res := &mcp.CallToolResult{Content: w.Content, IsError: w.IsError, Meta: w.Meta}
	if len(w.StructuredContent) > 0 && string(w.StructuredContent) != "null" {
		res.StructuredContent = w.StructuredContent
	}
	return res, nil
}

// ReadResource reads the contents at uri.
func (c *Client) ReadResource(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
	raw, err := c.request(ctx, "resources/read", struct {
		URI string `json:"uri"`
	}{uri}, nil)
	if err != nil {
		return nil, err
	}
	var res struct {
		Contents []mcp.ResourceContents `json:"contents"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("resources/read: %w", protocolErrorf("result: %v", err))
	}
	return res.Contents, nil
}

// GetPrompt gets a prompt with its arguments (values are strings).
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	raw, err := c.request(ctx, "prompts/get", struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments,omitempty"`
	}{name, args}, nil)
	if err != nil {
		return nil, err
	}
	var res mcp.GetPromptResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("prompts/get: %w", protocolErrorf("result: %v", err))
	}
	return &res, nil
}

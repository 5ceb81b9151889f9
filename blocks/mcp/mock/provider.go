package mock

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/octo-run/octo/blocks/mockkit/placeholder"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/schema"
	"github.com/octo-run/octo/mcp/session"
)

// provider serves tools, resources and prompts from the current catalog.
// A live edit swaps the catalog; a request already running keeps the one it
// started with.
type provider struct {
	cat     atomic.Pointer[catalog]
	rand    *placeholder.Rand          // nil: the placeholder package's own
	observe func(session.TrafficEvent) // the traffic log's, for notes (answers.go); nil: none
}

func (p *provider) current() *catalog { return p.cat.Load() }

// atMostOnce reports whether the tool, as the settings serving now have it, fails a lost task
// rather than run it again (cluster.Options.AtMostOnce).
func (p *provider) atMostOnce(name string) bool {
	t := p.current().toolByName[name]
	return t != nil && t.once
}

// ListTools lists the enabled tools in the order written.
func (p *provider) ListTools(context.Context, *mcp.RequestContext, string) ([]mcp.Tool, string, error) {
	return p.current().toolList, "", nil
}

// CallTool answers a call from the tool's settings.
func (p *provider) CallTool(ctx context.Context, rc *mcp.RequestContext, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	t := p.current().toolByName[name]
	if t == nil {
		return nil, mcp.ErrUnknownTool
	}
	return t.call(ctx, rc, args, p)
}

// ParamHeaders returns the arguments a tool mirrors in Mcp-Param headers (x-mcp-header).
func (p *provider) ParamHeaders(name string) []schema.ParamHeader {
	if t := p.current().toolByName[name]; t != nil {
		return t.input.ParamHeaders()
	}
	return nil
}

// ListResources lists the resources with fixed URIs.
func (p *provider) ListResources(context.Context, *mcp.RequestContext, string) ([]mcp.Resource, string, error) {
	return p.current().resourceList, "", nil
}

// ListResourceTemplates lists the resources whose URIs are templates.
func (p *provider) ListResourceTemplates(context.Context, *mcp.RequestContext, string) ([]mcp.ResourceTemplate, string, error) {
	return p.current().templateList, "", nil
}

// ReadResource answers a fixed URI, else the first template it fits.
func (p *provider) ReadResource(_ context.Context, rc *mcp.RequestContext, uri string) ([]mcp.ResourceContents, error) {
	cat := p.current()
	if r := cat.resourceByURI[uri]; r != nil {
		return r.read(rc, uri, nil, p.rand)
	}
	for _, r := range cat.templates {
		if params, ok := r.tmpl.Match(uri); ok {
			return r.read(rc, uri, params, p.rand)
		}
	}
	return nil, mcp.ErrResourceNotFound
}

// ListPrompts lists the enabled prompts in the order written.
func (p *provider) ListPrompts(context.Context, *mcp.RequestContext, string) ([]mcp.Prompt, string, error) {
	return p.current().promptList, "", nil
}

// GetPrompt renders a prompt; the server has checked its arguments.
func (p *provider) GetPrompt(ctx context.Context, rc *mcp.RequestContext, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	pr := p.current().promptByName[name]
	if pr == nil {
		return nil, mcp.ErrUnknownPrompt
	}
	return pr.get(ctx, rc, args, p.rand)
}

var (
	_ mcp.ToolProvider     = (*provider)(nil)
	_ mcp.ToolParamHeaders = (*provider)(nil)
	_ mcp.ResourceProvider = (*provider)(nil)
	_ mcp.PromptProvider   = (*provider)(nil)
)

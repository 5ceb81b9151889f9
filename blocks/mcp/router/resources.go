package router

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/uritemplate"
	"github.com/octo-run/octo/runtime"
)

// resources serves fixed URIs and URI templates from template resources.
type resources struct {
	list      []mcp.Resource
	templates []mcp.ResourceTemplate
	fixed     map[string]*resource
	matchers  []*resource // templates, in declaration order
	// complete are the suggestions for the templates' parts, by template as written.
	complete map[string]*completer
}

type resource struct {
	uri      string
	pattern  *uritemplate.Template
	mimeType string
	text     *runtime.Template // or
	branch   runtime.Block
	binary   bool // the text is base64 data, sent as the blob
}

func buildResources(b *runtime.Build, confs []resourceSettings) *resources {
	rs := &resources{fixed: map[string]*resource{}, list: []mcp.Resource{}, templates: []mcp.ResourceTemplate{}, complete: map[string]*completer{}}
	for i := range confs {
		c := &confs[i]
		if (c.URI == "") == (c.URITemplate == "") {
			b.Errorf(c, "a resource needs exactly one of uri or uriTemplate")
			continue
		}
		r := &resource{uri: c.URI, mimeType: c.MimeType, text: &c.Resource.Template, branch: c.Process.Block, binary: c.Binary}
		if written(b, c, "resource") == written(b, c, "process") {
			b.Errorf(c, "a resource needs exactly one of resource (a template) or process (blocks that make its text)")
			continue
		}
		if c.URI != "" && (len(c.Completions) > 0 || c.Complete != nil) {
			b.Errorf(c, "completions and complete are for a uriTemplate's parts; a fixed uri has none")
		}
		if c.URI != "" {
			if _, dup := rs.fixed[c.URI]; dup {
				b.Errorf(&c.URI, "duplicate resource uri %q", c.URI)
				continue
			}
			rs.fixed[c.URI] = r
			rs.list = append(rs.list, mcp.Resource{URI: c.URI, Name: c.Name, Title: c.Title, Description: c.Description, MimeType: c.MimeType})
			continue
		}
		p, err := uritemplate.Parse(c.URITemplate)
		if err != nil {
			b.Errorf(&c.URITemplate, "%v", err)
			continue
		}
		r.pattern = p
		if comp := buildCompleter(b, &c.Completions, c.Complete, p.Names(), "a part of the uriTemplate"); comp != nil {
			rs.complete[c.URITemplate] = comp
		}
		rs.matchers = append(rs.matchers, r)
		rs.templates = append(rs.templates, mcp.ResourceTemplate{URITemplate: c.URITemplate, Name: c.Name, Title: c.Title, Description: c.Description, MimeType: c.MimeType})
	}
	return rs
}

// ListResources lists the fixed URIs.
func (rs *resources) ListResources(context.Context, *mcp.RequestContext, string) ([]mcp.Resource, string, error) {
	return rs.list, "", nil
}

// ListResourceTemplates lists the URI templates.
func (rs *resources) ListResourceTemplates(context.Context, *mcp.RequestContext, string) ([]mcp.ResourceTemplate, string, error) {
	return rs.templates, "", nil
}

// ReadResource renders the resource a URI names: a fixed URI first, then
// the templates in declaration order, each placeholder's value in the body.
func (rs *resources) ReadResource(ctx context.Context, rc *mcp.RequestContext, uri string) ([]mcp.ResourceContents, error) {
	r, body := rs.fixed[uri], map[string]any{}
	if r == nil {
		for _, m := range rs.matchers {
			if vals, ok := m.pattern.Match(uri); ok {
				r = m
				for k, v := range vals {
					body[k] = v
				}
				break
			}
		}
	}
	if r == nil {
		return nil, fmt.Errorf("%w: %s", mcp.ErrResourceNotFound, uri)
	}
	if r.branch != nil {
		text, err := branchText(ctx, r.branch, parentOf(rc).Derive(body))
		if err != nil {
			if runtime.ErrorOf(err).Kind == runtime.KindNotFound {
				return nil, fmt.Errorf("%w: %s", mcp.ErrResourceNotFound, runtime.ErrorOf(err).Msg)
			}
			return nil, err
		}
		return r.contents(uri, text)
	}
	text, err := r.text.Render(parentOf(rc).Derive(body))
	if err != nil {
		return nil, err
	}
	return r.contents(uri, text)
}

// contents is what a read of uri answers: the text, or for a binary resource the blob its text
// encodes (base64); text that is not base64 is an error that says so.
func (r *resource) contents(uri, text string) ([]mcp.ResourceContents, error) {
	if !r.binary {
		return []mcp.ResourceContents{{URI: uri, MimeType: r.mimeType, Text: text}}, nil
	}
	blob, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text))
	if err != nil {
		return nil, fmt.Errorf("resource %s is binary, and its text is not base64: %v", uri, err)
	}
	return []mcp.ResourceContents{{URI: uri, MimeType: r.mimeType, Blob: blob}}, nil
}

// branchText runs a branch and returns its final body as text (runtime.Message.Text).
func branchText(ctx context.Context, branch runtime.Block, m *runtime.Message) (string, error) {
	out, err := branch.Process(ctx, m)
	if err != nil {
		return "", err
	}
	return out.Text()
}

// written reports whether the settings c have the key written (a key left out is positioned at c).
func written(b *runtime.Build, c any, key string) bool {
	pos := b.Positions()
	k, own := pos.Key(c, key), pos.Of(c)
	return k.Line != own.Line || k.Col != own.Col
}

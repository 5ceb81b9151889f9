package mock

import (
	"encoding/base64"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/octo-run/octo/blocks/mockkit/placeholder"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/uritemplate"
	"github.com/octo-run/octo/runtime/config"
)

// resource is one compiled resource: a fixed URI or a URI template.
type resource struct {
	uri      string
	tmpl     *uritemplate.Template // nil for a fixed URI
	mimeType string
	text     *placeholder.Template
	blob     []byte // non-nil for binary resources
	// completions are completion/complete's suggestions for a template's parts, by name.
	completions map[string][]string
	// version changes whenever anything that shapes the resource's contents
	// does, so a live edit knows whom to tell (resources/updated).
	version string
}

func (c *compiler) resources(cat *catalog, confs []resourceConfig) {
	first := map[string]config.Position{}
	for i := range confs {
		rc := &confs[i]
		if !rc.Enabled {
			continue
		}
		if f, dup := first[rc.URI]; dup {
			c.duplicate(&rc.URI, "resource uri", f)
			continue
		}
		r, ok := c.resource(rc)
		if !ok {
			continue
		}
		first[rc.URI] = c.pos.Of(&rc.URI)
		if r.tmpl != nil {
			cat.templates = append(cat.templates, r)
			cat.templateList = append(cat.templateList, mcp.ResourceTemplate{URITemplate: rc.URI, Name: rc.Name,
				Title: rc.Title, Description: rc.Description, MimeType: r.mimeType})
			continue
		}
		cat.resources = append(cat.resources, r)
		cat.resourceByURI[r.uri] = r
		cat.resourceList = append(cat.resourceList, mcp.Resource{URI: rc.URI, Name: rc.Name,
			Title: rc.Title, Description: rc.Description, MimeType: r.mimeType})
	}
}

func (c *compiler) resource(rc *resourceConfig) (*resource, bool) {
	r := &resource{uri: rc.URI, mimeType: rc.MimeType, completions: rc.Completions}
	params := noParams
	if strings.ContainsAny(rc.URI, "{}") {
		t, err := uritemplate.Parse(rc.URI)
		if err != nil {
			c.problem(&rc.URI, "%v; this resource is left out", err)
			return nil, false
		}
		r.tmpl = t
		params = map[string]bool{}
		for _, name := range t.Names() {
			params[name] = true
		}
	}
	if rc.Blob != nil {
		if r.mimeType == "" {
			r.mimeType = "application/octet-stream"
		}
		var ok bool
		if r.blob, ok = c.base64(*rc.Blob, rc.Blob); !ok {
			return nil, false
		}
		if r.blob == nil {
			r.blob = []byte{}
		}
	} else {
		if r.mimeType == "" {
			r.mimeType = "text/plain"
		}
		var ok bool
		if r.text, ok = c.text(*rc.Text, rc.Text, refs{args: noParams, params: params}); !ok {
			return nil, false
		}
	}
	r.version = versionOf(rc, c.vars)
	return r, true
}

// checkResource reports load errors: text or blob, one of them, and completions only for
// parts of its URI template.
func checkResource(rc *resourceConfig, pos *config.Positions, ds *config.Diags) {
	if (rc.Text == nil) == (rc.Blob == nil) {
		*ds = append(*ds, pos.Diag(rc, "a resource needs text or blob (one of them)"))
	}
	if len(rc.Completions) == 0 {
		return
	}
	t, err := uritemplate.Parse(rc.URI)
	if err != nil || len(t.Names()) == 0 {
		*ds = append(*ds, pos.Diag(&rc.Completions, "completions are for the {parts} of a URI template, and %q has none", rc.URI))
		return
	}
	for _, name := range slices.Sorted(maps.Keys(rc.Completions)) {
		if !slices.Contains(t.Names(), name) {
			*ds = append(*ds, pos.Diag(&rc.Completions, "completions for %q, which is not a part of the URI template %q", name, rc.URI))
		}
	}
}

// versionOf fingerprints a resource's settings and the variables its
// templates may use.
func versionOf(rc *resourceConfig, vars map[string]string) string {
	b, _ := json.Marshal(struct {
		R *resourceConfig
		V map[string]string
	}{rc, vars})
	return string(b)
}

// read renders the contents of uri, which matched r; params are the URI
// template parts. The answer's room in the request's budget is reserved
// first.
func (r *resource) read(rc *mcp.RequestContext, uri string, params map[string]string, rnd *placeholder.Rand) ([]mcp.ResourceContents, error) {
	in := placeholder.Input{Params: params}
	size := len(uri) + base64.StdEncoding.EncodedLen(len(r.blob))
	if r.text != nil {
		size += r.text.Size(in)
	}
	if err := rc.Reserve(size); err != nil {
		return nil, err
	}
	out := mcp.ResourceContents{URI: uri, MimeType: r.mimeType, Blob: r.blob}
	if r.text != nil {
		out.Text = r.text.Render(in, rnd)
	}
	return []mcp.ResourceContents{out}, nil
}

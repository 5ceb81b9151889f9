package mock

import (
	"encoding/base64"
	"strings"

	"github.com/octo-run/octo/blocks/mockkit/placeholder"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime/config"
)

// refs are the names an item's templates may use: arguments (nil: any) and
// URI template parts.
type refs struct{ args, params map[string]bool }

// content is one compiled content item; text and URIs are templates, media
// is decoded once.
type content struct {
	kind     string
	text     *placeholder.Template // text, or an embedded resource's text
	uri      *placeholder.Template // embedded resource or link
	data     []byte                // image or audio bytes, or an embedded blob
	mimeType string
	link     mcp.Resource // a link's fixed members
}

// contentKinds are the keys that choose an item's kind, in documented order.
var contentKinds = []string{"text", "image", "audio", "resource", "resourceLink"}

// kindOf names the one kind key set in cc, or reports why there is not one.
func kindOf(cc *contentConfig) (string, string) {
	var set []string
	if cc.Text != nil {
		set = append(set, "text")
	}
	if cc.Image != nil {
		set = append(set, "image")
	}
	if cc.Audio != nil {
		set = append(set, "audio")
	}
	if cc.Resource != nil {
		set = append(set, "resource")
	}
	if cc.ResourceLink != nil {
		set = append(set, "resourceLink")
	}
	switch len(set) {
	case 1:
		return set[0], ""
	case 0:
		return "", "a content item needs one of: " + strings.Join(contentKinds, ", ")
	}
	return "", "a content item takes one of " + strings.Join(contentKinds, ", ") + "; this one has " + strings.Join(set, " and ")
}

// checkContentShape reports what the strict decoder cannot: one kind per
// item, and mimeType only where it means something. These are load errors.
func checkContentShape(cc *contentConfig, pos *config.Positions, ds *config.Diags) {
	kind, msg := kindOf(cc)
	if msg != "" {
		*ds = append(*ds, pos.Diag(cc, "%s", msg))
		return
	}
	if cc.MimeType != "" && kind != "image" && kind != "audio" {
		*ds = append(*ds, pos.Diag(&cc.MimeType, "mimeType belongs to image and audio items; a %s item sets it inside", kind))
	}
	if (kind == "image" || kind == "audio") && cc.MimeType == "" {
		*ds = append(*ds, pos.Diag(cc, "an %s item needs a mimeType (e.g. %s)", kind, map[string]string{"image": "image/png", "audio": "audio/wav"}[kind]))
	}
	if r := cc.Resource; r != nil && (r.Text == nil) == (r.Blob == nil) {
		*ds = append(*ds, pos.Diag(&cc.Resource, "an embedded resource needs text or blob (one of them)"))
	}
}

// content compiles one item of a result or prompt message.
func (c *compiler) content(cc *contentConfig, r refs) (*content, bool) {
	kind, _ := kindOf(cc)
	switch kind {
	case "text":
		t, ok := c.text(*cc.Text, cc.Text, r)
		return &content{kind: mcp.ContentText, text: t}, ok
	case "image":
		data, ok := c.base64(*cc.Image, cc.Image)
		return &content{kind: kind, data: data, mimeType: cc.MimeType}, ok
	case "audio":
		data, ok := c.base64(*cc.Audio, cc.Audio)
		return &content{kind: kind, data: data, mimeType: cc.MimeType}, ok
	case "resource":
		return c.embedded(cc.Resource, r)
	case "resourceLink":
		l := cc.ResourceLink
		uri, ok := c.text(l.URI, &l.URI, r)
		return &content{kind: mcp.ContentResourceLink, uri: uri, link: mcp.Resource{Name: l.Name,
			Title: l.Title, Description: l.Description, MimeType: l.MimeType}}, ok
	}
	return nil, false
}

func (c *compiler) embedded(e *embeddedConfig, r refs) (*content, bool) {
	uri, ok := c.text(e.URI, &e.URI, r)
	out := &content{kind: mcp.ContentResource, uri: uri, mimeType: e.MimeType}
	if e.Blob != nil {
		data, bok := c.base64(*e.Blob, e.Blob)
		out.data = data
		if out.data == nil {
			out.data = []byte{}
		}
		return out, ok && bok
	}
	t, tok := c.text(*e.Text, e.Text, r)
	out.text = t
	return out, ok && tok
}

// text compiles a template written at field and checks the names it uses.
func (c *compiler) text(s string, field any, r refs) (*placeholder.Template, bool) {
	t, ok := c.template(s, field)
	if !ok {
		return nil, false
	}
	return t, c.checkRefs(t, field, r.args, r.params)
}

// base64 decodes media data written at field as base64 (line breaks
// allowed, so long data can be a folded block).
func (c *compiler) base64(s string, field any) ([]byte, bool) {
	clean := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, s)
	b, err := base64.StdEncoding.DecodeString(clean)
	if err != nil {
		c.problem(field, "not valid base64: %v", err)
		return nil, false
	}
	return b, true
}

// size is roughly how many bytes render's block takes once encoded: its
// texts and base64 data, which is what makes an answer large.
func (ct *content) size(in placeholder.Input) int {
	n := base64.StdEncoding.EncodedLen(len(ct.data))
	if ct.text != nil {
		n += ct.text.Size(in)
	}
	if ct.uri != nil {
		n += ct.uri.Size(in)
	}
	return n
}

// render builds the content block for one request.
func (ct *content) render(in placeholder.Input, r *placeholder.Rand) mcp.Content {
	switch ct.kind {
	case mcp.ContentText:
		return mcp.TextContent(ct.text.Render(in, r))
	case mcp.ContentImage:
		return mcp.ImageContent(ct.data, ct.mimeType)
	case mcp.ContentAudio:
		return mcp.AudioContent(ct.data, ct.mimeType)
	case mcp.ContentResource:
		rc := mcp.ResourceContents{URI: ct.uri.Render(in, r), MimeType: ct.mimeType, Blob: ct.data}
		if ct.text != nil {
			rc.Text = ct.text.Render(in, r)
		}
		return mcp.EmbeddedResource(rc)
	}
	link := ct.link
	link.URI = ct.uri.Render(in, r)
	return mcp.ResourceLink(link)
}

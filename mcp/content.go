package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Content block types.
const (
	ContentText         = "text"
	ContentImage        = "image"
	ContentAudio        = "audio"
	ContentResource     = "resource"
	ContentResourceLink = "resource_link"
)

// Content is one content block of a tool result or prompt message. Which
// fields count depends on Type; MarshalJSON writes exactly the members that
// type has, so an empty text is still "text":"".
type Content struct {
	Type string
	// Text is the text of a text block.
	Text string
	// Data is the payload of an image or audio block (base64 on the wire).
	Data []byte
	// MimeType is the type of an image or audio block.
	MimeType string
	// Resource is the embedded resource of a resource block.
	Resource *ResourceContents
	// Link is the target of a resource_link block.
	Link        *Resource
	Annotations *Annotations
	Meta        map[string]any
}

// TextContent returns a text block.
func TextContent(text string) Content { return Content{Type: ContentText, Text: text} }

// ImageContent returns an image block.
func ImageContent(data []byte, mimeType string) Content {
	return Content{Type: ContentImage, Data: data, MimeType: mimeType}
}

// AudioContent returns an audio block (2025-03-26 and later).
func AudioContent(data []byte, mimeType string) Content {
	return Content{Type: ContentAudio, Data: data, MimeType: mimeType}
}

// EmbeddedResource returns a resource block.
func EmbeddedResource(rc ResourceContents) Content {
	return Content{Type: ContentResource, Resource: &rc}
}

// ResourceLink returns a resource_link block (2025-06-18 and later).
func ResourceLink(r Resource) Content { return Content{Type: ContentResourceLink, Link: &r} }

type textJSON struct {
	Type        string         `json:"type"`
	Text        string         `json:"text"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

type mediaJSON struct {
	Type        string         `json:"type"`
	Data        []byte         `json:"data"`
	MimeType    string         `json:"mimeType"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

type resourceJSON struct {
	Type        string            `json:"type"`
	Resource    *ResourceContents `json:"resource"`
	Annotations *Annotations      `json:"annotations,omitempty"`
	Meta        map[string]any    `json:"_meta,omitempty"`
}

type linkJSON struct {
	Type string `json:"type"`
	*Resource
}

// MarshalJSON writes the members of c's type.
func (c Content) MarshalJSON() ([]byte, error) {
	switch c.Type {
	case ContentText:
		return json.Marshal(textJSON{c.Type, c.Text, c.Annotations, c.Meta})
	case ContentImage, ContentAudio:
		data := c.Data
		if data == nil {
			data = []byte{}
		}
		return json.Marshal(mediaJSON{c.Type, data, c.MimeType, c.Annotations, c.Meta})
	case ContentResource:
		if c.Resource == nil {
			return nil, fmt.Errorf("content: resource block without a resource")
		}
		return json.Marshal(resourceJSON{c.Type, c.Resource, c.Annotations, c.Meta})
	case ContentResourceLink:
		if c.Link == nil {
			return nil, fmt.Errorf("content: resource_link block without a link")
		}
		link := *c.Link
		if c.Annotations != nil {
			link.Annotations = c.Annotations
		}
		if c.Meta != nil {
			link.Meta = c.Meta
		}
		return json.Marshal(linkJSON{c.Type, &link})
	}
	return nil, fmt.Errorf("content: unknown type %q", c.Type)
}

// contentWire holds every member any block type has, for decoding.
type contentWire struct {
	Type     string            `json:"type"`
	Text     string            `json:"text"`
	Data     []byte            `json:"data"`
	MimeType string            `json:"mimeType"`
	Resource *ResourceContents `json:"resource"`
	// resource_link members
	URI         string         `json:"uri"`
	Name        string         `json:"name"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Size        *int64         `json:"size"`
	Icons       []Icon         `json:"icons"`
	Annotations *Annotations   `json:"annotations"`
	Meta        map[string]any `json:"_meta"`
}

// UnmarshalJSON reads any block type; an unknown type keeps only Type.
func (c *Content) UnmarshalJSON(b []byte) error {
	var w contentWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = Content{Type: w.Type, Annotations: w.Annotations, Meta: w.Meta}
	switch w.Type {
	case ContentText:
		c.Text = w.Text
	case ContentImage, ContentAudio:
		c.Data, c.MimeType = w.Data, w.MimeType
	case ContentResource:
		c.Resource = w.Resource
	case ContentResourceLink:
		c.Link = &Resource{URI: w.URI, Name: w.Name, Title: w.Title, Description: w.Description,
			MimeType: w.MimeType, Size: w.Size, Icons: w.Icons, Annotations: w.Annotations, Meta: w.Meta}
		c.Annotations, c.Meta = nil, nil
	}
	return nil
}

// ResourceContents is what resources/read returns per URI: Text, or Blob when
// Blob is non-nil (never both).
type ResourceContents struct {
	URI      string
	MimeType string
	Text     string
	Blob     []byte
	Meta     map[string]any
}

type resourceContentsJSON struct {
	URI      string         `json:"uri"`
	MimeType string         `json:"mimeType,omitempty"`
	Text     *string        `json:"text,omitempty"`
	Blob     *[]byte        `json:"blob,omitempty"`
	Meta     map[string]any `json:"_meta,omitempty"`
}

// MarshalJSON writes text, or blob (base64) when Blob is non-nil.
func (rc ResourceContents) MarshalJSON() ([]byte, error) {
	w := resourceContentsJSON{URI: rc.URI, MimeType: rc.MimeType, Meta: rc.Meta}
	if rc.Blob != nil {
		w.Blob = &rc.Blob
	} else {
		w.Text = &rc.Text
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads text or blob contents.
func (rc *ResourceContents) UnmarshalJSON(b []byte) error {
	var w resourceContentsJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*rc = ResourceContents{URI: w.URI, MimeType: w.MimeType, Meta: w.Meta}
	if w.Text != nil {
		rc.Text = *w.Text
	}
	if w.Blob != nil {
		rc.Blob = *w.Blob
		if rc.Blob == nil {
			rc.Blob = []byte{}
		}
	}
	return nil
}

// downgrade rewrites content blocks the client's revision does not define
// (strict clients reject an unknown "type"): resource_link before 2025-06-18
// and audio before 2025-03-26 become text. An unknown revision ("") keeps
// everything. It copies only when something changes.
func downgrade(blocks []Content, version string) ([]Content, bool) {
	if version == "" || version >= Version20250618 {
		return blocks, false
	}
	var out []Content
	for i, c := range blocks {
		if t, ok := downgradeBlock(c, version); ok {
			if out == nil {
				out = slices.Clone(blocks)
			}
			out[i] = t
		}
	}
	if out == nil {
		return blocks, false
	}
	return out, true
}

// downgradeBlock returns c as text when version lacks its type.
func downgradeBlock(c Content, version string) (Content, bool) {
	switch {
	case c.Type == ContentResourceLink && c.Link != nil:
		name := c.Link.Title
		if name == "" {
			name = c.Link.Name
		}
		return TextContent(fmt.Sprintf("Resource %s: %s", name, c.Link.URI)), true
	case c.Type == ContentAudio && version < Version20250326:
		return TextContent(fmt.Sprintf("[audio %s not shown: the client's protocol version has no audio]", c.MimeType)), true
	}
	return c, false
}

func downgradePrompt(r *GetPromptResult, version string) *GetPromptResult {
	if version == "" || version >= Version20250618 {
		return r
	}
	var out *GetPromptResult
	for i, m := range r.Messages {
		if t, ok := downgradeBlock(m.Content, version); ok {
			if out == nil {
				cp := *r
				cp.Messages = slices.Clone(r.Messages)
				out = &cp
			}
			out.Messages[i].Content = t
		}
	}
	if out == nil {
		return r
	}
	return out
}

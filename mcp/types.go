package mcp

import (
	"encoding/json"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/schema"
	"github.com/octo-run/octo/runtime/jsonv"
)

// Implementation names a server (serverInfo) or client (clientInfo).
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// Icon is a 2025-11-25 icon for a server, tool, resource or prompt.
type Icon struct {
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// Annotations are hints about content, resources and templates.
type Annotations struct {
	Audience     []string `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

// Tool is one entry of tools/list.
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema is listed verbatim (key order kept); empty means
	// {"type":"object"}.
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema is listed verbatim; empty means none.
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Icons        []Icon           `json:"icons,omitempty"`
	Meta         map[string]any   `json:"_meta,omitempty"`
}

// toolJSON has Tool's fields without its MarshalJSON method.
type toolJSON Tool

// MarshalJSON fills in the default input schema.
func (t Tool) MarshalJSON() ([]byte, error) {
	if len(t.InputSchema) == 0 {
		t.InputSchema = schema.DefaultInput
	}
	return json.Marshal(toolJSON(t))
}

// ToolAnnotations are a tool's behaviour hints. The pointers keep "unset"
// apart from false, since the protocol's defaults differ per hint.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty" yaml:"title" doc:"A human-readable name for the tool."`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty" yaml:"readOnlyHint" doc:"The tool changes nothing (default false)."`
	DestructiveHint *bool  `json:"destructiveHint,omitempty" yaml:"destructiveHint" doc:"The tool may destroy or overwrite something (default true; meaningful when readOnlyHint is false)."`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty" yaml:"idempotentHint" doc:"Calling it again with the same arguments has no further effect (default false)."`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty" yaml:"openWorldHint" doc:"The tool reaches outside systems, such as the web (default true)."`
}

// CallToolResult is the result of tools/call.
type CallToolResult struct {
	Content []Content `json:"content"`
	// StructuredContent must conform to the tool's outputSchema; leave it nil
	// on errors. A json.RawMessage is sent verbatim.
	StructuredContent any            `json:"structuredContent,omitempty"`
	IsError           bool           `json:"isError,omitempty"`
	Meta              map[string]any `json:"_meta,omitempty"`
}

type callToolResultJSON CallToolResult

// MarshalJSON sends no content as [] rather than null.
func (r CallToolResult) MarshalJSON() ([]byte, error) {
	if r.Content == nil {
		r.Content = []Content{}
	}
	return json.Marshal(callToolResultJSON(r))
}

// plainSize is about what appendPlain writes for r, so its buffer is allocated once: the
// text blocks with room for some escapes, and the structured content.
func (r *CallToolResult) plainSize() int {
	n := 50 // {"content":[],"structuredContent":,"isError":true}
	if raw, ok := r.StructuredContent.(json.RawMessage); ok {
		n += len(raw)
	}
	for i := range r.Content {
		t := len(r.Content[i].Text)
		n += 26 + t + t/4 // {"type":"text","text":""},
	}
	return n
}

// appendPlain encodes r by hand when it is only plain text blocks (the usual
// answer of a flow-backed tool), sparing reflection on the hot path. It
// reports false for anything richer, which encoding/json handles.
func (r *CallToolResult) appendPlain(dst []byte) ([]byte, bool) {
	var structured json.RawMessage
	if r.StructuredContent != nil {
		raw, ok := r.StructuredContent.(json.RawMessage)
		if !ok || !plainRaw(raw) {
			return dst, false
		}
		structured = raw
	}
	if r.Meta != nil {
		return dst, false
	}
	for i := range r.Content {
		if c := &r.Content[i]; c.Type != ContentText || c.Annotations != nil || c.Meta != nil {
			return dst, false
		}
	}
	dst = append(dst, `{"content":[`...)
	for i := range r.Content {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"type":"text","text":`...)
		dst = jsonscan.AppendString(dst, r.Content[i].Text)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if structured != nil {
		dst = append(dst, `,"structuredContent":`...)
		dst = append(dst, structured...)
	}
	if r.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	return append(dst, '}'), true
}

// ToolError returns the isError result a model reads and can act on, e.g. for
// arguments that fail the input schema.
func ToolError(text string) *CallToolResult {
	return &CallToolResult{Content: []Content{TextContent(text)}, IsError: true}
}

// Resource is one entry of resources/list, and the target of a resource_link.
type Resource struct {
	URI         string         `json:"uri"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	MimeType    string         `json:"mimeType,omitempty"`
	Size        *int64         `json:"size,omitempty"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Icons       []Icon         `json:"icons,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// ResourceTemplate is one entry of resources/templates/list.
type ResourceTemplate struct {
	URITemplate string         `json:"uriTemplate"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	MimeType    string         `json:"mimeType,omitempty"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Icons       []Icon         `json:"icons,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// Prompt is one entry of prompts/list.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"`
	Meta        map[string]any   `json:"_meta,omitempty"`
}

// PromptArgument is one argument a prompt takes; values are always strings.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// GetPromptResult is the result of prompts/get.
type GetPromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
	Meta        map[string]any  `json:"_meta,omitempty"`
}

type getPromptResultJSON GetPromptResult

// MarshalJSON sends no messages as [] rather than null.
func (r GetPromptResult) MarshalJSON() ([]byte, error) {
	if r.Messages == nil {
		r.Messages = []PromptMessage{}
	}
	return json.Marshal(getPromptResultJSON(r))
}

// PromptMessage is one message of a prompt: a role and a single content block.
type PromptMessage struct {
	Role    string  `json:"role"` // "user" or "assistant"
	Content Content `json:"content"`
}

// plainRaw reports whether raw is valid JSON that encoding/json would send
// unchanged: no whitespace to compact and nothing it escapes for HTML.
func plainRaw(raw []byte) bool {
	inString, escaped := false, false
	for i, c := range raw {
		switch {
		case c == '<' || c == '>' || c == '&':
			return false
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9):
			return false
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return false
		}
	}
	return jsonv.Valid(raw)
}

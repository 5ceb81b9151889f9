package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/octo-run/octo/mcp/schema"
)

// The protocol's own fields of a tool, resource and prompt, as the MCP blocks (mcp-router,
// mcp-mock) take them in their settings: one definition, tagged for the runtime's decoder and
// reference. This package decodes no YAML itself; the tags are the settings' description.

// CacheSettings are the cache hints of a server's 2026-07-28 list, read and server/discover
// results (ttlMs, cacheScope); the older revisions have none.
type CacheSettings struct {
	TTLMs int64  `yaml:"ttlMs" min:"0" doc:"How long, in milliseconds, a client may reuse a list, a read or server/discover before asking again (2026-07-28 ttlMs); 0: not at all."`
	Scope string `yaml:"scope" default:"private" enum:"private,public" doc:"Who may share a cached result (2026-07-28 cacheScope): public, any client or proxy; private, only the same authorization context."`
}

// Hints are the settings as the server sends them; nil settings are the defaults.
func (c *CacheSettings) Hints() CacheHints {
	if c == nil {
		return CacheHints{}
	}
	return CacheHints{TTLMs: c.TTLMs, Public: c.Scope == "public"}
}

// ToolFields are what a tool is called, says and takes.
type ToolFields struct {
	Name         string           `yaml:"name" octo:"required" doc:"The tool's name, unique in the server; clients call it by this name. Use 1 to 128 of A-Z a-z 0-9 _ - ." example:"get_weather"`
	Title        string           `yaml:"title" doc:"A human-readable name for clients to show."`
	Description  string           `yaml:"description" doc:"What the tool does and when to use it, for the model."`
	InputSchema  SchemaSetting    `yaml:"inputSchema" doc:"JSON Schema of the arguments (root type object), as JSON text (listed exactly as written) or as a YAML mapping; empty: any object. A call whose arguments do not match is answered as a failed call that names the problem. A property with x-mcp-header: Name is mirrored by 2026-07-28 clients in the Mcp-Param-Name header, which must then match the argument (else HTTP 400, -32020)." example:"{\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}"`
	OutputSchema SchemaSetting    `yaml:"outputSchema" doc:"JSON Schema of the result (root type object), as JSON text or a YAML mapping: the result must be JSON that matches it, and is sent as structuredContent too."`
	Annotations  *ToolAnnotations `yaml:"annotations" doc:"Hints about the tool's behaviour for clients (readOnlyHint, destructiveHint, idempotentHint, openWorldHint, title)."`
	Icons        []IconSetting    `yaml:"icons" doc:"Icons a client may show for the tool (listed to 2025-11-25 clients and later only)."`
}

// IconSetting is one icon of a tool.
type IconSetting struct {
	Src      string   `yaml:"src" octo:"required" doc:"The image: an https: URL or a data: URI." example:"https://example.com/weather.png"`
	MimeType string   `yaml:"mimeType" doc:"Its MIME type, when the URL does not say (image/png, image/svg+xml)."`
	Sizes    []string `yaml:"sizes" doc:"The sizes it fits, WxH or any." example:"[48x48, any]"`
	Theme    string   `yaml:"theme" enum:"light,dark" doc:"The background it is drawn for; default: either."`
}

// IconProblem says what is wrong with icon i ("" if nothing): a src that is neither an https:
// URL nor a data: URI, which a client would not load.
func (f *ToolFields) IconProblem(i int) string {
	if src := f.Icons[i].Src; !strings.HasPrefix(src, "https://") && !strings.HasPrefix(src, "data:") {
		return fmt.Sprintf("icon src %q: use an https: URL or a data: URI", src)
	}
	return ""
}

// Tool is the tools/list entry the fields declare, with the schemas as written.
func (f *ToolFields) Tool() Tool {
	t := Tool{Name: f.Name, Title: f.Title, Description: f.Description, Annotations: f.Annotations}
	for _, ic := range f.Icons {
		t.Icons = append(t.Icons, Icon(ic))
	}
	if f.InputSchema.Schema != nil {
		t.InputSchema = f.InputSchema.Raw()
	}
	if f.OutputSchema.Schema != nil {
		t.OutputSchema = f.OutputSchema.Raw()
	}
	return t
}

// SchemaSetting is a JSON Schema in settings, compiled once when the settings are decoded. A
// schema that does not compile keeps its problem in Err: the block reports it (mcp-router) or
// leaves the tool out (mcp-mock, in a workspace).
type SchemaSetting struct {
	*schema.Schema // nil when none was written or it did not compile
	Err            error
}

// UnmarshalJSON compiles the schema text; empty text is no schema.
func (s *SchemaSetting) UnmarshalJSON(text []byte) error {
	if len(bytes.TrimSpace(text)) > 0 {
		s.Schema, s.Err = schema.Compile(text)
	}
	return nil
}

// Set reports whether a schema was written, whether it compiled or not.
func (s *SchemaSetting) Set() bool { return s.Schema != nil || s.Err != nil }

// ResourceFields are what a resource is called and says, besides where it is.
type ResourceFields struct {
	Name        string `yaml:"name" octo:"required" doc:"The resource's name, for clients to show and pick." example:"readme"`
	Title       string `yaml:"title" doc:"A human-readable name for clients to show."`
	Description string `yaml:"description" doc:"What the resource holds."`
	MimeType    string `yaml:"mimeType" doc:"The MIME type of its contents, e.g. text/markdown." example:"text/markdown"`
}

// PromptFields are what a prompt is called, says and takes.
type PromptFields struct {
	Name        string           `yaml:"name" octo:"required" doc:"The prompt's name, unique in the server; clients get it by this name." example:"plan_trip"`
	Title       string           `yaml:"title" doc:"A human-readable name for clients to show."`
	Description string           `yaml:"description" doc:"What the prompt is for."`
	Arguments   []ArgumentFields `yaml:"arguments" doc:"The arguments the prompt takes, each by name."`
}

// ArgumentFields describe one argument of a prompt.
type ArgumentFields struct {
	Name        string `yaml:"name" octo:"required" doc:"The argument's name, unique in the prompt." example:"city"`
	Title       string `yaml:"title" doc:"A human-readable name for clients to show."`
	Description string `yaml:"description" doc:"What to pass."`
	Required    bool   `yaml:"required" doc:"A prompts/get without it is refused with -32602."`
}

// Prompt is the prompts/list entry the fields declare.
func (f *PromptFields) Prompt() Prompt {
	p := Prompt{Name: f.Name, Title: f.Title, Description: f.Description}
	for _, a := range f.Arguments {
		p.Arguments = append(p.Arguments, PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
	}
	return p
}

// RepeatedArguments returns the arguments whose name an earlier one already has, in order.
func (f *PromptFields) RepeatedArguments() []*ArgumentFields {
	var out []*ArgumentFields
	seen := make(map[string]bool, len(f.Arguments))
	for i := range f.Arguments {
		a := &f.Arguments[i]
		if seen[a.Name] {
			out = append(out, a)
		}
		seen[a.Name] = true
	}
	return out
}

var _ json.Unmarshaler = (*SchemaSetting)(nil)

// ToolNameProblem says why name breaks the 2025-11-25 tool naming guidance (1 to 128 of
// A-Z a-z 0-9 _ - .), "" when it keeps to it: some clients drop every tool of a server that
// lists one such name, so the router refuses it and the mock leaves the tool out.
func ToolNameProblem(name string) string {
	ok := name != "" && len(name) <= 128
	for i := 0; ok && i < len(name); i++ {
		ch := name[i]
		ok = ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-' || ch == '.'
	}
	if ok {
		return ""
	}
	return fmt.Sprintf("tool name %q would confuse clients: use 1 to 128 of A-Z a-z 0-9 _ - . (no spaces)", name)
}

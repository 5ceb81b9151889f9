package mock

import (
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/blocks/mcp"
	"github.com/octo-run/octo/runtime/config"
)

// settings are the mcp-mock block's settings: in a workspace, the `mcp:`
// section of a saved server file. REFERENCE.md documents every key.
type settings struct {
	ServerName    string            `yaml:"serverName"`
	Version       string            `yaml:"version"`
	Instructions  string            `yaml:"instructions"`
	Path          string            `yaml:"path"`
	CORS          bool              `yaml:"cors"`
	Seed          *int64            `yaml:"seed"`
	Variables     map[string]string `yaml:"variables"`
	Tools         []toolConfig      `yaml:"tools"`
	Resources     []resourceConfig  `yaml:"resources"`
	Prompts       []promptConfig    `yaml:"prompts"`
	limitSettings `yaml:",inline"`
}

// Paths of the legacy HTTP+SSE transport, served beside path.
const (
	DefaultPath  = "/mcp"
	SSEPath      = "/sse"
	MessagesPath = "/messages"
)

type toolConfig struct {
	Name         string               `yaml:"name" octo:"required"`
	Title        string               `yaml:"title"`
	Description  string               `yaml:"description"`
	InputSchema  jsonText             `yaml:"inputSchema"`
	OutputSchema jsonText             `yaml:"outputSchema"`
	Annotations  *mcp.ToolAnnotations `yaml:"annotations"` // YAML tags on the protocol type: one definition
	Result       *string              `yaml:"result"`
	Content      []contentConfig      `yaml:"content"`
	IsError      bool                 `yaml:"isError"`
	DelayMs      int64                `yaml:"delayMs"`
	Enabled      *bool                `yaml:"enabled"`
	Steps        []stepConfig         `yaml:"steps"`
}

// contentConfig is one content item of a result or a prompt message: exactly
// one of text, image, audio, resource or resourceLink.
type contentConfig struct {
	Text         *string         `yaml:"text"`
	Image        *string         `yaml:"image"`
	Audio        *string         `yaml:"audio"`
	MimeType     string          `yaml:"mimeType"`
	Resource     *embeddedConfig `yaml:"resource"`
	ResourceLink *linkConfig     `yaml:"resourceLink"`
}

// embeddedConfig is an embedded resource: its uri with text or blob.
type embeddedConfig struct {
	URI      string  `yaml:"uri" octo:"required"`
	MimeType string  `yaml:"mimeType"`
	Text     *string `yaml:"text"`
	Blob     *string `yaml:"blob"`
}

// linkConfig is a resource_link content item.
type linkConfig struct {
	URI         string `yaml:"uri" octo:"required"`
	Name        string `yaml:"name" octo:"required"`
	Title       string `yaml:"title"`
	Description string `yaml:"description"`
	MimeType    string `yaml:"mimeType"`
}

// stepConfig is one thing a tool does during a call, before it answers:
// exactly one of log, progress, delayMs, elicit or sample, with the keys
// that belong to it.
type stepConfig struct {
	Log    *string `yaml:"log"`
	Level  string  `yaml:"level"`
	Logger string  `yaml:"logger"`

	Progress *float64 `yaml:"progress"`
	Total    float64  `yaml:"total"`
	Message  string   `yaml:"message"`

	DelayMs *int64 `yaml:"delayMs"`

	Elicit *string  `yaml:"elicit"`
	Schema jsonText `yaml:"schema"`

	Sample       *string `yaml:"sample"`
	MaxTokens    int     `yaml:"maxTokens"`
	SystemPrompt string  `yaml:"systemPrompt"`

	As string `yaml:"as"`
}

type resourceConfig struct {
	URI         string  `yaml:"uri" octo:"required"`
	Name        string  `yaml:"name" octo:"required"`
	Title       string  `yaml:"title"`
	Description string  `yaml:"description"`
	MimeType    string  `yaml:"mimeType"`
	Text        *string `yaml:"text"`
	Blob        *string `yaml:"blob"`
	Enabled     *bool   `yaml:"enabled"`
}

type promptConfig struct {
	Name        string           `yaml:"name" octo:"required"`
	Title       string           `yaml:"title"`
	Description string           `yaml:"description"`
	Arguments   []argumentConfig `yaml:"arguments"`
	Messages    []messageConfig  `yaml:"messages"`
	Enabled     *bool            `yaml:"enabled"`
}

type argumentConfig struct {
	Name        string `yaml:"name" octo:"required"`
	Title       string `yaml:"title"`
	Description string `yaml:"description"`
	Required    bool   `yaml:"required"`
}

// messageConfig is one prompt message: a role and one content item.
type messageConfig struct {
	Role          string `yaml:"role"`
	contentConfig `yaml:",inline"`
}

// jsonText is a JSON document written either as text (kept verbatim) or as
// a YAML mapping (encoded in key order), for schemas.
type jsonText struct {
	Text []byte
	Node *yaml.Node
}

// DecodeYAMLNode implements config.NodeDecoder.
func (j *jsonText) DecodeYAMLNode(n *yaml.Node, at config.Where) config.Diags {
	j.Node = n
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		j.Text = []byte(n.Value)
		return nil
	}
	if n.Kind != yaml.MappingNode {
		var ds config.Diags
		ds.Addf(n, at, "expected a JSON Schema as text or as a mapping, got %s", describeNode(n))
		return ds
	}
	b, err := yamlJSON(n)
	if err != nil {
		var ds config.Diags
		ds.Addf(n, at, "%v", err)
		return ds
	}
	j.Text = b
	return nil
}

// set reports whether anything was written.
func (j *jsonText) set() bool { return j.Node != nil }

func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return strings.TrimPrefix(n.ShortTag(), "!!") + " " + quoteShort(n.Value)
}

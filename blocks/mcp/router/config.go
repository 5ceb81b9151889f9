package router

import (
	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/blocks/mcp"
)

// fields are the router's top-level keys (it is a composite block).
type fields struct {
	ServerName string           `yaml:"serverName"`
	Tools      []toolConfig     `yaml:"tools"`
	Resources  []resourceConfig `yaml:"resources"`
	Prompts    []promptConfig   `yaml:"prompts"`
}

type toolConfig struct {
	Name         string               `yaml:"name" octo:"required"`
	Title        string               `yaml:"title"`
	Description  string               `yaml:"description"`
	InputSchema  string               `yaml:"inputSchema"`
	OutputSchema string               `yaml:"outputSchema"`
	Annotations  *mcp.ToolAnnotations `yaml:"annotations"` // YAML tags on the protocol type: one definition
	Process      yaml.Node            `yaml:"process" octo:"required"`
}

type resourceConfig struct {
	URI         string `yaml:"uri"`
	URITemplate string `yaml:"uriTemplate"`
	Name        string `yaml:"name" octo:"required"`
	Title       string `yaml:"title"`
	Description string `yaml:"description"`
	MimeType    string `yaml:"mimeType"`
	Resource    string `yaml:"resource" octo:"required"`
}

type promptConfig struct {
	Name        string           `yaml:"name" octo:"required"`
	Title       string           `yaml:"title"`
	Description string           `yaml:"description"`
	Arguments   []argumentConfig `yaml:"arguments"`
	Resource    string           `yaml:"resource" octo:"required"`
}

type argumentConfig struct {
	Name        string `yaml:"name" octo:"required"`
	Title       string `yaml:"title"`
	Description string `yaml:"description"`
	Required    bool   `yaml:"required"`
}

package router

import (
	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/blocks/mcp"
	"github.com/octo-run/octo/runtime"
)

// fields are the router's top-level keys (it is a composite block).
type fields struct {
	ServerName string           `yaml:"serverName"`
	Tools      []toolConfig     `yaml:"tools"`
	Resources  []resourceConfig `yaml:"resources"`
	Prompts    []promptConfig   `yaml:"prompts"`
	// Limits on one POST (mcp.Server.MaxBatch, MaxResponseBytes); nil means
	// the default.
	MaxBatch         *int   `yaml:"maxBatch"`
	MaxResponseBytes *int64 `yaml:"maxResponseBytes"`
}

// limits checks the limit keys and returns their values (0: the default).
func (f *fields) limits(b *runtime.Build) (maxBatch int, maxResponseBytes int64) {
	if f.MaxBatch != nil {
		if maxBatch = *f.MaxBatch; maxBatch < 1 {
			b.Errorf(b.Field("maxBatch"), b.At.Field("maxBatch"), "maxBatch must be at least 1, got %d", maxBatch)
		}
	}
	if f.MaxResponseBytes != nil {
		if maxResponseBytes = *f.MaxResponseBytes; maxResponseBytes < 1 {
			b.Errorf(b.Field("maxResponseBytes"), b.At.Field("maxResponseBytes"), "maxResponseBytes must be at least 1, got %d", maxResponseBytes)
		}
	}
	return maxBatch, maxResponseBytes
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

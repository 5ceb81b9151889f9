package runtime

import (
	"log/slog"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/config"
)

// ConnectorBuild is what a connector's constructor gets.
type ConnectorBuild struct {
	Name string
	At   Where
	bd   *builder
	cc   *config.Connector
}

// Decode decodes the connector's settings strictly into out.
func (c *ConnectorBuild) Decode(out any) bool {
	node := c.cc.Settings
	if node == nil {
		node = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: c.cc.Node.Line, Column: c.cc.Node.Column}
	}
	ds := config.Decode(node, out, c.At.Field("settings"))
	c.bd.diags = append(c.bd.diags, ds...)
	return len(ds) == 0
}

// Errorf reports a problem with a setting.
func (c *ConnectorBuild) Errorf(node *yaml.Node, at Where, format string, args ...any) {
	if node == nil {
		node = c.cc.Node
	}
	c.bd.report(node, at, format, args...)
}

// Logger returns a logger naming the connector.
func (c *ConnectorBuild) Logger() *slog.Logger {
	return c.bd.logger.With("connector", c.Name)
}

// SourceBuild is what a connector gets when a flow attaches to it.
type SourceBuild struct {
	Flow string
	At   Where
	bd   *builder
	src  *config.Source
}

// Decode decodes the source's settings strictly into out.
func (s *SourceBuild) Decode(out any) bool {
	node := s.src.Settings
	if node == nil {
		node = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: s.src.Node.Line, Column: s.src.Node.Column}
	}
	ds := config.Decode(node, out, s.At.Field("settings"))
	s.bd.diags = append(s.bd.diags, ds...)
	return len(ds) == 0
}

// Errorf reports a problem with a source setting.
func (s *SourceBuild) Errorf(node *yaml.Node, at Where, format string, args ...any) {
	if node == nil {
		node = s.src.Node
	}
	s.bd.report(node, at, format, args...)
}

// Setting returns the node of one key under the connector's settings.
func (c *ConnectorBuild) Setting(key string) *yaml.Node { return mappingValue(c.cc.Settings, key) }

// Setting returns the node of one key under the source's settings.
func (s *SourceBuild) Setting(key string) *yaml.Node { return mappingValue(s.src.Settings, key) }

// Settings returns the source's settings node (the source itself when it has none).
func (s *SourceBuild) Settings() *yaml.Node {
	if s.src.Settings != nil {
		return s.src.Settings
	}
	return s.src.Node
}

package workspace

import (
	"maps"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/blocks/httpmock"
	"github.com/octo-run/octo/blocks/mcp/mock"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// Transport chooses how a saved server is served.
type Transport uint8

const (
	// HTTP serves Streamable HTTP at the server's path and the legacy
	// HTTP+SSE pair at /sse and /messages, on 127.0.0.1 at its port.
	HTTP Transport = iota
	// Stdio serves one session over the process's stdin and stdout.
	Stdio
)

// Adapt turns a saved server into the runtime's config: a connector and
// one flow running mcp-mock on the server's path and the legacy /sse and
// /messages pair. vars are the workspace variables, which the server's own
// mcp.variables override, and cluster its cluster (nil for none). It also
// returns the address of the mcp-mock block, where the built service holds
// the live server (see Live).
func Adapt(s *Server, vars map[string]string, cluster *yaml.Node, t Transport) (cfg *config.Config, mockAddr string) {
	at := config.Where{File: s.File, Path: "mcp", Kind: mock.KindServer, Name: s.Name}
	blockType := "mcp-mock"
	if s.Kind == KindHTTP {
		at.Path, at.Kind, blockType = "http", httpmock.KindServer, "http-mock"
	}
	block := &config.Block{
		Type:       blockType,
		Name:       s.Name,
		Settings:   settingsNode(s.section, vars),
		At:         at,
		Node:       s.section,
		SettingsAt: at,
	}
	cfg = &config.Config{
		Dir:       filepath.Dir(s.File),
		Files:     []string{s.File},
		Service:   config.Service{Name: s.Name, At: config.Where{File: s.File}, Node: s.root, Cluster: cluster},
		Templates: map[string]*config.Template{},
	}
	at = config.Where{File: s.File, Kind: "server", Name: s.Name}
	if t == Stdio && s.Kind == KindMCP {
		cfg.Connectors = []*config.Connector{{Name: "stdio", Type: "stdio", At: at.Field("stdio"), Node: s.root}}
		cfg.Flows = []*config.Flow{flow("stdio", "stdio", nil, block, at)}
		return cfg, "flows.stdio.process[0]"
	}
	cfg.Connectors = []*config.Connector{{
		Name: "http", Type: "http", At: at.Field("port"), Node: portNode(s),
		Settings: config.Encode(listen{Port: s.Port, Host: "127.0.0.1", CORS: s.CORS}, portNode(s)),
	}}
	if s.Kind == KindHTTP { // every path: the block routes them
		src := config.Encode(map[string]string{"prefix": "/"}, s.section)
		cfg.Flows = []*config.Flow{flow("http", "http", src, block, at)}
		return cfg, "flows.http.process[0]"
	}
	src := config.Encode(map[string][]string{"paths": {s.Path, mock.SSEPath, mock.MessagesPath}}, s.section)
	cfg.Flows = []*config.Flow{flow("mcp", "http", src, block, at)}
	return cfg, "flows.mcp.process[0]"
}

// Live returns the mock server a service built from Adapt's config serves,
// or nil.
func Live(svc *runtime.Service, mockAddr string) *mock.Server {
	if b, ok := svc.Instance(mockAddr).(*mock.Block); ok {
		return b.Server()
	}
	return nil
}

func flow(name, connector string, src *yaml.Node, block *config.Block, at config.Where) *config.Flow {
	return &config.Flow{
		Name: name,
		Source: config.Source{Connector: connector, Type: connector, Settings: src,
			At: at.Field("source"), Node: block.Node},
		Process: []*config.Block{block},
		At:      at,
		Node:    block.Node,
	}
}

// settingsNode is the block's settings: the file's mcp section with the
// variables added, the server's own winning.
func settingsNode(section *yaml.Node, vars map[string]string) *yaml.Node {
	merged := maps.Clone(vars)
	if merged == nil {
		merged = map[string]string{}
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: section.Line, Column: section.Column}
	var varsKey *yaml.Node
	for i := 0; i+1 < len(section.Content); i += 2 {
		k, v := section.Content[i], section.Content[i+1]
		if k.Value == "variables" && v.Kind == yaml.MappingNode {
			varsKey = k
			for j := 0; j+1 < len(v.Content); j += 2 {
				merged[v.Content[j].Value] = v.Content[j+1].Value
			}
			continue
		}
		out.Content = append(out.Content, k, v)
	}
	if varsKey == nil {
		varsKey = config.Encode("variables", section)
	}
	out.Content = append(out.Content, varsKey, config.Encode(merged, varsKey))
	return out
}

// listen is the http connector's settings for a saved server: loopback at the server's port,
// so the connector's guard keeps other hosts and origins out unless cors.
type listen struct {
	Port int    `yaml:"port"`
	Host string `yaml:"host"`
	CORS bool   `yaml:"cors,omitempty"`
}

func portNode(s *Server) *yaml.Node {
	if v := value(s.root, "port"); v != nil {
		return v
	}
	return s.root
}

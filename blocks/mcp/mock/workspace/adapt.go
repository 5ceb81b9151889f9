package workspace

import (
	"maps"
	"path/filepath"
	"slices"
	"strconv"

	"gopkg.in/yaml.v3"

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
// mcp.variables override. It also returns the address of the mcp-mock block,
// where the built service holds the live server (see Live).
func Adapt(s *Server, vars map[string]string, t Transport) (cfg *config.Config, mockAddr string) {
	at := config.Where{File: s.File, Path: "mcp", Kind: mock.KindServer, Name: s.Name}
	block := &config.Block{
		Type:       "mcp-mock",
		Name:       s.Name,
		Settings:   settingsNode(s.mcp, vars),
		At:         at,
		Node:       s.mcp,
		SettingsAt: at,
	}
	cfg = &config.Config{
		Dir:       filepath.Dir(s.File),
		Files:     []string{s.File},
		Service:   config.Service{Name: s.Name, At: config.Where{File: s.File}, Node: s.root},
		Templates: map[string]*config.Template{},
	}
	at = config.Where{File: s.File, Kind: "server", Name: s.Name}
	if t == Stdio {
		cfg.Connectors = []*config.Connector{{Name: "stdio", Type: "stdio", At: at.Field("stdio"), Node: s.root}}
		cfg.Flows = []*config.Flow{flow("stdio", "stdio", nil, block, at)}
		return cfg, "flows.stdio.process[0]"
	}
	cfg.Connectors = []*config.Connector{{
		Name: "http", Type: "http", At: at.Field("port"), Node: portNode(s),
		Settings: connectorSettings(s),
	}}
	paths := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: s.mcp.Line, Column: s.mcp.Column}
	for _, p := range []string{s.Path, mock.SSEPath, mock.MessagesPath} {
		paths.Content = append(paths.Content, strNode(p, s.mcp))
	}
	src := mapping("paths", paths)
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
func settingsNode(mcpNode *yaml.Node, vars map[string]string) *yaml.Node {
	merged := maps.Clone(vars)
	if merged == nil {
		merged = map[string]string{}
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: mcpNode.Line, Column: mcpNode.Column}
	var varsKey *yaml.Node
	for i := 0; i+1 < len(mcpNode.Content); i += 2 {
		k, v := mcpNode.Content[i], mcpNode.Content[i+1]
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
		varsKey = strNode("variables", mcpNode)
	}
	vm := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: varsKey.Line, Column: varsKey.Column}
	for _, k := range slices.Sorted(maps.Keys(merged)) {
		vm.Content = append(vm.Content, strNode(k, varsKey), strNode(merged[k], varsKey))
	}
	out.Content = append(out.Content, varsKey, vm)
	return out
}

// connectorSettings listen on loopback at the server's port; the
// connector's guard then keeps other hosts and origins out unless cors.
func connectorSettings(s *Server) *yaml.Node {
	n := mapping("port", intNode(s.Port, portNode(s)), "host", strNode("127.0.0.1", s.root))
	if s.CORS {
		cors := strNode("true", value(s.mcp, "cors"))
		cors.Tag, cors.Style = "!!bool", 0
		n.Content = append(n.Content, strNode("cors", cors), cors)
	}
	return n
}

func portNode(s *Server) *yaml.Node {
	if v := value(s.root, "port"); v != nil {
		return v
	}
	return s.root
}

func mapping(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(kv); i += 2 {
		val := kv[i+1].(*yaml.Node)
		n.Content = append(n.Content, strNode(kv[i].(string), val), val)
	}
	return n
}

// strNode and intNode make scalars positioned at near, so a problem with a
// generated value still points into the user's file.
func strNode(s string, near *yaml.Node) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
	if near != nil {
		n.Line, n.Column = near.Line, near.Column
	}
	return n
}

func intNode(i int, near *yaml.Node) *yaml.Node {
	n := strNode(strconv.Itoa(i), near)
	n.Tag, n.Style = "!!int", 0
	return n
}

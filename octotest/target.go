package octotest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/config"
)

// target is where a case's request goes: a flow, the connector it is on, and the path and
// methods its source serves.
type target struct {
	flow, connector string
	path            string
	methods         []string
}

// method is the method a request without one uses: the flow's first, else POST with a body
// and GET without.
func (t target) method(hasBody bool) string {
	switch {
	case len(t.methods) > 0:
		return strings.ToUpper(t.methods[0])
	case hasBody:
		return "POST"
	}
	return "GET"
}

// mcpBlocks are the block types that serve MCP: a flow running one is what an mcp case talks to.
var mcpBlocks = []string{"mcp-router", "mcp-mock", "mcp-proxy"}

// targetOf finds the flow a case is for in cfg.
func targetOf(cfg *config.Config, c *loaded) (target, error) {
	name, path := "", ""
	if c.Request != nil {
		name, path = c.Request.Flow, c.Request.Path
	} else {
		name, path = c.MCP.Flow, c.MCP.Path
	}
	if name == "" && c.MCP != nil {
		var serving []string
		for _, f := range cfg.Flows {
			if slices.ContainsFunc(f.Process, func(b *config.Block) bool { return slices.Contains(mcpBlocks, b.Type) }) {
				serving = append(serving, f.Name)
			}
		}
		if len(serving) != 1 {
			return target{}, fmt.Errorf("mcp.flow: name the flow serving MCP; %s", among("flows running mcp-router, mcp-mock or mcp-proxy", serving))
		}
		name = serving[0]
	}
	if name == "" {
		return byPath(cfg, path)
	}
	for _, f := range cfg.Flows {
		if f.Name == name {
			t := target{flow: f.Name, connector: f.Source.Connector}
			t.path, t.methods = sourceRoute(f.Source.Settings)
			if path != "" {
				t.path = path
			}
			return t, nil
		}
	}
	names := make([]string, len(cfg.Flows))
	for i, f := range cfg.Flows {
		names[i] = f.Name
	}
	return target{}, fmt.Errorf("%s", config.Unknown("flow", name, names))
}

// byPath is the target of a request that names only its path: the config's one http connector.
func byPath(cfg *config.Config, path string) (target, error) {
	var https []string
	for _, cc := range cfg.Connectors {
		if cc.Type == "http" {
			https = append(https, cc.Name)
		}
	}
	if len(https) != 1 {
		return target{}, fmt.Errorf("request.flow: name the flow the request is for; %s", among("http connectors", https))
	}
	return target{connector: https[0], path: path}, nil
}

func among(what string, names []string) string {
	if len(names) == 0 {
		return "the config has no " + what
	}
	return "the config has " + fmt.Sprint(len(names)) + " " + what + ": " + strings.Join(names, ", ")
}

// sourceRoute reads the path (or first of paths) and methods an http source serves, as written.
func sourceRoute(n *yaml.Node) (path string, methods []string) {
	if n == nil || n.Kind != yaml.MappingNode {
		return "", nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		switch {
		case k == "path" && v.Kind == yaml.ScalarNode:
			path = v.Value
		case k == "paths" && v.Kind == yaml.SequenceNode && len(v.Content) > 0 && path == "":
			path = v.Content[0].Value
		case k == "methods" && v.Kind == yaml.SequenceNode:
			for _, m := range v.Content {
				methods = append(methods, m.Value)
			}
		}
	}
	return path, methods
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

package config

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// Encode makes the settings a config adapter writes for a block or connector (an http
// connector's port, a source's paths) from a Go value, as YAML would hold them: maps keep
// their keys sorted, structs follow their yaml tags. Every node is placed at near, the node of
// the user's file the value comes from, so a problem found in it points there. A value YAML
// cannot encode (a channel, a func) is a bug in the adapter, and panics.
func Encode(v any, near *yaml.Node) *yaml.Node {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		panic(fmt.Sprintf("config: encoding an adapter's settings: %v", err))
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = *n.Content[0]
	}
	if near != nil {
		place(&n, near.Line, near.Column)
	}
	return &n
}

// place puts n and everything in it at line and column.
func place(n *yaml.Node, line, col int) {
	n.Line, n.Column = line, col
	for _, c := range n.Content {
		place(c, line, col)
	}
}

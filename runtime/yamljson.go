package runtime

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxJSONDepth bounds the nesting of YAML written as JSON. Its size needs no bound of its own:
// settings come from config.Parse, which has resolved every alias within its limits, so the tree
// is as large as it looks.
const maxJSONDepth = 64

// yamlJSONError is YAML that JSON cannot carry, at the node that shows it.
type yamlJSONError struct {
	node *yaml.Node
	msg  string
}

// yamlJSON encodes a YAML value as JSON, keeping mapping keys in the order they were written
// (a schema is listed exactly as its author wrote it).
func yamlJSON(n *yaml.Node) ([]byte, *yamlJSONError) {
	return appendYAMLJSON(nil, n, 0)
}

func appendYAMLJSON(dst []byte, n *yaml.Node, depth int) ([]byte, *yamlJSONError) {
	if depth > maxJSONDepth {
		return nil, &yamlJSONError{n, fmt.Sprintf("nested deeper than %d levels", maxJSONDepth)}
	}
	switch n.Kind {
	case yaml.SequenceNode:
		dst = append(dst, '[')
		for i, c := range n.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err *yamlJSONError
			if dst, err = appendYAMLJSON(dst, c, depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case yaml.MappingNode:
		return appendYAMLObject(dst, n, depth)
	case yaml.ScalarNode:
		return appendYAMLScalar(dst, n)
	}
	return nil, &yamlJSONError{n, "cannot write this YAML as JSON"}
}

func appendYAMLObject(dst []byte, n *yaml.Node, depth int) ([]byte, *yamlJSONError) {
	dst = append(dst, '{')
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			return nil, &yamlJSONError{k, "JSON object keys must be plain text"}
		}
		if seen[k.Value] {
			return nil, &yamlJSONError{k, fmt.Sprintf("duplicate key %q", k.Value)}
		}
		seen[k.Value] = true
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, jsonString(k.Value)...)
		dst = append(dst, ':')
		var err *yamlJSONError
		if dst, err = appendYAMLJSON(dst, n.Content[i+1], depth+1); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

func appendYAMLScalar(dst []byte, n *yaml.Node) ([]byte, *yamlJSONError) {
	switch n.ShortTag() {
	case "!!null":
		return append(dst, "null"...), nil
	case "!!bool":
		return strconv.AppendBool(dst, strings.EqualFold(n.Value, "true")), nil
	case "!!int":
		var i int64
		if err := n.Decode(&i); err != nil {
			return nil, &yamlJSONError{n, fmt.Sprintf("%s is not a whole number JSON can carry", n.Value)}
		}
		return strconv.AppendInt(dst, i, 10), nil
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, &yamlJSONError{n, fmt.Sprintf("%s is not a number JSON can carry", n.Value)}
		}
		return strconv.AppendFloat(dst, f, 'g', -1, 64), nil
	}
	return append(dst, jsonString(n.Value)...), nil
}

package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// maxJSONDepth bounds the nesting of YAML written as JSON. Its size needs no
// bound of its own: settings come from config.Parse, which has resolved
// every alias within its limits, so the tree is as large as it looks.
const maxJSONDepth = 64

// yamlJSON encodes a YAML value as JSON, keeping mapping keys in the order
// they were written (a schema is listed exactly as its author wrote it).
func yamlJSON(n *yaml.Node) ([]byte, error) {
	return appendYAMLJSON(nil, n, 0)
}

func appendYAMLJSON(dst []byte, n *yaml.Node, depth int) ([]byte, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxJSONDepth)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return append(dst, "null"...), nil
		}
		return appendYAMLJSON(dst, n.Content[0], depth+1)
	case yaml.SequenceNode:
		dst = append(dst, '[')
		for i, c := range n.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
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
	return nil, fmt.Errorf("line %d: cannot write this YAML as JSON", n.Line)
}

func appendYAMLObject(dst []byte, n *yaml.Node, depth int) ([]byte, error) {
	dst = append(dst, '{')
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: JSON object keys must be plain text", k.Line)
		}
		if seen[k.Value] {
			return nil, fmt.Errorf("line %d: duplicate key %q", k.Line, k.Value)
		}
		seen[k.Value] = true
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, k.Value)
		dst = append(dst, ':')
		var err error
		if dst, err = appendYAMLJSON(dst, n.Content[i+1], depth+1); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

func appendYAMLScalar(dst []byte, n *yaml.Node) ([]byte, error) {
	switch n.ShortTag() {
	case "!!null":
		return append(dst, "null"...), nil
	case "!!bool":
		return strconv.AppendBool(dst, strings.EqualFold(n.Value, "true")), nil
	case "!!int":
		var i int64
		if err := n.Decode(&i); err != nil {
			return nil, fmt.Errorf("line %d: %s is not a whole number JSON can carry", n.Line, n.Value)
		}
		return strconv.AppendInt(dst, i, 10), nil
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("line %d: %s is not a number JSON can carry", n.Line, n.Value)
		}
		return strconv.AppendFloat(dst, f, 'g', -1, 64), nil
	}
	return appendJSONString(dst, n.Value), nil
}

// appendJSONString appends s quoted as a JSON string, leaving <, > and &
// as written.
func appendJSONString(dst []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte{'\n'})...)
}

// quoteShort quotes text for a message, shortened when long.
func quoteShort(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:40]) + "…"
	}
	return strconv.Quote(s)
}

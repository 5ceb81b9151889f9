package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/reference"
)

// A program editing the workspace for someone (the agent tools) has a server as JSON fields and
// reads it back as JSON; the folder keeps it as YAML. Both ways keep the order of keys, so what
// was sent is what the user reads in the file.

// ServerSchema names the JSON Schema of a saved server file (reference.Schema), which a draft's
// modeline points to.
const ServerSchema = "server"

// maxDraftDepth bounds how deeply a draft's JSON nests, as deep as the MCP core takes JSON.
const maxDraftDepth = 64

// Draft is a saved server given as JSON fields, ready to be written as its file.
type Draft struct {
	name, kind string
	section    *yaml.Node // the mcp: or http: section, as kind says
}

// NewDraft makes the draft of a saved server: its name, kind and section (mcp: for kind mcp,
// http: for kind http; a JSON object, nested at most 64 levels).
func NewDraft(name, kind string, section json.RawMessage) (*Draft, error) {
	n, err := jsonNode(section)
	if err != nil {
		return nil, err
	}
	if n.Kind != yaml.MappingNode {
		return nil, errors.New("expected a JSON object")
	}
	return &Draft{name: name, kind: kind, section: n}, nil
}

// Text is the draft's saved file with port: its schema modeline (as `octo new mcp-mock` writes
// it), then name, kind, port and the mcp (or http) section.
func (d *Draft) Text(port int) ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
		scalar("!!str", "name"), scalar("!!str", d.name),
		scalar("!!str", "kind"), scalar("!!str", d.kind),
		scalar("!!str", "port"), scalar("!!int", strconv.Itoa(port)),
		scalar("!!str", d.sectionKey()), d.section,
	}}
	text, err := yamlText(root)
	if err != nil {
		return nil, err
	}
	return reference.WithModeline(text, "../"+reference.SchemaFile(ServerSchema)), nil
}

// sectionKey is where the draft's kind keeps its settings.
func (d *Draft) sectionKey() string {
	if d.kind == KindHTTP {
		return KindHTTP
	}
	return KindMCP
}

// ServerFields reads a saved server file's text as JSON, its keys in their order; aliases and
// merge keys are resolved, and the parse is bounded, as the workspace reads the file.
func ServerFields(file string, text []byte) (json.RawMessage, error) {
	root, ds := parseYAML(file, text)
	switch {
	case len(ds) > 0:
		return nil, ds
	case root == nil:
		return nil, errors.New("the file is empty")
	}
	var b bytes.Buffer
	if err := writeJSON(&b, root); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// jsonNode turns a JSON value into a YAML node in block style, nested at most maxDraftDepth deep.
func jsonNode(text json.RawMessage) (*yaml.Node, error) {
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	n, err := nextNode(d, 0)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	return n, nil
}

func nextNode(d *json.Decoder, depth int) (*yaml.Node, error) {
	if depth > maxDraftDepth {
		return nil, fmt.Errorf("nests deeper than %d levels", maxDraftDepth)
	}
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		if v == '[' {
			n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
		}
		for d.More() {
			if n.Kind == yaml.MappingNode {
				key, err := d.Token()
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, scalar("!!str", key.(string)))
			}
			item, err := nextNode(d, depth+1)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, item)
		}
		_, err := d.Token() // the closing delimiter
		return n, err
	case string:
		n := scalar("!!str", v)
		if strings.HasPrefix(v, "\n") {
			// The encoder would write a literal block that loses the first line break.
			n.Style = yaml.DoubleQuotedStyle
		}
		return n, nil
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return scalar("!!int", v.String()), nil
		}
		return scalar("!!float", v.String()), nil
	case bool:
		return scalar("!!bool", fmt.Sprint(v)), nil
	default:
		return scalar("!!null", "null"), nil
	}
}

// scalar is a YAML scalar whose style the encoder picks: plain when it reads back as tag,
// quoted when it would not, a literal block for text of several lines.
func scalar(tag, value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}
}

// yamlText writes a mapping node as a YAML document, indented by two spaces.
func yamlText(n *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	e := yaml.NewEncoder(&b)
	e.SetIndent(2)
	if err := e.Encode(n); err != nil {
		return nil, err
	}
	if err := e.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.AliasNode:
		return writeJSON(b, n.Alias)
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, n.Content[i].Value)
			b.WriteByte(':')
			if err := writeJSON(b, n.Content[i+1]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, item); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		return writeScalar(b, n)
	}
	return nil
}

// writeScalar writes a scalar as the JSON value it resolves to; a number JSON cannot hold
// (.inf, .nan) is written as its text.
func writeScalar(b *bytes.Buffer, n *yaml.Node) error {
	var v any
	if err := n.Decode(&v); err != nil {
		return err
	}
	switch v.(type) {
	case nil, bool, int, int64, uint64, float64:
		if j, err := json.Marshal(v); err == nil {
			b.Write(j)
			return nil
		}
	}
	writeString(b, n.Value)
	return nil
}

func writeString(b *bytes.Buffer, s string) {
	j, _ := json.Marshal(s)
	b.Write(j)
}

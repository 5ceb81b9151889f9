package config

import (
	"reflect"

	"gopkg.in/yaml.v3"
)

// ParseProcess parses a list of blocks, as found under a flow's `process` or inside a composite
// block, with the same rules Load applies. A nil or null node is an empty list.
func ParseProcess(n *yaml.Node, at Where) ([]*Block, Diags) {
	d := &decoder{}
	blocks := d.process(n, at)
	return blocks, d.diags
}

func (d *decoder) process(n *yaml.Node, at Where) []*Block {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.typeErr(n, at, "a list of blocks")
		return nil
	}
	blocks := make([]*Block, 0, len(n.Content))
	for i, item := range n.Content {
		if b := d.block(item, at.Index(i)); b != nil {
			blocks = append(blocks, b)
		}
	}
	return blocks
}

// block parses one block: `type` (required), `name`, `settings`, and any other key kept in order
// as an extra field for composite blocks.
func (d *decoder) block(m *yaml.Node, at Where) *Block {
	if m.Kind != yaml.MappingNode {
		d.addf(m, at.Label("block", ""), "expected a block (a mapping with a type), got %s%s", describe(m), spacingHint(m))
		return nil
	}
	kind := peek(m, "type")
	if kind == "" {
		kind = "block"
	}
	w := at.Label(kind, peek(m, "name"))
	b := &Block{At: w, Node: m}
	hasType := false
	for _, p := range d.pairs(m, w) {
		kw := w.Field(p.key.Value)
		switch p.key.Value {
		case "type":
			hasType = true
			d.requiredString(reflect.ValueOf(&b.Type).Elem(), p.val, kw, "type")
		case "name":
			d.value(reflect.ValueOf(&b.Name).Elem(), p.val, kw)
		case "settings":
			if !isNull(p.val) {
				b.Settings = p.val
			}
		default:
			b.Extra = append(b.Extra, Field{Key: p.key.Value, KeyNode: p.key, Value: p.val})
		}
	}
	if !hasType {
		d.addf(m, w, "missing required key %q", "type")
	}
	return b
}

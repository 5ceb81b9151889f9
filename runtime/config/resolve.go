package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// Limits on what YAML aliases may add to one file. A config that reuses a block, a tool list or
// a schema a few hundred times stays far below them; an alias bomb (a small file whose aliases
// double at every level) crosses them within milliseconds and is refused instead of filling
// memory.
const (
	MaxAliasNodes = 100_000  // nodes the copies made for aliases may add up to
	MaxAliasBytes = 16 << 20 // bytes of scalar text the copies may add up to
)

// Parse reads every YAML document of data, the text of file, and returns the root of each
// document that is not empty, with its anchors, aliases and merge keys resolved: an alias
// becomes a copy of the node it names (keeping that node's positions, so diagnostics still point
// at a line), and a mapping with merge keys (`<<: *base`, `<<: [*a, *b]`) gets their entries as
// its own, YAML 1.1 style: keys written in the mapping win, then earlier mappings of the list.
// No node Parse returns is an alias, so blocks see the same settings whether they were written
// out or reused. Syntax errors, cycles and merges of anything but mappings are reported; a file
// whose aliases would add more than MaxAliasNodes nodes or MaxAliasBytes of text is measured
// before anything is copied, refused at the alias that crosses the limit, and gives no roots.
func Parse(file string, data []byte) (roots []*yaml.Node, ds Diags) {
	defer func() {
		// yaml.v3 is outside code; whatever it does with hostile input must not crash the caller.
		if r := recover(); r != nil {
			roots, ds = nil, Diags{{File: file, Msg: fmt.Sprintf("invalid YAML: parser failed: %v", r)}}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			ds = append(ds, syntaxDiag(file, data, err))
			break
		}
		if len(doc.Content) > 0 && !isNull(doc.Content[0]) {
			docs = append(docs, doc.Content[0])
		}
	}
	m := &measure{sizes: map[*yaml.Node]size{}, open: map[*yaml.Node]bool{}}
	for _, doc := range docs {
		if m.walk(doc); m.crossed != nil {
			return nil, append(ds, tooBig(file, m))
		}
	}
	r := &resolver{open: map[*yaml.Node]bool{}}
	for _, doc := range docs {
		roots = append(roots, r.node(doc, Where{File: file}))
	}
	return roots, append(ds, r.diags...)
}

// size is what a resolved node holds: its nodes and the bytes of its scalars.
type size struct{ nodes, bytes int }

// measure sizes a file's documents as they would be once resolved, without copying anything,
// so that an alias bomb costs one walk of the file as written.
type measure struct {
	sizes   map[*yaml.Node]size // resolved size of each anchored node walked
	open    map[*yaml.Node]bool // anchored nodes being walked: an alias to one is a cycle
	added   size                // what the aliases walked so far add
	crossed *yaml.Node          // the alias at which added went past a limit
}

// walk returns the resolved size of n, adding each alias's copy to m.added.
func (m *measure) walk(n *yaml.Node) size {
	if m.crossed != nil {
		return size{}
	}
	if n.Kind == yaml.AliasNode {
		s, ok := m.sizes[n.Alias]
		if !ok { // a cycle, which the resolver reports; it stands for a null
			return size{nodes: 1}
		}
		m.added.nodes += s.nodes
		m.added.bytes += s.bytes
		if m.added.nodes > MaxAliasNodes || m.added.bytes > MaxAliasBytes {
			m.crossed = n
		}
		return s
	}
	s := size{nodes: 1, bytes: len(n.Value)}
	for _, c := range n.Content {
		cs := m.walk(c)
		s.nodes += cs.nodes
		s.bytes += cs.bytes
	}
	if n.Anchor != "" {
		m.sizes[n] = s
	}
	return s
}

// tooBig is the diagnostic for a file whose aliases add more than the limits allow.
func tooBig(file string, m *measure) Diag {
	msg := fmt.Sprintf("YAML aliases expand to more than %d nodes", MaxAliasNodes)
	if m.added.bytes > MaxAliasBytes {
		msg = fmt.Sprintf("YAML aliases expand to more than %d MiB of text", MaxAliasBytes>>20)
	}
	// No path: the walk stopped here, and the position is what the user needs.
	return Where{File: file}.Diag(m.crossed, msg+"; write the repeated parts out, or reuse less")
}

// resolver replaces the aliases and merge keys of one file's documents by what they stand for.
// The measure has checked that the copies it makes stay within the limits.
type resolver struct {
	open  map[*yaml.Node]bool // anchored nodes being resolved: an alias to one is a cycle
	diags Diags
}

// node resolves n in place and returns what stands in its place: n itself, or for an alias a
// copy of the node it names.
func (r *resolver) node(n *yaml.Node, at Where) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		return r.alias(n, at)
	}
	if n.Anchor != "" {
		r.open[n] = true
		defer func() {
			delete(r.open, n)
			n.Anchor = "" // nothing refers to it any more
		}()
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for i, c := range n.Content {
			n.Content[i] = r.node(c, at.Index(i))
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			n.Content[i] = r.node(n.Content[i], at)
			n.Content[i+1] = r.node(n.Content[i+1], at.Field(n.Content[i].Value))
		}
		r.merge(n, at)
	}
	return n
}

// alias returns a copy of the node alias n names. By then that node is resolved: YAML names an
// anchor before any alias to it, and the walk follows the document's order.
func (r *resolver) alias(n *yaml.Node, at Where) *yaml.Node {
	if n.Alias == nil || r.open[n.Alias] {
		r.diags.Addf(n, at, "alias *%s is used inside the node it names, which would make it endless", n.Value)
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: n.Line, Column: n.Column}
	}
	return deepCopy(n.Alias)
}

// deepCopy copies the resolved node n and everything under it.
func deepCopy(n *yaml.Node) *yaml.Node {
	c := *n
	if len(n.Content) > 0 {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, child := range n.Content {
			c.Content[i] = deepCopy(child)
		}
	}
	return &c
}

// merge applies the merge keys of the resolved mapping m: each `<<` entry is replaced, where it
// stands, by the entries of the mappings it names that m does not already have.
func (r *resolver) merge(m *yaml.Node, at Where) {
	own := map[string]bool{}
	merges := false
	for i := 0; i+1 < len(m.Content); i += 2 {
		switch k := m.Content[i]; {
		case isMergeKey(k):
			merges = true
		case k.Kind == yaml.ScalarNode:
			own[k.Value] = true
		}
	}
	if !merges {
		return
	}
	out := make([]*yaml.Node, 0, len(m.Content))
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if !isMergeKey(k) {
			out = append(out, k, v)
			continue
		}
		for _, src := range r.mergeSources(k, v, at) {
			for j := 0; j+1 < len(src.Content); j += 2 {
				sk := src.Content[j]
				if sk.Kind == yaml.ScalarNode {
					if own[sk.Value] {
						continue // written in m, or brought by an earlier mapping
					}
					own[sk.Value] = true
				}
				out = append(out, sk, src.Content[j+1])
			}
		}
	}
	m.Content = out
}

// mergeSources returns the mappings a merge key's value names, in order, reporting anything else
// at the key: the value may be a copy whose position is its anchor's, the key is where the merge
// is written.
func (r *resolver) mergeSources(k, v *yaml.Node, at Where) []*yaml.Node {
	switch v.Kind {
	case yaml.MappingNode:
		return []*yaml.Node{v}
	case yaml.SequenceNode:
		var out []*yaml.Node
		for _, item := range v.Content {
			if item.Kind == yaml.MappingNode {
				out = append(out, item)
			} else {
				r.diags.Addf(k, at, "a merge key (<<) takes mappings, got %s", describe(item))
			}
		}
		return out
	}
	r.diags.Addf(k, at, "a merge key (<<) takes a mapping or a list of mappings, got %s", describe(v))
	return nil
}

// isMergeKey reports a plain `<<` key, which YAML tags !!merge (a quoted "<<" is text).
func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge"
}

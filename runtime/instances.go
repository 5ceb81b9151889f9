package runtime

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/config"
)

// Instance returns the built connector, flow or block at a config address,
// or nil. An address names connectors and flows by name and blocks by their
// place in a process list, as diagnostics do:
//
//	connectors.api                            the connector named api
//	flows.mcp                                 the flow named mcp (a *Flow)
//	flows.mcp.process[0]                      its first block
//	flows.mcp.process[0].tools[1].process[0]  a block in a composite block's branch
//
// A block is the value its type's Build returned, so a caller that knows
// the type asserts it (the workspace reaches a live mcp-mock server this
// way). Blocks one instance serves under several addresses (BlockSpec.SharedByName)
// are found under each.
func (s *Service) Instance(addr string) any { return s.instances[addr] }

// Instances lists every address Instance answers, sorted.
func (s *Service) Instances() []string { return slices.Sorted(maps.Keys(s.instances)) }

// within is the address of something a block holds at `at` (a composite
// block's branch): the block's address followed by the part of the config
// path below the block.
func (b *Build) within(at Where) string {
	if rest, ok := strings.CutPrefix(at.Path, b.At.Path); ok {
		return b.addr + rest
	}
	return b.addr + "." + at.Path
}

// named is the first block built of a SharedByName type under one name.
type named struct {
	cb   *config.Block
	step Block  // nil when its build failed
	sets varSet // the vars it can set
}

// sharedByName returns the block already built under cb's type and name when
// the type is SharedByName, after checking that cb's settings are the same,
// with the vars it sets; ok is false when cb is to be built.
func (bd *builder) sharedByName(spec BlockSpec, cb *config.Block, addr string) (Block, varSet, bool) {
	if !spec.SharedByName || cb.Name == "" {
		return nil, varSet{}, false
	}
	first, ok := bd.byName[cb.Type+"\x00"+cb.Name]
	if !ok {
		return nil, varSet{}, false
	}
	if !sameSettings(first.cb, cb) {
		bd.report(cb.Node, cb.At, "%s blocks named %q are one instance, so their settings must be the same; they differ from those at %s",
			cb.Type, cb.Name, position(first.cb))
		return nil, anyVars, true
	}
	if first.step != nil {
		blk := first.step.(*step).block
		bd.instances[addr] = blk
		if r, ok := blk.(HeaderReader); ok { // the flow sharing it reads its headers too
			bd.readers = append(bd.readers, r)
		}
	}
	return first.step, first.sets, true
}

// sameSettings reports whether two blocks are configured alike, wherever
// they are written.
func sameSettings(a, b *config.Block) bool {
	if !sameNode(a.Settings, b.Settings) || len(a.Extra) != len(b.Extra) {
		return false
	}
	for i, f := range a.Extra {
		if g := b.Extra[i]; f.Key != g.Key || !sameNode(f.Value, g.Value) {
			return false
		}
	}
	return true
}

// sameNode compares two YAML trees by what they say, not where.
func sameNode(a, b *yaml.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.ShortTag() != b.ShortTag() || a.Value != b.Value || len(a.Content) != len(b.Content) {
		return false
	}
	for i := range a.Content {
		if !sameNode(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}

func position(cb *config.Block) string {
	return fmt.Sprintf("%s:%d:%d", cb.At.File, cb.Node.Line, cb.Node.Column)
}

// Shared returns the table of resources the service shares with other
// builds: a block acquires from it when it starts (see Acquire).
func (b *Build) Shared() *Shared { return b.bd.shared }

// Holder says which build of which unit this block belongs to.
func (b *Build) Holder() Holder { return b.bd.holder }

// Shared returns the table of resources the service shares with other
// builds: a connector acquires its listener from it when it starts.
func (c *ConnectorBuild) Shared() *Shared { return c.bd.shared }

// Holder says which build of which unit this connector belongs to.
func (c *ConnectorBuild) Holder() Holder { return c.bd.holder }

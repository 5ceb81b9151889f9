package runtime

import (
	"errors"
	"log/slog"
	"reflect"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/config"
)

// Where locates a node of the user's config for diagnostics.
type Where = config.Where

// Position is where a decoded setting was written (see Positions).
type Position = config.Position

// Positions finds where each setting of a block's or connector's settings was written from the
// address of the field it was decoded into: b.Errorf(&s.Port, …) reports at the port's line.
type Positions = config.Positions

// builder holds what every block of one service build shares.
type builder struct {
	cfg       *config.Config
	env       map[string]string
	diags     config.Diags
	logger    *slog.Logger
	lifecycle []any // blocks that implement Starter or Stopper
	shared    *Shared
	holder    Holder
	instances map[string]any   // by address: Service.Instance
	byName    map[string]named // blocks of a SharedByName type, by type and name
	source    flowSource       // the source of the flow being built
	observer  Observer         // nil: nothing is observed
}

func (bd *builder) report(node *yaml.Node, at Where, format string, args ...any) {
	bd.diags.Addf(node, at, format, args...)
}

// buildProcess builds a list of blocks into one pipeline; addr is the
// list's address (flows.mcp.process), each block's is addr[i].
func (bd *builder) buildProcess(blocks []*config.Block, flow, addr string) Block {
	p := make(pipeline, 0, len(blocks))
	for i, cb := range blocks {
		if b := bd.buildBlock(cb, flow, addr+"["+strconv.Itoa(i)+"]"); b != nil {
			p = append(p, b)
		}
	}
	return p
}

func (bd *builder) buildBlock(cb *config.Block, flow, addr string) Block {
	spec, ok := lookupBlock(cb.Type)
	if !ok {
		bd.report(cb.Node, cb.At.Field("type"), "%s", config.Unknown("block type", cb.Type, blockNames()))
		return nil
	}
	bd.checkTransport(spec, cb)
	if s, ok := bd.sharedByName(spec, cb, addr); ok {
		return s
	}
	if !spec.Composite {
		for _, f := range cb.Extra {
			bd.report(f.KeyNode, cb.At.Field(f.Key), "unknown key %q: %s takes its options under settings", f.Key, cb.Type)
		}
	}
	b := &Build{Type: cb.Type, Name: cb.Name, Flow: flow, At: cb.At, cb: cb, settingsOf: settingsOf{bd: bd}, addr: addr}
	s := bd.build(spec, b)
	if spec.SharedByName && cb.Name != "" {
		bd.byName[cb.Type+"\x00"+cb.Name] = named{cb: cb, step: s}
	}
	return s
}

// build decodes a block's settings and runs its type's Build; nil when it reported a problem.
func (bd *builder) build(spec BlockSpec, b *Build) Block {
	cb := b.cb
	before := len(bd.diags)
	node, at := blockSettings(cb, spec.Composite)
	settings, ok := b.decode(spec.Settings(), node, at, cb.Node, &branchScope{flow: b.Flow, block: b})
	if !ok {
		return nil
	}
	blk, err := spec.Build.build(b, settings)
	if err != nil {
		var ds config.Diags
		if errors.As(err, &ds) {
			bd.diags = append(bd.diags, ds...)
		} else {
			bd.report(cb.Node, cb.At, "%v", err)
		}
		return nil
	}
	if len(bd.diags) > before || blk == nil {
		return nil
	}
	if _, ok := blk.(Starter); ok {
		bd.lifecycle = append(bd.lifecycle, blk)
	} else if _, ok := blk.(Stopper); ok {
		bd.lifecycle = append(bd.lifecycle, blk)
	}
	bd.instances[b.addr] = blk
	return bd.observe(step{block: blk, typ: cb.Type, name: cb.Name}, b)
}

// blockSettings is the node a block's settings are decoded from, and where it is: its settings
// mapping (nil when absent), or for a composite block its top-level keys but type and name.
func blockSettings(cb *config.Block, composite bool) (*yaml.Node, Where) {
	if !composite {
		at := cb.SettingsAt
		if at == (Where{}) {
			at = cb.At.Field("settings")
		}
		return cb.Settings, at
	}
	node := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: cb.Node.Line, Column: cb.Node.Column}
	for _, f := range cb.Extra {
		node.Content = append(node.Content, f.KeyNode, f.Value)
	}
	if cb.Settings != nil {
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "settings", Line: cb.Settings.Line, Column: cb.Settings.Column}
		node.Content = append(node.Content, key, cb.Settings)
	}
	return node, cb.At
}

// branchScope is where the branches of a block's settings are built: its flow, and the block
// whose address theirs extend. Settings outside a flow (a connector's) have none.
type branchScope struct {
	flow  string
	block *Build
}

// settingsOf is what a block's, connector's and source's build share: decoding their settings
// and reporting problems at the fields they concern.
type settingsOf struct {
	bd  *builder
	pos *Positions
}

// decode decodes node (nil: nothing written, positioned at owner) into a new value of spec's
// type, compiling its typed settings. Problems are reported; ok is false when the settings'
// shape is wrong (unknown keys, wrong types, values out of range), true when at most typed
// settings failed to compile, so the block's own checks still report theirs.
func (so *settingsOf) decode(spec *SettingsSpec, node *yaml.Node, at Where, owner *yaml.Node, scope *branchScope) (any, bool) {
	root := config.NodePosition(node, at)
	if node == nil {
		root = config.NodePosition(owner, at)
		root.Written = false
		node = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: owner.Line, Column: owner.Column}
	}
	so.pos = config.NewPositions(root)
	out := reflect.New(spec.Type)
	dc := &decoding{bd: so.bd, scope: scope}
	ds := (&config.Decoder{Hook: dc.hook, Positions: so.pos}).Decode(node, out.Interface(), at)
	so.bd.diags = append(so.bd.diags, ds...)
	return out.Interface(), len(ds) == dc.compiled
}

// Errorf reports a problem at a setting: field is a pointer into the decoded settings (&s.Port,
// &s.Tools[i], a pointer field's value) or a Position; nil is the settings themselves.
func (so *settingsOf) Errorf(field any, format string, args ...any) {
	so.bd.diags = append(so.bd.diags, so.pos.Diag(field, format, args...))
}

// Positions tells where each decoded setting was written.
func (so *settingsOf) Positions() *Positions { return so.pos }

// Build is what a block's constructor gets besides its settings: who it is, where it is, and
// the means to report problems at the settings they concern.
type Build struct {
	Type, Name string
	// Flow is the name of the flow the block belongs to.
	Flow string
	At   Where
	cb   *config.Block
	settingsOf
	addr string // the block's address (Service.Instance)
}

// Failed reports whether any problem has been reported so far in this build.
func (b *Build) Failed() bool { return len(b.bd.diags) > 0 }

// Logger returns a logger naming the flow and block.
func (b *Build) Logger() *slog.Logger {
	l := b.bd.logger.With("flow", b.Flow, "block", b.Type)
	if b.Name != "" {
		l = l.With("name", b.Name)
	}
	return l
}

// Env returns the service's declared variables and their values.
func (b *Build) Env() map[string]string { return b.bd.env }

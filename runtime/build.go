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
	declared  []string // the declared variables' names; nil outside a service build
	diags     config.Diags
	logger    *slog.Logger
	lifecycle []any // blocks that implement Starter or Stopper
	shared    *Shared
	holder    Holder
	instances map[string]any               // by address: Service.Instance
	updatable []updatable                  // blocks that take edits in place, in build order
	readers   []HeaderReader               // the HeaderReader blocks of the flow being built
	byName    map[string]named             // blocks of a SharedByName type, by type and name
	source    flowSource                   // the source of the flow being built
	single    map[string]*config.Connector // the connector of each OnePerService type
	observer  Observer                     // nil: nothing is observed
	cluster   *ClusterRef                  // service.cluster, nil when it names none
	// answers, while a branch tagged answers:"…" is built, is what its blocks answer with.
	answers string
	// types, while a branch is built, collects the types of the blocks in it (Branch.Holds).
	types *[]string
	// tool, while a tool's branch is built (BranchNamer), is the tool's name: its blocks'
	// metrics and spans are labelled with it.
	tool string
}

func (bd *builder) report(node *yaml.Node, at Where, format string, args ...any) {
	bd.diags.Addf(node, at, format, args...)
}

// buildProcess builds a list of blocks into one pipeline; addr is the
// list's address (flows.mcp.process), each block's is addr[i]. known is what
// vars can hold before the first block; it returns what they can hold after
// the last.
func (bd *builder) buildProcess(blocks []*config.Block, flow, addr string, known varSet, body *BodyKeys) (Block, varSet) {
	p := make(pipeline, 0, len(blocks))
	for i, cb := range blocks {
		if i > 0 {
			bd.checkFollows(blocks[i-1], cb)
		}
		b, after := bd.buildBlock(cb, flow, addr+"["+strconv.Itoa(i)+"]", known, body)
		if b != nil {
			p = append(p, b)
		}
		known = after
		if spec, ok := lookupBlock(cb.Type); !ok || !spec.KeepsBody {
			body = nil // the block's answer is the body now: known only at run time
		}
	}
	return p, known
}

// buildBlock builds one block, its expressions reading the vars of known and the body's keys
// (nil: any); it returns what vars can hold after it.
func (bd *builder) buildBlock(cb *config.Block, flow, addr string, known varSet, body *BodyKeys) (Block, varSet) {
	if bd.types != nil {
		*bd.types = append(*bd.types, cb.Type)
	}
	spec, ok := lookupBlock(cb.Type)
	if !ok {
		bd.report(cb.Node, cb.At.Field("type"), "%s", config.Unknown("block type", cb.Type, blockNames()))
		return nil, anyVars // what it would set is not known
	}
	bd.checkTransport(spec, cb)
	bd.checkAnswers(spec, cb)
	if s, sets, ok := bd.sharedByName(spec, cb, addr); ok {
		return s, known.union(sets)
	}
	if !spec.Composite {
		for _, f := range cb.Extra {
			bd.report(f.KeyNode, cb.At.Field(f.Key), "unknown key %q: %s takes its options under settings", f.Key, cb.Type)
		}
	}
	b := &Build{Type: cb.Type, Name: cb.Name, Flow: flow, At: cb.At, cb: cb, settingsOf: newSettingsOf(bd), addr: addr, vars: known, body: body}
	s, sets := bd.build(spec, b)
	if spec.SharedByName && cb.Name != "" {
		bd.byName[cb.Type+"\x00"+cb.Name] = named{cb: cb, step: s, sets: sets}
	}
	return s, known.union(sets)
}

// build decodes a block's settings and runs its type's Build; nil when it reported a problem.
// sets is what the block can set in vars: what its settings say, and what its branches can.
func (bd *builder) build(spec BlockSpec, b *Build) (_ Block, sets varSet) {
	cb := b.cb
	before := len(bd.diags)
	node, at := blockSettings(cb, spec.Composite)
	settings, ok := b.decode(spec.Settings(), node, at, cb.Node, &branchScope{flow: b.Flow, block: b})
	sets = b.branches.with(setsVars(settings)...)
	if !ok {
		return nil, sets
	}
	blk, err := spec.Build.build(b, settings)
	switch {
	case err != nil:
		bd.fail(cb.Node, cb.At, err)
		return nil, sets
	case blk == nil:
		bd.report(cb.Node, cb.At, "block type %s built no block and returned no error (a bug in the block: its build must return b.Err())", cb.Type)
		return nil, sets
	case len(bd.diags) > before: // a problem reported, yet a block returned: the problem wins
		return nil, sets
	}
	switch blk.(type) {
	case Starter, Stopper, Readier:
		bd.lifecycle = append(bd.lifecycle, blk)
	}
	bd.instances[b.addr] = blk
	if r, ok := blk.(HeaderReader); ok {
		bd.readers = append(bd.readers, r)
	}
	if u, ok := blk.(Updater); ok {
		bd.updatable = append(bd.updatable, updatable{addr: b.addr, block: u, decoded: Decoded{Settings: settings, Positions: b.pos}})
	}
	return bd.observe(&step{block: blk, typ: cb.Type, name: cb.Name, addr: b.addr, at: positionOf(cb)}, b), sets
}

// positionOf is where a block is written, file:line:col, as its failures name it at run time.
func positionOf(cb *config.Block) string {
	return cb.At.File + ":" + strconv.Itoa(cb.Node.Line) + ":" + strconv.Itoa(cb.Node.Column)
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
	bd    *builder
	pos   *Positions
	first int // how many problems the service build had before this one began
}

// newSettingsOf begins the build of one block's, connector's or source's settings.
func newSettingsOf(bd *builder) settingsOf { return settingsOf{bd: bd, first: len(bd.diags)} }

// decode decodes node (nil: nothing written, positioned at owner) into a new value of spec's
// type, compiling its typed settings. Problems are reported; ok is false when the settings'
// shape is wrong (unknown keys, wrong types, values out of range), true when at most typed
// settings failed to compile, so the block's own checks still report theirs.
func (so *settingsOf) decode(spec *SettingsSpec, node *yaml.Node, at Where, owner *yaml.Node, scope *branchScope) (any, bool) {
	root := so.bd.cfg.Sources.Position(node, at)
	if node == nil {
		root = config.NodePosition(owner, at)
		root.Written = false
		node = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: owner.Line, Column: owner.Column}
	}
	so.pos = config.NewPositions(root)
	out := reflect.New(spec.Type)
	dc := &decoding{bd: so.bd, scope: scope}
	ds := (&config.Decoder{Hook: dc.hook, Positions: so.pos, Sources: so.bd.cfg.Sources, Interpolated: so.bd.cfg.Interpolated}).Decode(node, out.Interface(), at)
	so.bd.diags = append(so.bd.diags, ds...)
	return out.Interface(), len(ds) == dc.compiled
}

// Errorf reports a problem at a setting: field is a pointer into the decoded settings (&s.Port,
// &s.Tools[i], a pointer field's value) or a Position; nil is the settings themselves.
//
// It returns an error for the build function to return when the problem ends the build
// (return nil, b.Errorf(…)): the problem is told once, where it was reported. A build that
// goes on to report more returns b.Err() at its end.
func (so *settingsOf) Errorf(field any, format string, args ...any) error {
	so.bd.diags = append(so.bd.diags, so.pos.Diag(field, format, args...))
	return so.Err()
}

// Err returns nil while nothing is wrong with these settings (decoding them included), else the
// error their build function returns: a build's failures take one way out, its error result,
// and the problems it carries are those already reported.
func (so *settingsOf) Err() error {
	if len(so.bd.diags) == so.first {
		return nil
	}
	return &reported{diags: so.bd.diags[so.first:len(so.bd.diags):len(so.bd.diags)]}
}

// reported is the error Errorf and Err return: its problems are in the build's diagnostics
// already, so the builder, finding it in a build function's result, adds nothing.
type reported struct{ diags config.Diags }

func (r *reported) Error() string { return r.diags.Error() }

// fail reports what a build function (or a connector's Attach) returned: nothing more for
// problems it reported, the problems of a config.Diags, else the error at the item.
func (bd *builder) fail(node *yaml.Node, at Where, err error) {
	var (
		r  *reported
		ds config.Diags
	)
	switch {
	case errors.As(err, &r):
	case errors.As(err, &ds):
		bd.diags = append(bd.diags, ds...)
	default:
		bd.report(node, at, "%v", err)
	}
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
	addr     string    // the block's address (Service.Instance)
	vars     varSet    // what vars can hold before the block
	body     *BodyKeys // the keys the body can have before the block; nil: any
	branches varSet    // what the block's branches can set, for the blocks after it
}

// Logger returns a logger naming the flow and block.
func (b *Build) Logger() *slog.Logger {
	l := b.bd.logger.With("flow", b.Flow, "block", b.Type)
	if b.Name != "" {
		l = l.With("name", b.Name)
	}
	return l
}

// SourceAddr returns what reports the address the flow's source connector listens on, as
// host:port: "" until the service has started, and always for a connector that has none (a
// pipe). A Readier reads it in Ready.
func (b *Build) SourceAddr() func() string {
	if c, ok := b.bd.instances["connectors."+b.bd.source.connector].(interface{ Addr() string }); ok {
		return c.Addr
	}
	return func() string { return "" }
}

// SourceURL returns what reports the URL a client reaches the flow being built at (an http
// connector's address and the flow's path): "" until the service has started, and always for
// a connector that cannot say (stdio).
func (b *Build) SourceURL() func() string {
	if c, ok := b.bd.instances["connectors."+b.bd.source.connector].(Locator); ok {
		flow := b.Flow
		return func() string { return c.URLOf(flow) }
	}
	return func() string { return "" }
}

// Env returns the service's declared variables and their values.
func (b *Build) Env() map[string]string { return b.bd.env }

// Connector returns the config's connector name as built, nil when the config has none: a
// block that sends through a connector's connection (nats-publish) finds it here, and uses it
// once the service has started.
func (b *Build) Connector(name string) Connector {
	c, _ := b.bd.instances["connectors."+name].(Connector)
	return c
}

// Connectors lists the names of the config's connectors, in the order written, for a block's
// did-you-mean.
func (b *Build) Connectors() []string {
	names := make([]string, 0, len(b.bd.cfg.Connectors))
	for _, c := range b.bd.cfg.Connectors {
		names = append(names, c.Name)
	}
	return names
}

// ServiceName is the name the config gives its service: what a connector names itself by on a
// message system (a queue group, a durable consumer) unless told otherwise.
func (so *settingsOf) ServiceName() string { return so.bd.cfg.Service.Name }

// Addr is the block's address in the service (flows.NAME.process[0]…), unique and stable
// across reloads of the same config: what a block names itself by to others.
func (b *Build) Addr() string { return b.addr }

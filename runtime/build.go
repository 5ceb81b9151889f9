package runtime

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/config"
)

// Where locates a node of the user's config for diagnostics.
type Where = config.Where

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
	if s, ok := bd.sharedByName(spec, cb, addr); ok {
		return s
	}
	if !spec.Composite {
		for _, f := range cb.Extra {
			bd.report(f.KeyNode, cb.At.Field(f.Key), "unknown key %q: %s takes its options under settings", f.Key, cb.Type)
		}
	}
	b := &Build{Type: cb.Type, Name: cb.Name, Flow: flow, At: cb.At, bd: bd, cb: cb, addr: addr}
	s := bd.build(spec, b)
	if spec.SharedByName && cb.Name != "" {
		bd.byName[cb.Type+"\x00"+cb.Name] = named{cb: cb, step: s}
	}
	return s
}

// build runs a block type's Build; nil when it reported a problem.
func (bd *builder) build(spec BlockSpec, b *Build) Block {
	cb := b.cb
	before := len(bd.diags)
	blk, err := spec.Build(b)
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
	return step{block: blk, typ: cb.Type, name: cb.Name}
}

// Build is what a block's constructor gets: its settings and the means to
// decode and compile them, with every problem reported at its line.
type Build struct {
	Type, Name string
	// Flow is the name of the flow the block belongs to.
	Flow string
	At   Where
	bd   *builder
	cb   *config.Block
	addr string // the block's address (Service.Instance)
}

// Settings returns the raw settings node (nil when absent).
func (b *Build) Settings() *yaml.Node { return b.cb.Settings }

// Decode decodes the block's settings strictly into out (a pointer to a
// struct with yaml tags); it reports problems and returns false on any.
func (b *Build) Decode(out any) bool {
	node := b.cb.Settings
	if node == nil {
		node = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: b.cb.Node.Line, Column: b.cb.Node.Column}
	}
	return b.decode(node, b.At.Field("settings"), out)
}

// DecodeFields decodes a composite block's top-level keys (all but type,
// name and settings) strictly into out.
func (b *Build) DecodeFields(out any) bool {
	node := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: b.cb.Node.Line, Column: b.cb.Node.Column}
	for _, f := range b.cb.Extra {
		node.Content = append(node.Content, f.KeyNode, f.Value)
	}
	return b.decode(node, b.At, out)
}

func (b *Build) decode(node *yaml.Node, at Where, out any) bool {
	ds := config.Decode(node, out, at)
	b.bd.diags = append(b.bd.diags, ds...)
	return len(ds) == 0
}

// Errorf reports a problem at node; at names the setting (see Where.Field).
func (b *Build) Errorf(node *yaml.Node, at Where, format string, args ...any) {
	if node == nil {
		node = b.cb.Node
	}
	b.bd.report(node, at, format, args...)
}

// Failed reports whether any problem has been reported so far in this build.
func (b *Build) Failed() bool { return len(b.bd.diags) > 0 }

// Expr compiles the expression held by node, reporting errors at the exact
// line and column inside it. A `${VAR}` in it is a literal of the
// variable's value, never source text.
func (b *Build) Expr(node *yaml.Node, at Where) *Expr {
	e, err := compileExpr(b.written(node), b.bd.env)
	if err != nil {
		b.reportExpr(node, at, err)
		return nil
	}
	return e
}

// Template compiles text held by node as a template. A `${VAR}` in it is
// text outside tags and a literal of the variable's value inside them.
func (b *Build) Template(node *yaml.Node, at Where) *Template {
	t, err := compileTemplate(b.written(node), b.bd.env)
	if err != nil {
		b.reportExpr(node, at, err)
		return nil
	}
	return t
}

// JSONText returns the JSON text held by node (a setting such as a tool's
// inputSchema). A `${VAR}` in it is a JSON value where it stands, never JSON
// text of its own: inside a string it is part of the string.
func (b *Build) JSONText(node *yaml.Node, at Where) (string, bool) {
	w := b.written(node)
	text, p := jsonText(w)
	if p != nil {
		b.reportExpr(node, at, p.in(w.Written))
		return "", false
	}
	return text, true
}

// written is node's text as the user wrote it: with the `${VAR}`s the loader
// replaced in it, if any.
func (b *Build) written(node *yaml.Node) config.Interpolation {
	if w, ok := b.bd.cfg.Interpolated[node]; ok {
		return w
	}
	return plainText(node.Value)
}

// Resource returns the text of a template resource by alias; node is where
// the alias was written.
func (b *Build) Resource(alias string, node *yaml.Node, at Where) (text string, ok bool) {
	t, ok := b.bd.cfg.Templates[alias]
	if !ok {
		known := slices.Sorted(maps.Keys(b.bd.cfg.Templates))
		b.Errorf(node, at, "%s", config.Unknown("template resource", alias, known))
		return "", false
	}
	return t.Text, true
}

// ResourceTemplate compiles a template resource by alias; errors inside the
// file point at the file.
func (b *Build) ResourceTemplate(alias string, node *yaml.Node, at Where) *Template {
	text, ok := b.Resource(alias, node, at)
	if !ok {
		return nil
	}
	t, err := CompileTemplate(text, b.bd.env)
	if err != nil {
		var ee *ExprError
		errors.As(err, &ee)
		res := b.bd.cfg.Templates[alias]
		b.bd.diags = append(b.bd.diags, config.Diag{File: res.File, Line: ee.Line, Col: ee.Column,
			Path: at.Path, Kind: at.Kind, Name: at.Name, Msg: fmt.Sprintf("template %q: %s", alias, ee.Msg)})
		return nil
	}
	return t
}

// Process builds a nested process list (a composite block's branch).
func (b *Build) Process(node *yaml.Node, at Where) Block {
	blocks, ds := config.ParseProcess(node, at)
	b.bd.diags = append(b.bd.diags, ds...)
	if len(ds) > 0 {
		return nil
	}
	return b.bd.buildProcess(blocks, b.Flow, b.within(at))
}

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

// reportExpr maps a position inside a setting's text to the file: the
// node's own position plus the offset, one column more for quoted styles.
func (b *Build) reportExpr(node *yaml.Node, at Where, err error) {
	var ee *ExprError
	if !errors.As(err, &ee) {
		b.Errorf(node, at, "%v", err)
		return
	}
	d := at.Diag(node, ee.Msg)
	switch {
	case node.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		d.Line, d.Col = node.Line+ee.Line, node.Column+ee.Column-1
	case ee.Line == 1:
		d.Col = node.Column + ee.Column - 1
		if node.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
			d.Col++
		}
	default:
		d.Line = node.Line + ee.Line - 1
	}
	b.bd.diags = append(b.bd.diags, d)
}

// Setting returns the node of one key under the block's settings, so a
// check made after decoding can point at its line; nil when absent.
func (b *Build) Setting(key string) *yaml.Node { return mappingValue(b.cb.Settings, key) }

// Field returns the node of one of a composite block's top-level keys.
func (b *Build) Field(key string) *yaml.Node {
	for _, f := range b.cb.Extra {
		if f.Key == key {
			return f.Value
		}
	}
	return nil
}

// MappingValue returns the value node for key in a YAML mapping, or nil.
func MappingValue(node *yaml.Node, key string) *yaml.Node { return mappingValue(node, key) }

func mappingValue(node *yaml.Node, key string) *yaml.Node {
	if node == nil || node.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(node.Content); i += 2 {
		if node.Content[i].Value == key {
			return node.Content[i+1]
		}
	}
	return nil
}

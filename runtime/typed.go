package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/config"
)

// Typed settings: a settings struct declares a field of one of these types and gets it compiled
// when its settings are decoded, every problem reported at its line and column:
//
//   - Expr: an expr-lang expression (`value: body.city`);
//   - Template: text with {{ expression }} tags;
//   - TemplateResource: the alias of a template resource, compiled from its file;
//   - Branch: a nested process list, built by the same builder;
//   - any json.Unmarshaler (json.RawMessage, a JSON Schema type): JSON text, where a `${VAR}`
//     is a JSON value, or YAML written as JSON (a mapping or list, its keys in written order).
//
// A Go duration (time.Duration) is text such as 250ms; bound it with min and max tags.

// TemplateResource is a template resource named by its alias (resources.templates[].as),
// compiled once.
type TemplateResource struct {
	Alias string
	Template
}

// Branch is a nested process list: a composite block's tool or route, run like a flow.
type Branch struct {
	Block
	types []string // the types of its blocks, those of its blocks' branches too
}

// Holds reports whether a block of type blockType is in the branch, or in a branch of one of
// its blocks: the router asks whether a tool reports its own steps (progress).
func (b Branch) Holds(blockType string) bool { return slices.Contains(b.types, blockType) }

var (
	exprType     = reflect.TypeFor[Expr]()
	templateType = reflect.TypeFor[Template]()
	resourceType = reflect.TypeFor[TemplateResource]()
	branchType   = reflect.TypeFor[Branch]()
)

// decoding is what the typed settings of one decode compile against: the service being built,
// and where its branches belong (nil outside a flow, where there are none).
type decoding struct {
	bd    *builder
	scope *branchScope
	// compiled counts the problems of typed settings: the settings' shape is sound without
	// them, so the block's own checks still run and every problem is reported at once.
	compiled int
	// branchSets are what each branch decoded so far can set, for a branch that follows it.
	branchSets map[branchKey]varSet
}

// branchKey names a Branch field: the settings struct it is in, and its key.
type branchKey struct {
	in  uintptr
	key string
}

// hook compiles the typed settings; it leaves every other type to the decoder.
func (dc *decoding) hook(n *yaml.Node, at Where, v reflect.Value, f config.HookField) (config.Diags, bool) {
	var ds config.Diags
	switch {
	case v.Type() == exprType:
		ds = compileText(dc, n, at, v, "an expression", f, compileExpr)
	case v.Type() == templateType:
		ds = compileText(dc, n, at, v, "a template (text)", f, compileTemplate)
	case v.Type() == resourceType:
		ds = dc.resource(n, at, v, f)
	case v.Type() == branchType:
		ds = dc.branch(n, at, v, f)
	case v.CanAddr() && v.Addr().Type().Implements(unmarshalType):
		ds = dc.json(n, at, v.Addr().Interface().(json.Unmarshaler))
	default:
		return nil, false
	}
	dc.compiled += len(ds)
	return ds, true
}

// compileText compiles the text of scalar n, as written, into v, reporting a problem inside it
// at its line and column.
func compileText[T any](dc *decoding, n *yaml.Node, at Where, v reflect.Value, want string, f config.HookField,
	compile func(config.Interpolation, *exprScope) (*T, error)) config.Diags {
	if n.Kind != yaml.ScalarNode {
		return config.Diags{config.TypeError(n, at, want)}
	}
	compiled, err := compile(dc.written(n), dc.names(f))
	if err != nil {
		return config.Diags{dc.textDiag(n, at, err)}
	}
	v.Set(reflect.ValueOf(compiled).Elem())
	return nil
}

// resource compiles the template resource an alias names; errors inside it point at its file.
func (dc *decoding) resource(n *yaml.Node, at Where, v reflect.Value, f config.HookField) config.Diags {
	if n.Kind != yaml.ScalarNode {
		return config.Diags{config.TypeError(n, at, "the alias of a template resource")}
	}
	alias := n.Value
	res, ok := dc.bd.cfg.Templates[alias]
	if !ok && dc.bd.cfg.Missing.Templates {
		return nil // it may be one that was left out for its problems
	}
	if !ok {
		known := slices.Sorted(maps.Keys(dc.bd.cfg.Templates))
		return config.Diags{at.Diag(n, config.Unknown("template resource", alias, known))}
	}
	t, err := compileTemplate(plainText(res.Text), dc.names(f))
	if err != nil {
		var ee *ExprError
		errors.As(err, &ee)
		return config.Diags{{File: res.File, Line: ee.Line, Col: ee.Column,
			Path: at.Path, Kind: at.Kind, Name: at.Name, Msg: fmt.Sprintf("template %q: %s", alias, ee.Msg)}}
	}
	v.Set(reflect.ValueOf(TemplateResource{Alias: alias, Template: *t}))
	return nil
}

// branch builds a nested process list with the builder of the service, in the same flow. Its
// blocks may read the vars set before its block, and those its field's vars tag names; what
// they set, the blocks after its block may read. It starts with the body its settings describe
// (a tool's arguments), or its block's where its field is tagged `body:"kept"`.
func (dc *decoding) branch(n *yaml.Node, at Where, v reflect.Value, f config.HookField) config.Diags {
	if dc.scope == nil {
		return config.Diags{at.Diag(n, "a process list is built only in a flow")}
	}
	blocks, ds := config.ParseProcess(n, at)
	if len(ds) > 0 {
		return ds
	}
	b := dc.scope.block
	known := b.vars
	if names := f.Tag.Get(varsTag); names != "" {
		known = known.with(strings.Split(names, ",")...)
	}
	if key := f.Tag.Get(followsTag); key != "" && f.In.IsValid() {
		known = known.union(dc.branchSets[branchKey{f.In.Pointer(), key}])
	}
	var body *BodyKeys // what a branch runs with is known only at run time, unless:
	if f.Tag.Get(bodyTag) == "kept" {
		body = b.body
	}
	if own, ok := describedBody(f); ok {
		body = own
	}
	outer, types, answers, tool := dc.bd.types, []string{}, dc.bd.answers, dc.bd.tool
	dc.bd.types = &types
	if a := f.Tag.Get(answersTag); a != "" {
		dc.bd.answers = a
	}
	if kind, name, ok := branchName(f); ok && kind == "tool" {
		dc.bd.tool = name
	}
	p, after := dc.bd.buildProcess(blocks, dc.scope.flow, b.within(at), known, body)
	dc.bd.answers, dc.bd.tool = answers, tool
	if dc.bd.types = outer; outer != nil {
		*outer = append(*outer, types...)
	}
	b.branches = b.branches.union(after)
	if f.In.IsValid() { // a Branch is a settings struct's field: a branch after it may follow it
		if dc.branchSets == nil {
			dc.branchSets = map[branchKey]varSet{}
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		dc.branchSets[branchKey{f.In.Pointer(), name}] = after
	}
	v.Set(reflect.ValueOf(Branch{Block: p, types: types}))
	return nil
}

// BranchNamer is implemented by settings that hold a branch and name what it is for: a
// router's tool is ("tool", its name). The blocks of the branch, and of the branches in it,
// are labelled with it in metrics (tool) and traces (octo.tool).
type BranchNamer interface {
	BranchName() (kind, name string)
}

// branchName is what the settings holding field f name their branch, if they do.
func branchName(f config.HookField) (kind, name string, ok bool) {
	if !f.In.IsValid() || f.In.Kind() != reflect.Pointer {
		return "", "", false
	}
	n, ok := f.In.Interface().(BranchNamer)
	if !ok {
		return "", "", false
	}
	kind, name = n.BranchName()
	return kind, name, true
}

// json hands a JSON value to u: JSON text as written (a `${VAR}` in it a JSON value where it
// stands), or a YAML mapping or list written as JSON in key order.
func (dc *decoding) json(n *yaml.Node, at Where, u json.Unmarshaler) config.Diags {
	var text []byte
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str":
		w := dc.written(n)
		t, p := jsonText(w)
		if p != nil {
			return config.Diags{dc.textDiag(n, at, p.in(w.Written))}
		}
		text = []byte(t)
	case n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode:
		var err *yamlJSONError
		if text, err = yamlJSON(n); err != nil {
			return config.Diags{at.Diag(err.node, err.msg)}
		}
	default:
		return config.Diags{config.TypeError(n, at, "JSON text or a mapping")}
	}
	if err := u.UnmarshalJSON(text); err != nil {
		return config.Diags{at.Diag(n, err.Error())}
	}
	return nil
}

// names is what the expression or template of field f may read by name: the declared
// variables, in a flow the vars set before its block, and the body's keys where they are known
// (its block's, or those its settings describe).
func (dc *decoding) names(f config.HookField) *exprScope {
	sc := &exprScope{env: dc.bd.env, declared: dc.bd.declared}
	if dc.scope != nil {
		sc.vars = &dc.scope.block.vars
		sc.body = dc.scope.block.body
	}
	if own, ok := describedBody(f); ok {
		sc.body = own
	}
	return sc
}

// written is n's text as the user wrote it: with the `${VAR}`s the loader replaced in it, if any.
func (dc *decoding) written(n *yaml.Node) config.Interpolation {
	if w, ok := dc.bd.cfg.Interpolated[n]; ok {
		return w
	}
	return plainText(n.Value)
}

// textDiag reports err at n; an *ExprError's line and column inside the text are mapped to the
// file.
func (dc *decoding) textDiag(n *yaml.Node, at Where, err error) config.Diag {
	p := dc.bd.cfg.Sources.Position(n, at)
	var ee *ExprError
	if !errors.As(err, &ee) {
		return p.Diag(err.Error())
	}
	return p.DiagInside(ee.Line, ee.Column, ee.Msg)
}

var _ Block = Branch{}

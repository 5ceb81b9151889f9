package mock

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/blocks/mcp"
	"github.com/octo-run/octo/blocks/mcp/mock/placeholder"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// catalog is one compiled version of a server's tools, resources and
// prompts. It is immutable: a live edit compiles a new one and swaps it in.
type catalog struct {
	tools      []*tool
	toolByName map[string]*tool
	toolList   []mcp.Tool

	resources     []*resource // fixed URIs, in order
	resourceByURI map[string]*resource
	templates     []*resource // URI templates, in order
	resourceList  []mcp.Resource
	templateList  []mcp.ResourceTemplate

	prompts      []*prompt
	promptByName map[string]*prompt
	promptList   []mcp.Prompt
}

// compiler turns decoded settings into a catalog. Problems with one item
// (a duplicate name, a schema or template that does not compile) leave that
// item out and are collected; the rest of the server still serves.
type compiler struct {
	vars     map[string]string
	node     *yaml.Node // the settings mapping
	at       config.Where
	problems config.Diags
}

// compileCatalog builds the catalog of s, whose settings mapping is node.
func compileCatalog(s *settings, node *yaml.Node, at config.Where) (*catalog, config.Diags) {
	c := &compiler{vars: s.Variables, node: node, at: at}
	cat := &catalog{
		toolByName:    map[string]*tool{},
		resourceByURI: map[string]*resource{},
		promptByName:  map[string]*prompt{},
	}
	c.tools(cat, s.Tools)
	c.resources(cat, s.Resources)
	c.prompts(cat, s.Prompts)
	return cat, c.problems
}

// item returns the node of entry i of the list under key.
func (c *compiler) item(key string, i int) (*yaml.Node, config.Where) {
	return itemAt(field(c.node, key), i), c.at.Field(key).Index(i)
}

// itemAt returns entry i of a list node, or nil.
func itemAt(list *yaml.Node, i int) *yaml.Node {
	if list == nil || list.Kind != yaml.SequenceNode || i >= len(list.Content) {
		return nil
	}
	return deref(list.Content[i])
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// field returns the value node of key in mapping n (which may be nil).
func field(n *yaml.Node, key string) *yaml.Node { return deref(runtime.MappingValue(deref(n), key)) }

// fieldOr is field, or n itself when the key is absent, so a problem always
// points somewhere near.
func fieldOr(n *yaml.Node, key string) *yaml.Node {
	if f := field(n, key); f != nil {
		return f
	}
	return n
}

func (c *compiler) problem(n *yaml.Node, at config.Where, format string, args ...any) {
	c.problems.Addf(n, at, format, args...)
}

// template compiles answer text, reporting each bad tag at its position in
// the file.
func (c *compiler) template(text string, n *yaml.Node, at config.Where) (*placeholder.Template, bool) {
	t, err := placeholder.Compile(text, c.vars)
	if err == nil {
		return t, true
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		var pe *placeholder.Error
		if !errors.As(e, &pe) {
			c.problem(n, at, "%v", e)
			continue
		}
		d := config.Diag{File: at.File, Path: at.Path, Kind: at.Kind, Name: at.Name, Msg: pe.Msg}
		d.Line, d.Col = textPosition(n, pe.Line, pe.Column)
		c.problems = append(c.problems, d)
	}
	return nil, false
}

// textPosition maps a line and column inside a scalar's text to the file:
// the node's own position plus the offset, one column more for quotes.
func textPosition(n *yaml.Node, line, col int) (int, int) {
	if n == nil {
		return 0, 0
	}
	switch {
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return n.Line + line, n.Column + col - 1
	case line == 1:
		if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
			col++
		}
		return n.Line, n.Column + col - 1
	}
	return n.Line + line - 1, col
}

// checkRefs reports tags that name what the item cannot have: URI parts
// outside a resource template, arguments where there are none, or names the
// item does not declare. A nil set accepts any name (a tool whose schema
// lists no properties); an empty one accepts none.
func (c *compiler) checkRefs(t *placeholder.Template, n *yaml.Node, at config.Where, args, params map[string]bool) bool {
	ok := true
	for _, r := range t.Refs() {
		set := args
		if r.Source == "params" {
			set = params
		}
		if set == nil || len(set) > 0 && (r.Name == "" || set[r.Name]) {
			continue
		}
		line, col := textPosition(n, r.Pos.Line, r.Pos.Column)
		c.problems = append(c.problems, config.Diag{File: at.File, Line: line, Col: col,
			Path: at.Path, Kind: at.Kind, Name: at.Name, Msg: refProblem(r, set)})
		ok = false
	}
	return ok
}

func refProblem(r placeholder.Ref, set map[string]bool) string {
	tag := "{{" + r.Source
	if r.Name != "" {
		tag += "." + r.Name
	}
	tag += "}}"
	if len(set) == 0 {
		if r.Source == "params" {
			return tag + " needs a resource uri with {" + r.Name + "} in it; there are no URI parts here"
		}
		return tag + ": nothing here takes arguments"
	}
	names := make([]string, 0, len(set))
	for k := range set {
		names = append(names, k)
	}
	slices.Sort(names)
	what := "argument"
	if r.Source == "params" {
		what = "URI part"
	}
	return tag + ": " + config.Unknown(what, r.Name, names)
}

// noParams is the empty set: no URI parts to refer to.
var noParams = map[string]bool{}

// schemaProperties returns the names under a schema's top-level
// "properties", or nil when it declares none (then any argument may exist).
func schemaProperties(raw []byte) map[string]bool {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(raw, &s) != nil || s.Properties == nil {
		return nil
	}
	out := make(map[string]bool, len(s.Properties))
	for k := range s.Properties {
		out[k] = true
	}
	return out
}

// enabled reads an enabled flag, default true.
func enabled(b *bool) bool { return b == nil || *b }

// duplicate reports a second item with a name already taken.
func (c *compiler) duplicate(n *yaml.Node, at config.Where, what, name string, first config.Diag) {
	c.problem(n, at, "duplicate %s %q; first declared at %d:%d, this one is left out", what, name, first.Line, first.Col)
}

// firstAt records where an item was declared, for duplicate messages.
func firstAt(n *yaml.Node) config.Diag {
	if n == nil {
		return config.Diag{}
	}
	return config.Diag{Line: n.Line, Col: n.Column}
}

// compileSchema compiles a tool schema, reporting a problem at its key.
func (c *compiler) compileSchema(j jsonText, at config.Where, key string) (*mcp.Schema, bool) {
	s, err := mcp.CompileSchema(j.Text)
	if err != nil {
		c.problem(j.Node, at.Field(key), "%v", err)
		return nil, false
	}
	return s, true
}

// errf builds an error result's text.
func errf(format string, args ...any) *mcp.CallToolResult {
	return mcp.ToolError(fmt.Sprintf(format, args...))
}

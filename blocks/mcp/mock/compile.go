package mock

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/octo-run/octo/blocks/mockkit/placeholder"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/schema"
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
	seed     *int64            // the server's seed: failure draws repeat with it
	pos      *config.Positions // where each setting was written
	problems config.Diags
}

// compileCatalog builds the catalog of s, whose settings were written at pos.
func compileCatalog(s *Settings, pos *config.Positions) (*catalog, config.Diags) {
	c := &compiler{vars: s.Variables, pos: pos, seed: s.Seed}
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

// problem reports a problem at a setting (a pointer into the settings).
// schemaProblem reports the problem of the schema setting at field, at the part at fault.
func (c *compiler) schemaProblem(field *mcp.SchemaSetting) {
	schema.ReportProblems(c.pos.Of(field), field.Err, func(at config.Position, msg string) {
		c.problem(at, "%s", msg)
	})
}

func (c *compiler) problem(field any, format string, args ...any) {
	c.problems = append(c.problems, c.pos.Diag(field, format, args...))
}

// template compiles answer text written at field, reporting each bad tag
// at its position in the file.
func (c *compiler) template(text string, field any) (*placeholder.Template, bool) {
	t, ds := placeholder.CompileAt(text, c.vars, c.pos.Of(field))
	c.problems = append(c.problems, ds...)
	return t, len(ds) == 0
}

// checkRefs reports tags that name what the item cannot have: URI parts
// outside a resource template, arguments where there are none, or names the
// item does not declare. A nil set accepts any name (a tool whose schema
// lists no properties); an empty one accepts none.
func (c *compiler) checkRefs(t *placeholder.Template, field any, args, params map[string]bool) bool {
	ok := true
	at := c.pos.Of(field)
	for _, r := range t.Refs() {
		if r.Source != "args" && r.Source != "params" {
			c.problems = append(c.problems, at.DiagInside(r.Pos.Line, r.Pos.Column,
				"{{"+r.Source+"…}} reads an HTTP request, in an HTTP mock; an MCP answer reads {{args…}} (and a resource template's {{params…}})"))
			ok = false
			continue
		}
		set := args
		if r.Source == "params" {
			set = params
		}
		if set == nil || len(set) > 0 && (r.Name == "" || set[r.Name]) {
			continue
		}
		c.problems = append(c.problems, at.DiagInside(r.Pos.Line, r.Pos.Column, refProblem(r, set)))
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

// duplicate reports a second item with a name already taken, at its name.
func (c *compiler) duplicate(name *string, what string, first config.Position) {
	c.problem(name, "duplicate %s %q; first declared at %d:%d, this one is left out", what, *name, first.Line, first.Col)
}

// errf builds an error result's text.
func errf(format string, args ...any) *mcp.CallToolResult {
	return mcp.ToolError(fmt.Sprintf(format, args...))
}

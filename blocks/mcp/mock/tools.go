package mock

import (
	"maps"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/blocks/mcp"
	"github.com/octo-run/octo/blocks/mcp/mock/placeholder"
	"github.com/octo-run/octo/runtime/config"
)

// tool is one compiled tool.
type tool struct {
	def     mcp.Tool
	input   *mcp.Schema // nil: any object
	output  *mcp.Schema // nil: no structured content
	result  *placeholder.Template
	content []*content // when the answer is items rather than one result text
	isError bool
	delay   time.Duration
	steps   []*step
}

func (c *compiler) tools(cat *catalog, confs []toolConfig) {
	first := map[string]config.Diag{}
	for i := range confs {
		tc := &confs[i]
		n, at := c.item("tools", i)
		at = at.Label(at.Kind, at.Name)
		if !enabled(tc.Enabled) {
			continue
		}
		if !validToolName(tc.Name) {
			c.problem(fieldOr(n, "name"), at.Field("name"), "tool name %q would confuse clients: use 1 to 128 of A-Z a-z 0-9 _ - . (no spaces); this tool is left out", tc.Name)
			continue
		}
		if f, dup := first[tc.Name]; dup {
			c.duplicate(fieldOr(n, "name"), at.Field("name"), "tool name", tc.Name, f)
			continue
		}
		t, ok := c.tool(tc, n, at)
		if !ok {
			continue
		}
		first[tc.Name] = firstAt(fieldOr(n, "name"))
		cat.tools = append(cat.tools, t)
		cat.toolByName[t.def.Name] = t
		cat.toolList = append(cat.toolList, t.def)
	}
}

// validToolName follows the 2025-11-25 naming guidance; names outside it
// make some clients drop every tool of the server.
func validToolName(name string) bool {
	if name == "" || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-' || ch == '.') {
			return false
		}
	}
	return true
}

func (c *compiler) tool(tc *toolConfig, n *yaml.Node, at config.Where) (*tool, bool) {
	t := &tool{
		def:     mcp.Tool{Name: tc.Name, Title: tc.Title, Description: tc.Description},
		isError: tc.IsError,
		delay:   time.Duration(tc.DelayMs) * time.Millisecond,
	}
	ok := true
	var props map[string]bool
	if tc.InputSchema.set() {
		if t.input, ok = c.compileSchema(tc.InputSchema, at, "inputSchema"); ok {
			t.def.InputSchema = t.input.Raw()
			props = schemaProperties(t.input.Raw())
		}
	}
	if tc.OutputSchema.set() {
		var sok bool
		if t.output, sok = c.compileSchema(tc.OutputSchema, at, "outputSchema"); sok {
			t.def.OutputSchema = t.output.Raw()
		}
		ok = ok && sok
	}
	t.def.Annotations = tc.Annotations
	r := refs{args: props, params: noParams}
	if props != nil {
		r.args = maps.Clone(props)
		for _, s := range tc.Steps {
			if s.As != "" {
				r.args[s.As] = true
			}
		}
	}
	if !c.steps(t, tc.Steps, n, at, props, r) {
		ok = false
	}
	if !c.answer(t, tc, n, at, r) {
		ok = false
	}
	return t, ok
}

// answer compiles what the tool answers: one result text or content items.
func (c *compiler) answer(t *tool, tc *toolConfig, n *yaml.Node, at config.Where, r refs) bool {
	if tc.Result != nil {
		var ok bool
		t.result, ok = c.text(*tc.Result, field(n, "result"), at.Field("result"), r)
		return ok
	}
	ok := true
	list := field(n, "content")
	for i := range tc.Content {
		item := itemAt(list, i)
		ct, cok := c.content(&tc.Content[i], item, at.Field("content").Index(i), r)
		if !cok {
			ok = false
			continue
		}
		t.content = append(t.content, ct)
	}
	return ok
}

// checkTool reports load errors in a tool's settings: what makes the file
// unusable rather than one tool confusing.
func checkTool(tc *toolConfig, n *yaml.Node, at config.Where, ds *config.Diags) {
	if tc.DelayMs < 0 || tc.DelayMs > maxDelayMs {
		ds.Addf(fieldOr(n, "delayMs"), at.Field("delayMs"), "delayMs must be from 0 to %d (an hour), got %d", maxDelayMs, tc.DelayMs)
	}
	if tc.Result != nil && len(tc.Content) > 0 {
		ds.Addf(fieldOr(n, "content"), at.Field("content"), "a tool answers with result (one text) or content (items), not both")
	}
	if tc.OutputSchema.set() && tc.Result == nil {
		ds.Addf(fieldOr(n, "outputSchema"), at.Field("outputSchema"), "outputSchema needs result: the JSON text checked against it and sent as structuredContent")
	}
	list := field(n, "content")
	for i := range tc.Content {
		item := itemAt(list, i)
		checkContentShape(&tc.Content[i], item, at.Field("content").Index(i), ds)
	}
	steps := field(n, "steps")
	names := map[string]bool{}
	for i := range tc.Steps {
		item := itemAt(steps, i)
		checkStep(&tc.Steps[i], item, at.Field("steps").Index(i), names, ds)
	}
}

// maxDelayMs is the longest wait a tool or step may ask for: an hour.
const maxDelayMs = 3_600_000

package mock

import (
	"maps"
	"time"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/schema"
	"github.com/octo-run/octo/runtime/config"
)

// tool is one compiled tool.
type tool struct {
	def    mcp.Tool
	input  *schema.Schema // nil: any object
	output *schema.Schema // nil: no structured content
	own    outcome        // the tool's own answer
	vary   *variation     // answers that vary; nil: always own
	steps  []*step

	task     string // taskNever, taskOptional or taskRequired
	taskFrom int    // the first step a task runs; those before run in the call
	once     bool   // a lost task fails rather than run again (atMostOnce)
}

func (c *compiler) tools(cat *catalog, confs []toolConfig) {
	first := map[string]config.Position{}
	for i := range confs {
		tc := &confs[i]
		if !tc.Enabled {
			continue
		}
		if problem := mcp.ToolNameProblem(tc.Name); problem != "" {
			c.problem(&tc.Name, "%s; this tool is left out", problem)
			continue
		}
		if f, dup := first[tc.Name]; dup {
			c.duplicate(&tc.Name, "tool name", f)
			continue
		}
		t, ok := c.tool(tc)
		if !ok {
			continue
		}
		first[tc.Name] = c.pos.Of(&tc.Name)
		cat.tools = append(cat.tools, t)
		cat.toolByName[t.def.Name] = t
		cat.toolList = append(cat.toolList, t.def)
	}
}

func (c *compiler) tool(tc *toolConfig) (*tool, bool) {
	t := &tool{
		def:    tc.Tool(),
		input:  tc.InputSchema.Schema,
		output: tc.OutputSchema.Schema,
		own:    outcome{isError: tc.IsError, delay: time.Duration(tc.DelayMs) * time.Millisecond},
	}
	ok := true
	for _, schema := range []*mcp.SchemaSetting{&tc.InputSchema, &tc.OutputSchema} {
		if schema.Err != nil {
			c.schemaProblem(schema)
			ok = false
		}
	}
	var props map[string]bool
	if t.input != nil {
		props = schemaProperties(t.input.Raw())
	}
	r := refs{args: props, params: noParams}
	if props != nil {
		r.args = maps.Clone(props)
		for _, s := range tc.Steps {
			if s.As != "" {
				r.args[s.As] = true
			}
		}
	}
	if !c.steps(t, tc.Steps, props, r) {
		ok = false
	}
	if !c.answer(&t.own, tc.Result, tc.Content, r) {
		ok = false
	}
	t.compileTask(tc)
	var vok bool
	if t.vary, vok = c.compileAnswers(t, tc, r, c.seed); !vok {
		ok = false
	}
	return t, ok
}

// answer compiles what an outcome answers: one result text or content items.
func (c *compiler) answer(rep *outcome, result *string, items []contentConfig, r refs) bool {
	if result != nil {
		var ok bool
		rep.result, ok = c.text(*result, result, r)
		return ok
	}
	ok := true
	for i := range items {
		ct, cok := c.content(&items[i], r)
		if !cok {
			ok = false
			continue
		}
		rep.content = append(rep.content, ct)
	}
	return ok
}

// checkTool reports load errors in a tool's settings: what makes the file
// unusable rather than one tool confusing.
func checkTool(tc *toolConfig, pos *config.Positions, ds *config.Diags) {
	if tc.Result != nil && len(tc.Content) > 0 {
		*ds = append(*ds, pos.Diag(&tc.Content, "a tool answers with result (one text) or content (items), not both"))
	}
	if tc.OutputSchema.Set() && tc.Result == nil {
		*ds = append(*ds, pos.Diag(&tc.OutputSchema, "outputSchema needs result: the JSON text checked against it and sent as structuredContent"))
	}
	for i := range tc.Content {
		checkContentShape(&tc.Content[i], pos, ds)
	}
	for i := range tc.Icons {
		if problem := tc.IconProblem(i); problem != "" {
			*ds = append(*ds, pos.Diag(&tc.Icons[i].Src, "%s", problem))
		}
	}
	names := map[string]bool{}
	for i := range tc.Steps {
		checkStep(&tc.Steps[i], pos, names, ds)
	}
	checkTask(tc, pos, ds)
	checkAnswers(tc, pos, ds)
}

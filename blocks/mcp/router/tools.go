package router

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"
	"unsafe"

	"github.com/octo-run/octo/blocks/mcp/access"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/schema"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/jsonv"
	"github.com/octo-run/octo/runtime/lograte"
)

// tool is one declared tool with its compiled schemas and branch.
type tool struct {
	def    mcp.Tool
	input  *schema.Schema // nil: any object
	output *schema.Schema // nil: plain text results
	branch runtime.Block
	before runtime.Block // toolSettings.BeforeTask; nil: none
	task   string        // "never", "optional" or "required" (toolSettings.Task)
	steps  bool          // its branch reports its steps (a progress block)
	items  bool          // the branch answers content items (toolSettings.Result content)
	asks   bool          // its branch asks the client (an ask block)
	once   bool          // a lost task fails rather than run again (toolSettings.AtMostOnce)
	rule   *access.Rule  // who may see and call it; nil: anyone
	limit  *access.Limit // how often each caller may; nil: unlimited
}

var _ mcp.ToolParamHeaders = (*tools)(nil)

// tools serves tools/list and tools/call from flow branches.
type tools struct {
	list []mcp.Tool
	// rules are list's tools' access rules, in its order (nil: anyone); nil when no tool has
	// one, so a list is not filtered.
	rules    []*access.Rule
	guards   bool // a tool has an access rule or a rate limit: calls may be refused
	refusals *lograte.Limit
	byName   map[string]*tool
	logger   *slog.Logger
	// logFloor is the least severe log line sent to clients (mcp.LogLevel), -1: none are.
	logFloor int
}

func buildTools(b *runtime.Build, confs []toolSettings) *tools {
	ts := &tools{byName: make(map[string]*tool, len(confs)), logger: b.Logger(), logFloor: -1, refusals: lograte.New(time.Second)}
	for i := range confs {
		c := &confs[i]
		if problem := mcp.ToolNameProblem(c.Name); problem != "" {
			b.Errorf(&c.Name, "%s", problem)
			continue
		}
		if _, dup := ts.byName[c.Name]; dup {
			b.Errorf(&c.Name, "duplicate tool name %q", c.Name)
			continue
		}
		for i := range c.Icons {
			if problem := c.IconProblem(i); problem != "" {
				b.Errorf(&c.Icons[i].Src, "%s", problem)
			}
		}
		for _, setting := range []*mcp.SchemaSetting{&c.InputSchema, &c.OutputSchema} {
			if setting.Err != nil {
				schema.ReportProblems(b.Positions().Of(setting), setting.Err, func(at config.Position, msg string) {
					b.Errorf(at, "%s", msg)
				})
			}
		}
		if c.AtMostOnce && c.Task == "never" {
			b.Errorf(&c.AtMostOnce, "atMostOnce is about tasks, and tool %q never runs as one: set task to optional or required", c.Name)
		}
		if c.BeforeTask.Block != nil && c.Task == "never" {
			b.Errorf(&c.BeforeTask, "beforeTask runs before the tool's task starts, and tool %q never runs as one: set task to optional or required, or move its blocks to process", c.Name)
		}
		t := &tool{def: c.Tool(), input: c.InputSchema.Schema, output: c.OutputSchema.Schema, branch: c.Process.Block, before: c.BeforeTask.Block, task: c.Task,
			items: c.Result == "content", steps: c.Process.Holds("progress") || c.BeforeTask.Holds("progress"),
			asks: c.Process.Holds("ask") || c.BeforeTask.Holds("ask"), once: c.AtMostOnce}
		t.rule, t.limit = access.Compile(b, c.Access), access.CompileLimit(b, c.RateLimit)
		ts.byName[c.Name] = t
		ts.list = append(ts.list, t.def)
		ts.rules = append(ts.rules, t.rule)
		ts.guards = ts.guards || t.rule != nil || t.limit != nil
	}
	if !slices.ContainsFunc(ts.rules, func(r *access.Rule) bool { return r != nil }) {
		ts.rules = nil
	}
	return ts
}

// tasks reports whether a tool may run as a task.
func (ts *tools) tasks() bool {
	for _, t := range ts.byName {
		if t.task == "optional" || t.task == "required" {
			return true
		}
	}
	return false
}

// asks reports whether a tool asks its client (an ask block).
func (ts *tools) asks() bool {
	for _, t := range ts.byName {
		if t.asks {
			return true
		}
	}
	return false
}

// atMostOnce reports whether a tool's lost task fails rather than run again.
func (ts *tools) atMostOnce(name string) bool {
	t := ts.byName[name]
	return t != nil && t.once
}

// ListTools lists the declared tools the caller may see, in declaration order.
func (ts *tools) ListTools(_ context.Context, rc *mcp.RequestContext, _ string) ([]mcp.Tool, string, error) {
	if ts.rules == nil {
		return ts.list, "", nil
	}
	m := parentOf(rc)
	out := make([]mcp.Tool, 0, len(ts.list))
	for i, t := range ts.list {
		if ts.rules[i].Allows(m) {
			out = append(out, t)
		}
	}
	return out, "", nil
}

// ParamHeaders returns the arguments a tool mirrors in Mcp-Param headers (x-mcp-header).
func (ts *tools) ParamHeaders(name string) []schema.ParamHeader {
	if t := ts.byName[name]; t != nil {
		return t.input.ParamHeaders()
	}
	return nil
}

// CallTool checks the arguments, runs the tool's branch with them as the
// body, and turns the branch's final body into the result.
func (ts *tools) CallTool(ctx context.Context, rc *mcp.RequestContext, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	return ts.call(ctx, rc, name, args)
}

func (ts *tools) call(ctx context.Context, rc *mcp.RequestContext, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	t := ts.byName[name]
	if t == nil {
		return nil, mcp.ErrUnknownTool
	}
	if ts.guards {
		if err := ts.guard(ctx, rc, t); err != nil {
			return nil, err
		}
	}
	if t.task == "required" {
		if err := rc.RequireTask(); err != nil {
			return nil, err
		}
	}
	body, err := jsonv.Decode(args)
	if err != nil {
		return errorResult(fmt.Sprintf("invalid arguments for tool %q: %v", name, err)), nil
	}
	if t.input != nil {
		if err := t.input.ValidateValue(body); err != nil {
			return errorResult(fmt.Sprintf("invalid arguments for tool %q: %v", name, err)), nil
		}
	}
	if t.task == "optional" || t.task == "required" { // the closure only here: a call allocates it
		if t.before != nil && rc.BecomesTask() {
			// Asked in the call: the task starts once they are answered, and gets the answers.
			asking := runtime.WithClientAsker(ctx, newAsker(rc, "tool"))
			if _, err := t.before.Process(asking, parentOf(rc).Derive(body)); err != nil {
				return ts.branchFailed(ctx, name, err)
			}
		}
		return rc.RunTask(ctx, func(ctx context.Context, rc *mcp.RequestContext) (*mcp.CallToolResult, error) {
			return ts.run(ctx, rc, t, name, body)
		})
	}
	return ts.run(ctx, rc, t, name, body)
}

// guard refuses a call its caller may not make, or not now: access first, so a caller who
// may not call the tool does not use up a count.
func (ts *tools) guard(ctx context.Context, rc *mcp.RequestContext, t *tool) error {
	m := parentOf(rc)
	r := t.rule.Check(m, t.def.Name)
	if r == nil {
		r = t.limit.Check(m, t.def.Name, time.Now())
	}
	if r == nil {
		return nil
	}
	noteRefusal(ctx, r)
	if ok, skipped := ts.refusals.Allow(); ok { // a caller hammering a limit does not flood the log
		ts.logger.InfoContext(ctx, "tool call refused", "tool", t.def.Name, "why", r.RPC.Message, "alsoRefusedSinceLastLine", skipped)
	}
	return r
}

// run runs the tool's branches (beforeTask, then process) with the arguments as the body; as a
// task its rc has no notifier.
func (ts *tools) run(ctx context.Context, rc *mcp.RequestContext, t *tool, name string, body any) (*mcp.CallToolResult, error) {
	if rc.Notifier != nil && len(rc.ProgressToken) > 0 {
		ctx = runtime.WithProgress(ctx, &reporter{rc: rc, steps: t.steps})
	}
	if rc.Notifier != nil && ts.logFloor >= 0 {
		ctx = runtime.WithClientLogger(ctx, &clientLog{rc: rc, tool: name, floor: ts.logFloor})
	}
	if t.asks {
		ctx = runtime.WithClientAsker(ctx, newAsker(rc, "tool"))
	}
	m := parentOf(rc).Derive(body)
	var err error
	if t.before != nil {
		m, err = t.before.Process(ctx, m)
	}
	if err == nil {
		m, err = t.branch.Process(ctx, m)
	}
	if err != nil {
		return ts.branchFailed(ctx, name, err)
	}
	return t.result(m)
}

// branchFailed answers a call whose branch failed: the caller's leaving, the protocol's answer
// (unwanted), or a failed result.
func (ts *tools) branchFailed(ctx context.Context, name string, err error) (*mcp.CallToolResult, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if e := unwanted(err); e != nil {
		return nil, e
	}
	return ts.failed(ctx, name, err), nil
}

// failed is the result of a tool whose branch failed. An error of a kind the flow means (a
// fail block, an API's answer, a timeout) has a client-safe message, which is the text the
// model reads; an internal one shows the model that the tool failed, with its client-safe
// cause where it has one (an expression that failed on the arguments) and "internal error"
// where it has none (a bug), and the log where: the block's address and its file:line:col.
func (ts *tools) failed(ctx context.Context, name string, err error) *mcp.CallToolResult {
	e := runtime.ErrorOf(err)
	if e.Kind.ServerFault() {
		attrs := []any{"tool", name, "kind", e.Kind.String()}
		if be, ok := errors.AsType[*runtime.BlockError](err); ok {
			attrs = append(attrs, "address", be.Addr, "at", be.At, "err", be.Err)
		} else {
			attrs = append(attrs, "err", err)
		}
		ts.logger.ErrorContext(ctx, "tool failed", attrs...)
	}
	if e.Kind == runtime.KindInternal { // "internal error", or a cause the flow made safe to tell
		return errorResult(fmt.Sprintf("tool %q failed: %s", name, e.Msg))
	}
	return errorResult(e.Msg)
}

// result turns a branch's final body into a tool result: a string as its
// text, any other value as JSON text, and with an output schema also as
// structured content that must match it.
func (t *tool) result(m *runtime.Message) (*mcp.CallToolResult, error) {
	if t.items {
		return t.content(m)
	}
	var (
		text    string
		value   any
		encoded []byte
	)
	if raw := m.Raw(); m.IsRaw() {
		text = string(raw)
		if t.output != nil {
			var err error
			if value, err = jsonv.Decode(raw); err != nil {
				return errorResult(fmt.Sprintf("tool %q returned text that is not JSON, but it declares an outputSchema", t.def.Name)), nil
			}
		}
	} else {
		v, err := m.Body()
		if err != nil {
			return nil, err
		}
		value = v
		if s, ok := v.(string); ok {
			text = s
		} else {
			// Written as json.Marshal writes it, without reflection for decoded values.
			b, err := jsonv.Append(make([]byte, 0, 64), v, true)
			if err != nil {
				return nil, fmt.Errorf("encoding result of tool %q: %w", t.def.Name, err)
			}
			// b is never written again: the text and the structured content share it.
			text, encoded = unsafe.String(unsafe.SliceData(b), len(b)), b
		}
	}
	if t.output == nil {
		return textResult(text, false), nil
	}
	structured := encoded
	if structured == nil {
		var err error
		if structured, err = jsonv.Append(nil, value, true); err != nil {
			return nil, fmt.Errorf("encoding result of tool %q: %w", t.def.Name, err)
		}
	}
	if err := t.output.ValidateValue(value); err != nil {
		return errorResult(fmt.Sprintf("tool %q returned a result that does not match its outputSchema: %v", t.def.Name, err)), nil
	}
	res := textResult(text, false)
	res.StructuredContent = json.RawMessage(structured)
	return res, nil
}

// content turns a branch's body of content items into a result: a list of items, or an object
// with content and optionally isError and structuredContent (checked against the outputSchema).
// A body of another shape, or an item MCP does not have, is a failed call that says so.
func (t *tool) content(m *runtime.Message) (*mcp.CallToolResult, error) {
	v, err := m.Body()
	if err != nil {
		return nil, err
	}
	var shaped struct {
		Content           []json.RawMessage `json:"content"`
		IsError           bool              `json:"isError"`
		StructuredContent any               `json:"structuredContent"`
	}
	switch b := v.(type) {
	case []any:
		raw, _ := json.Marshal(b)
		_ = json.Unmarshal(raw, &shaped.Content)
	case map[string]any:
		raw, _ := json.Marshal(b)
		if json.Unmarshal(raw, &shaped) != nil || shaped.Content == nil {
			return errorResult(fmt.Sprintf("tool %q answers content: its branch's object has no content list", t.def.Name)), nil
		}
	default:
		return errorResult(fmt.Sprintf("tool %q answers content: its branch must end with a list of content items, or an object with content", t.def.Name)), nil
	}
	res := &mcp.CallToolResult{IsError: shaped.IsError, Content: make([]mcp.Content, 0, len(shaped.Content))}
	for i, raw := range shaped.Content {
		var c mcp.Content
		if err := json.Unmarshal(raw, &c); err != nil {
			return errorResult(fmt.Sprintf("tool %q answers content: item %d is not a content item: %v", t.def.Name, i, err)), nil
		}
		if problem := contentProblem(c); problem != "" {
			return errorResult(fmt.Sprintf("tool %q answers content: item %d %s", t.def.Name, i, problem)), nil
		}
		res.Content = append(res.Content, c)
	}
	if shaped.StructuredContent != nil && !shaped.IsError {
		if t.output != nil {
			if err := t.output.ValidateValue(shaped.StructuredContent); err != nil {
				return errorResult(fmt.Sprintf("tool %q returned a result that does not match its outputSchema: %v", t.def.Name, err)), nil
			}
		}
		b, err := json.Marshal(shaped.StructuredContent)
		if err != nil {
			return nil, err
		}
		res.StructuredContent = json.RawMessage(b)
	} else if t.output != nil && !shaped.IsError {
		return errorResult(fmt.Sprintf("tool %q declares an outputSchema, so its content answer needs structuredContent", t.def.Name)), nil
	}
	return res, nil
}

// contentProblem says what a content item lacks, "" when it is one MCP has.
func contentProblem(c mcp.Content) string {
	switch c.Type {
	case mcp.ContentText:
		return ""
	case mcp.ContentImage, mcp.ContentAudio:
		if len(c.Data) == 0 || c.MimeType == "" {
			return "(" + c.Type + ") needs data (base64) and mimeType"
		}
	case mcp.ContentResourceLink:
		if c.Link.URI == "" || c.Link.Name == "" {
			return "(resource_link) needs uri and name"
		}
	case mcp.ContentResource:
		if c.Resource == nil || c.Resource.URI == "" {
			return "(resource) needs a resource with uri and text or blob"
		}
	case "":
		return "has no type: text, image, audio, resource_link or resource"
	default:
		return fmt.Sprintf("has type %q, which MCP does not: text, image, audio, resource_link or resource", c.Type)
	}
	return ""
}

// oneText is a result of one text block, allocated as one.
type oneText struct {
	res     mcp.CallToolResult
	content [1]mcp.Content
}

// textResult is a result holding one text block.
func textResult(text string, isError bool) *mcp.CallToolResult {
	r := &oneText{content: [1]mcp.Content{mcp.TextContent(text)}}
	r.res.Content, r.res.IsError = r.content[:], isError
	return &r.res
}

func errorResult(text string) *mcp.CallToolResult { return textResult(text, true) }

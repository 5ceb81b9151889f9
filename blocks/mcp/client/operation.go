package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/octo-run/octo/mcp"
	mcpclient "github.com/octo-run/octo/mcp/client"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/jsonv"
)

// operation is the one thing a block does on the server.
type operation struct {
	tool     string
	resource *runtime.Template
	prompt   string
}

func buildOperation(b *runtime.Build, s *Settings) operation {
	op := operation{tool: s.Tool, resource: s.Resource, prompt: s.Prompt}
	n := 0
	for _, set := range []bool{s.Tool != "", s.Resource != nil, s.Prompt != ""} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		b.Errorf(s, "set tool, resource or prompt: what to ask the server")
	case n > 1:
		b.Errorf(s, "set one of tool, resource or prompt, not several")
	case s.Resource != nil && s.Arguments != nil:
		b.Errorf(&s.Arguments, "a resource takes no arguments: its URI says what to read")
	case s.Tool == "" && s.Result == "structured":
		b.Errorf(&s.Result, "result structured is a tool's structuredContent; a resource or prompt has none")
	}
	return op
}

// run does the operation for m and leaves its result in m.
func (op operation) run(ctx context.Context, blk *Block, c *mcpclient.Client, m *runtime.Message) error {
	switch {
	case op.tool != "":
		return op.callTool(ctx, blk, c, m)
	case op.resource != nil:
		return op.readResource(ctx, blk, c, m)
	}
	return op.getPrompt(ctx, blk, c, m)
}

func (op operation) callTool(ctx context.Context, blk *Block, c *mcpclient.Client, m *runtime.Message) (err error) {
	args, err := blk.arguments(m)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("arguments: %w", err)
	}
	var opts mcpclient.CallOptions
	if runtime.ProgressWanted(ctx) {
		opts.Progress = func(p mcpclient.Progress) {
			runtime.ReportProgress(ctx, runtime.Progress{Within: true, Progress: p.Progress, Total: p.Total, Message: p.Message})
		}
	}
	if runtime.Tracing() { // a client span, and its trace context in _meta for the server
		var span runtime.Span
		ctx, span = runtime.StartSpan(ctx, "tools/call "+op.tool, runtime.SpanClient,
			runtime.Attr{Key: "mcp.method.name", Value: "tools/call"}, runtime.Attr{Key: "gen_ai.tool.name", Value: op.tool})
		defer func() { span.End(err) }()
		opts.Meta = map[string]string{}
		runtime.InjectTrace(ctx, func(k, v string) { opts.Meta[k] = v })
	}
	res, err := c.CallTool(ctx, op.tool, raw, opts)
	if err != nil {
		return blk.failed(ctx, "tools/call "+op.tool, err)
	}
	text := contentText(res.Content)
	m.SetVar("mcp", blk.details(c, map[string]any{"tool": op.tool, "content": jsonValue(res.Content),
		"structuredContent": jsonValue(res.StructuredContent), "isError": res.IsError}))
	if res.IsError {
		if text == "" {
			text = fmt.Sprintf("tool %s failed", op.tool)
		}
		return &runtime.Error{Kind: runtime.KindUpstream, Msg: text}
	}
	structured, _ := res.StructuredContent.(json.RawMessage)
	return blk.setResult(m, structured, text)
}

func (op operation) readResource(ctx context.Context, blk *Block, c *mcpclient.Client, m *runtime.Message) error {
	uri, err := op.resource.Render(m)
	if err != nil {
		return err
	}
	contents, err := c.ReadResource(ctx, uri)
	if err != nil {
		return blk.failed(ctx, "resources/read "+uri, err)
	}
	var texts []string
	for _, rc := range contents {
		if rc.Blob == nil {
			texts = append(texts, rc.Text)
		}
	}
	m.SetVar("mcp", blk.details(c, map[string]any{"resource": uri, "contents": jsonValue(contents)}))
	return blk.setResult(m, nil, strings.Join(texts, "\n"))
}

func (op operation) getPrompt(ctx context.Context, blk *Block, c *mcpclient.Client, m *runtime.Message) error {
	args, err := blk.arguments(m)
	if err != nil {
		return err
	}
	strs, err := promptArguments(args)
	if err != nil {
		return err
	}
	res, err := c.GetPrompt(ctx, op.prompt, strs)
	if err != nil {
		return blk.failed(ctx, "prompts/get "+op.prompt, err)
	}
	messages, err := json.Marshal(res.Messages)
	if err != nil {
		return fmt.Errorf("prompt messages: %w", err)
	}
	m.SetVar("mcp", blk.details(c, map[string]any{"prompt": op.prompt, "description": res.Description}))
	if blk.result == "text" {
		var texts []string
		for _, pm := range res.Messages {
			texts = append(texts, pm.Content.Text)
		}
		m.SetBody(strings.Join(texts, "\n"))
		return nil
	}
	m.SetRaw(messages)
	return nil
}

// arguments evaluates the arguments expression, or takes the body: an object, or null for none.
func (blk *Block) arguments(m *runtime.Message) (map[string]any, error) {
	var (
		v   any
		err error
	)
	if blk.args != nil {
		v, err = blk.args.Eval(m)
	} else {
		v, err = m.Body()
	}
	if err != nil {
		return nil, err
	}
	switch a := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return a, nil
	}
	return nil, runtime.Errorf(runtime.KindInvalid, "the arguments must be an object, got %s", kindOf(v))
}

// promptArguments turns argument values into the strings prompts take: a string as it is,
// anything else as its JSON text.
func promptArguments(args map[string]any) (map[string]string, error) {
	if args == nil {
		return nil, nil
	}
	out := make(map[string]string, len(args))
	for k, v := range args {
		if s, ok := v.(string); ok {
			out[k] = s
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("prompt argument %s: %w", k, err)
		}
		out[k] = string(b)
	}
	return out, nil
}

// setResult leaves the result as the body, as the result setting says.
func (blk *Block) setResult(m *runtime.Message, structured json.RawMessage, text string) error {
	switch {
	case blk.result == "structured" && structured == nil:
		return runtime.Errorf(runtime.KindUpstream, "the tool's result has no structuredContent (result: structured)")
	case blk.result != "text" && structured != nil:
		m.SetRaw(structured)
	case blk.result == "auto" && jsonv.Valid([]byte(text)):
		m.SetRaw([]byte(text))
	default:
		m.SetBody(text)
	}
	return nil
}

// details is vars.mcp: what the call gave, with the server's name.
func (blk *Block) details(c *mcpclient.Client, d map[string]any) map[string]any {
	info := c.InitializeResult().ServerInfo
	d["server"] = map[string]any{"name": info.Name, "version": info.Version}
	return d
}

// contentText joins the text blocks of a result.
func contentText(content []mcp.Content) string {
	var texts []string
	for _, c := range content {
		if c.Type == mcp.ContentText {
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// jsonValue is v as the plain JSON value expressions read, decoded as message bodies are.
func jsonValue(v any) any {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	out, err := jsonv.Decode(b)
	if err != nil {
		return nil
	}
	return out
}

func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	}
	return "a number"
}

// failed turns a client error into a flow error whose message a caller may read: the server's
// JSON-RPC error as it said it, a timeout, or what went wrong in general words (the details,
// which may quote what the server sent, go to the log through Err).
func (blk *Block) failed(ctx context.Context, doing string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	label := blk.server.label
	var (
		rpc *jsonrpc.Error
		he  *mcpclient.HTTPError
	)
	e := &runtime.Error{Kind: runtime.KindUpstream, Err: err}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		e.Kind, e.Msg = runtime.KindTimeout, fmt.Sprintf("MCP server %s: %s: no answer within %s", label, doing, blk.timeout)
	case errors.As(err, &rpc):
		e.Msg = fmt.Sprintf("MCP server %s: %s: %s (%d)", label, doing, rpc.Message, rpc.Code)
	case errors.As(err, &he):
		e.Msg = fmt.Sprintf("MCP server %s: %s: HTTP %d", label, doing, he.Status)
	case errors.Is(err, mcpclient.ErrProtocol):
		e.Msg = fmt.Sprintf("MCP server %s: %s: the answer breaks the protocol", label, doing)
	case errors.Is(err, mcpclient.ErrClosed):
		e.Msg = fmt.Sprintf("MCP server %s: %s: the connection ended", label, doing)
	default:
		e.Msg = fmt.Sprintf("MCP server %s: %s: the server could not be reached", label, doing)
	}
	return e
}

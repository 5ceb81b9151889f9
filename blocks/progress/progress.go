// Package progress is the progress block: it tells a caller that asked to hear progress (an MCP
// client that sent a progress token to an mcp-router tool) how far the flow has got, and passes
// the message on unchanged. Nobody asking, it costs a context lookup.
package progress

import (
	"context"
	"fmt"

	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "progress",
		Summary: "reports how far a long tool has got (settings.progress of settings.total) to a caller that asked",
		Doc: "Sends a progress notification to the caller of the flow when it asked for progress: an " +
			"MCP client calling an mcp-router tool with a progress token gets notifications/progress " +
			"(over Streamable HTTP as server-sent events before the result, over stdio as lines). " +
			"Without such a caller it does nothing. The message goes on unchanged. Its reports are the " +
			"tool's steps (write them as whole numbers): what a delay, http-request, ai-agent or " +
			"mcp-client of the same tool reports of its own wait is placed between the step before " +
			"it and the next, with the steps' total, so the caller hears one growing sequence. A " +
			"report that would not grow is dropped.",
		Example:   "type: progress\nsettings:\n  progress: '1'\n  total: '3'\n  message: 'looking up {{ body.city }}'\n",
		KeepsBody: true,
		Build:     runtime.BlockFunc(build),
	})
}

// Settings are the progress block's settings.
type Settings struct {
	Progress runtime.Expr      `yaml:"progress" octo:"required" doc:"An expression for how far the work has got, a number that grows from one report to the next (a step count, bytes, a percentage); it sees body, vars, headers and env." example:"1"`
	Total    *runtime.Expr     `yaml:"total" doc:"An expression for the total the progress counts towards, a number; left out, the total is unknown." example:"3"`
	Message  *runtime.Template `yaml:"message" doc:"A line for people about the step, a template over body, vars, headers and env (sent to clients of protocol 2025-03-26 and later)." example:"looking up {{ body.city }}"`
}

// Block reports progress.
type Block struct {
	progress, total *runtime.Expr
	message         *runtime.Template
}

func build(_ *runtime.Build, s *Settings) (runtime.Block, error) {
	return &Block{progress: &s.Progress, total: s.Total, message: s.Message}, nil
}

// Process reports the progress, when someone listens, and passes m on.
func (b *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	if !runtime.ProgressWanted(ctx) {
		return m, nil
	}
	var p runtime.Progress
	var err error
	if p.Progress, err = number(b.progress, m, "progress"); err != nil {
		return nil, err
	}
	if b.total != nil {
		if p.Total, err = number(b.total, m, "total"); err != nil {
			return nil, err
		}
	}
	if b.message != nil {
		if p.Message, err = b.message.Render(m); err != nil {
			return nil, err
		}
	}
	runtime.ReportProgress(ctx, p)
	return m, nil
}

// number evaluates e, which must give a number.
func number(e *runtime.Expr, m *runtime.Message, key string) (float64, error) {
	v, err := e.Eval(m)
	if err != nil {
		return 0, err
	}
	switch n := v.(type) {
	case int:
		return float64(n), nil
	case int64:
		return float64(n), nil
	case float64:
		return n, nil
	}
	return 0, fmt.Errorf("%s: expression %q gave %T, not a number", key, e.Source(), v)
}

var _ runtime.Block = (*Block)(nil)

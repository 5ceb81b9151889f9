package mock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/octo-run/octo/blocks/mockkit/placeholder"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/mcp/stream"
	"github.com/octo-run/octo/runtime/jsonv"
)

// progressEvery is how often a waiting tool reports progress to a client
// that sent a progress token.
const progressEvery = time.Second

// call answers one tools/call: check the arguments, run the steps, wait
// delayMs, then render the answer. A tool with task runs its steps marked beforeTask in the
// call, then the rest as a task when the call may become one (tasks.go). A cancelled call
// returns ctx's error.
func (t *tool) call(ctx context.Context, rc *mcp.RequestContext, args json.RawMessage, p *provider) (*mcp.CallToolResult, error) {
	r := p.rand
	if t.task == taskRequired {
		if err := rc.RequireTask(); err != nil {
			return nil, err
		}
	}
	// Decoded once, for the check and the answer: arguments may be megabytes.
	decoded, err := decodeArgs(args)
	if err != nil {
		return errf("Invalid arguments for tool %s: %v", t.def.Name, err), nil
	}
	in := placeholder.Input{Args: decoded}
	if t.input != nil {
		if err := t.input.ValidateValue(in.Args); err != nil {
			return errf("Invalid arguments for tool %s: %v", t.def.Name, err), nil
		}
	}
	if t.task == taskNever {
		return t.finish(ctx, rc, &in, p, t.steps)
	}
	if failed, err := runSteps(ctx, rc, &in, r, t.steps[:t.taskFrom]); failed != nil || err != nil {
		return failed, err
	}
	// The task gets its own copy: a closure taking in's address would move in to the heap for
	// every call, plain ones included.
	task := in
	return rc.RunTask(ctx, func(ctx context.Context, rc *mcp.RequestContext) (*mcp.CallToolResult, error) {
		return t.finish(ctx, rc, &task, p, t.steps[t.taskFrom:])
	})
}

// runSteps runs steps in order; a step that fails the call ends it with its result.
func runSteps(ctx context.Context, rc *mcp.RequestContext, in *placeholder.Input, r *placeholder.Rand, steps []*step) (*mcp.CallToolResult, error) {
	for i, s := range steps {
		failed, err := s.run(ctx, rc, in, r)
		if errors.Is(err, mcp.ErrInputRequired) {
			return nil, askTogether(ctx, rc, in, r, steps[i+1:])
		}
		if err != nil || failed != nil {
			return failed, err
		}
	}
	return nil, nil
}

// finish runs steps, picks the outcome (answers.go), waits its delay and answers.
func (t *tool) finish(ctx context.Context, rc *mcp.RequestContext, in *placeholder.Input, p *provider, steps []*step) (*mcp.CallToolResult, error) {
	r := p.rand
	if failed, err := runSteps(ctx, rc, in, r, steps); failed != nil || err != nil {
		return failed, err
	}
	rep := t.vary.pick(&t.own, rc, in.Args)
	p.note(t, rep, rc)
	if err := wait(ctx, rc, rep.delay, true); err != nil {
		return nil, err
	}
	if rep.protoErr != nil {
		return nil, rep.protoErr
	}
	// Room first: the calls of a batch render at once, and a template can
	// repeat a large argument many times.
	if err := rc.Reserve(rep.size(*in)); err != nil {
		return nil, err
	}
	return t.answer(rep, *in, r), nil
}

// size is roughly how large the outcome's result will be.
func (rep *outcome) size(in placeholder.Input) int {
	if rep.result != nil {
		return rep.result.Size(in)
	}
	n := 0
	for _, c := range rep.content {
		n += c.size(in)
	}
	return n
}

// decodeArgs decodes a call's arguments object (the server has checked it is
// one) under the number rule, which may refuse a number.
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	v, err := jsonv.Decode(raw)
	if err != nil {
		return nil, err
	}
	args, _ := v.(map[string]any)
	return args, nil
}

// answer renders the result. With an output schema the text must be JSON
// that fits it; it then also goes out as structuredContent.
func (t *tool) answer(rep *outcome, in placeholder.Input, r *placeholder.Rand) *mcp.CallToolResult {
	if rep.result == nil {
		res := &mcp.CallToolResult{Content: make([]mcp.Content, len(rep.content)), IsError: rep.isError}
		for i, c := range rep.content {
			res.Content[i] = c.render(in, r)
		}
		return res
	}
	text := rep.result.Render(in, r)
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(text)}, IsError: rep.isError}
	if t.output == nil || rep.isError {
		return res
	}
	if !jsonv.Valid([]byte(text)) {
		return errf("Tool %s answered text that is not JSON, but it declares an outputSchema", t.def.Name)
	}
	if err := t.output.Validate(json.RawMessage(text)); err != nil {
		return errf("Tool %s answered a result that does not match its outputSchema: %v", t.def.Name, err)
	}
	res.StructuredContent = json.RawMessage(text)
	return res
}

// wait sleeps for d unless ctx ends first. With report, a client that asked
// for progress hears about it at the start, every progressEvery and at the
// end, counted in milliseconds.
func wait(ctx context.Context, rc *mcp.RequestContext, d time.Duration, report bool) error {
	if d <= 0 {
		return nil
	}
	report = report && rc != nil && len(rc.ProgressToken) > 0
	total := float64(d.Milliseconds())
	if report {
		_ = rc.Progress(ctx, 0, total, "")
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	var tick <-chan time.Time
	if report {
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		tick = t.C
	}
	start, last := time.Now(), 0.0
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			if report {
				_ = rc.Progress(ctx, total, total, "")
			}
			return nil
		case <-tick:
			if p := float64(time.Since(start).Milliseconds()); p > last && p < total {
				last = p
				_ = rc.Progress(ctx, p, total, "")
			}
		}
	}
}

// run performs one step. A client that does not answer what the step asks
// makes the call a failed one (the result), never a protocol error.
func (s *step) run(ctx context.Context, rc *mcp.RequestContext, in *placeholder.Input, r *placeholder.Rand) (*mcp.CallToolResult, error) {
	switch s.kind {
	case stepLog:
		_ = rc.Log(ctx, s.level, s.logger, s.text.Render(*in, r))
	case stepProgress:
		_ = rc.Progress(ctx, s.progress, s.total, s.text.Render(*in, r))
	case stepDelay:
		return nil, wait(ctx, rc, s.delay, false)
	case stepSleep:
		text := s.text.Render(*in, r)
		d, ok := sleepFor(text)
		if !ok {
			return errf("sleep %q is not a duration of at most an hour (2s, 500ms, or milliseconds)", text), nil
		}
		return nil, wait(ctx, rc, d, false)
	case stepElicit:
		if s.url != nil {
			return s.openLink(ctx, rc, in, r)
		}
		p := elicitParams{Message: s.text.Render(*in, r), RequestedSchema: s.schema}
		return s.ask(ctx, rc, in, "elicitation/create", p)
	case stepSample:
		p := sampleParams{MaxTokens: s.maxTokens,
			Messages: []sampleMessage{{Role: "user", Content: mcp.TextContent(s.text.Render(*in, r))}}}
		if s.system != nil {
			p.SystemPrompt = s.system.Render(*in, r)
		}
		return s.ask(ctx, rc, in, "sampling/createMessage", p)
	case stepRoots:
		return s.ask(ctx, rc, in, "roots/list", struct{}{})
	}
	return nil, nil
}

// askTogether runs, after an input step that must wait for the client (2026-07-28), the
// input steps asked in the same round, so that one input_required result names them all.
func askTogether(ctx context.Context, rc *mcp.RequestContext, in *placeholder.Input, r *placeholder.Rand, next []*step) error {
	for _, s := range next {
		if !s.asks() || !s.together {
			break
		}
		if _, err := s.run(ctx, rc, in, r); err != nil && !errors.Is(err, mcp.ErrInputRequired) {
			return err
		}
	}
	return mcp.ErrInputRequired
}

// ask gets the client's answer (a request over the session, or on 2026-07-28 an input
// request) and keeps it as args.<as>.
func (s *step) ask(ctx context.Context, rc *mcp.RequestContext, in *placeholder.Input, method string, params any) (*mcp.CallToolResult, error) {
	reply, failed, err := s.request(ctx, rc, method, params)
	if reply != nil {
		s.keep(in, reply)
	}
	return failed, err
}

// request asks the client and waits at most the step's timeout for its answer. A client that
// cannot or does not answer makes a failed call (the result); a missing capability on
// 2026-07-28 is -32021 unless the step is optional (then nothing: no reply, no failure).
func (s *step) request(ctx context.Context, rc *mcp.RequestContext, method string, params any) (json.RawMessage, *mcp.CallToolResult, error) {
	askCtx, cancel := ctx, context.CancelFunc(func() {})
	if s.timeout > 0 {
		askCtx, cancel = context.WithTimeout(ctx, s.timeout)
	}
	defer cancel()
	reply, err := rc.Ask(askCtx, s.key, method, params)
	if err == nil {
		return reply, nil, nil
	}
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	var rpcErr *jsonrpc.Error
	switch {
	case errors.Is(err, mcp.ErrInputRequired):
		return nil, nil, err
	case errors.As(err, &rpcErr) && rpcErr.Code == mcp.CodeMissingCapability:
		if s.optional {
			return nil, nil, nil
		}
		return nil, nil, err
	case errors.As(err, &rpcErr):
		return nil, errf("The client answered %s with an error: %s", method, rpcErr.Message), nil
	case errors.Is(err, session.ErrClientCapability) && s.url != nil:
		return nil, errf("This tool asks the user to open a link (elicitation/create in mode url), and the client did not declare elicitation.url"), nil
	case errors.Is(err, session.ErrClientCapability):
		return nil, errf("This tool sends %s, and the client did not declare that it can answer it", method), nil
	case errors.Is(err, stream.ErrNoStream):
		return nil, errf("This tool sends %s, which needs a session with a stream to the client", method), nil
	case errors.Is(err, context.DeadlineExceeded):
		return nil, errf("The client did not answer %s within %d ms", method, s.timeout.Milliseconds()), nil
	}
	return nil, errf("The client did not answer %s: %v", method, err), nil
}

// keep puts the client's answer in args.<as> for later templates.
func (s *step) keep(in *placeholder.Input, reply json.RawMessage) {
	if s.as == "" {
		return
	}
	if in.Args == nil {
		in.Args = map[string]any{}
	}
	in.Args[s.as] = decodeReply(reply)
}

// decodeReply decodes a client's answer for templates; anything but an
// object is kept as it came.
func decodeReply(raw json.RawMessage) any {
	v, err := jsonv.Decode(raw)
	if err != nil {
		return fmt.Sprintf("%s", raw)
	}
	return v
}

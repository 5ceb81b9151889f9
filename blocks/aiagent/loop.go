package aiagent

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/jsonv"
)

var errNotStarted = errors.New("ai-agent is not started")

// Process asks the model, runs the tools it calls, and asks again with their results, until
// it answers without calling any or maxIterations is reached.
func (blk *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	if blk.hc == nil {
		return nil, errNotStarted
	}
	c, err := blk.chat(m)
	if err != nil {
		return nil, err
	}
	steps := &stepper{ctx: ctx}
	for i := 1; i <= blk.maxIter; i++ {
		steps.report("asking the model")
		t, err := blk.ask(ctx, c)
		if err != nil {
			return nil, err
		}
		c.turns = append(c.turns, t)
		if len(t.Calls) == 0 {
			return blk.finish(m, c, t, i)
		}
		results := turn{Role: "tool"}
		for _, call := range t.Calls {
			steps.report("calling " + call.Name)
			text, isError := blk.call(ctx, m, call)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			results.Results = append(results.Results, toolResult{ID: call.ID, Name: call.Name, Text: text, IsError: isError})
		}
		c.turns = append(c.turns, results)
	}
	m.SetVar("agent", blk.vars(c, blk.maxIter))
	return nil, runtime.Errorf(runtime.KindUpstream, "the model was still calling tools after %d answers (maxIterations)", blk.maxIter)
}

// chat is the conversation's start: the system prompt and the user's message.
func (blk *Block) chat(m *runtime.Message) (chat, error) {
	c := chat{model: blk.model, maxTokens: blk.tokens, tools: blk.tools}
	if blk.system != nil {
		s, err := blk.system.Render(m)
		if err != nil {
			return c, err
		}
		c.system = s
	}
	prompt, err := blk.promptText(m)
	if err != nil {
		return c, err
	}
	c.turns = []turn{{Role: "user", Text: prompt}}
	return c, nil
}

func (blk *Block) promptText(m *runtime.Message) (string, error) {
	if blk.prompt != nil {
		return blk.prompt.Render(m)
	}
	text, _ := resultText(m)
	return text, nil
}

// finish leaves the model's final text as the body, and the transcript in vars.agent.
func (blk *Block) finish(m *runtime.Message, c chat, t turn, asked int) (*runtime.Message, error) {
	m.SetVar("agent", blk.vars(c, asked))
	if !blk.json {
		m.SetBody(t.Text)
		return m, nil
	}
	v, err := jsonv.Decode([]byte(t.Text))
	if err != nil {
		return nil, runtime.Errorf(runtime.KindUpstream, "the model's answer is not JSON (result: json)")
	}
	m.SetBody(v)
	return m, nil
}

// vars is vars.agent: the transcript as plain JSON values, and how many times the model was asked.
func (blk *Block) vars(c chat, asked int) map[string]any {
	b, _ := json.Marshal(c.turns)
	transcript, _ := jsonv.Decode(b)
	return map[string]any{"transcript": transcript, "iterations": asked}
}

// stepper tells a caller that asked for progress (a router tool's client) each step of the
// loop as it starts: a model call or a tool call. The total is unknown: the model decides.
type stepper struct {
	ctx context.Context
	n   float64
}

func (s *stepper) report(what string) {
	if !runtime.ProgressWanted(s.ctx) {
		return
	}
	s.n++
	runtime.ReportProgress(s.ctx, runtime.Progress{Within: true, Progress: s.n, Message: what})
}

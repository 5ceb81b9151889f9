package router

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime"
)

// prompts serves prompts rendered from template resources.
type prompts struct {
	list   []mcp.Prompt
	byName map[string]*prompt
	// complete are the suggestions for the prompts' arguments, by prompt name.
	complete map[string]*completer
}

type prompt struct {
	description string
	text        *runtime.Template // or
	branch      runtime.Block
	asks        bool // its branch asks the client (an ask block)
}

func buildPrompts(b *runtime.Build, confs []promptSettings) *prompts {
	ps := &prompts{byName: map[string]*prompt{}, complete: map[string]*completer{}}
	for i := range confs {
		c := &confs[i]
		if _, dup := ps.byName[c.Name]; dup {
			b.Errorf(&c.Name, "duplicate prompt name %q", c.Name)
			continue
		}
		for _, a := range c.RepeatedArguments() {
			b.Errorf(&a.Name, "argument %q is declared twice", a.Name)
		}
		if written(b, c, "resource") == written(b, c, "process") {
			b.Errorf(c, "a prompt needs exactly one of resource (a template) or process (blocks that make its messages)")
			continue
		}
		ps.byName[c.Name] = &prompt{description: c.Description, text: &c.Resource.Template, branch: c.Process.Block, asks: c.Process.Holds("ask")}
		if comp := buildCompleter(b, &c.Completions, c.Complete, c.Body().Names, "an argument of the prompt"); comp != nil {
			ps.complete[c.Name] = comp
		}
		ps.list = append(ps.list, c.Prompt())
	}
	return ps
}

// ListPrompts lists every declared prompt.
func (ps *prompts) ListPrompts(context.Context, *mcp.RequestContext, string) ([]mcp.Prompt, string, error) {
	return ps.list, "", nil
}

// GetPrompt renders the prompt's template with the arguments as the body and
// returns it as one user message.
func (ps *prompts) GetPrompt(ctx context.Context, rc *mcp.RequestContext, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	p := ps.byName[name]
	if p == nil {
		return nil, mcp.ErrUnknownPrompt
	}
	body := make(map[string]any, len(args))
	for k, v := range args {
		body[k] = v
	}
	if p.branch != nil {
		if p.asks {
			ctx = runtime.WithClientAsker(ctx, newAsker(rc, "prompt"))
		}
		res, err := p.fromBranch(ctx, parentOf(rc).Derive(body))
		if e := unwanted(err); e != nil {
			return nil, e
		}
		return res, err
	}
	text, err := p.text.Render(parentOf(rc).Derive(body))
	if err != nil {
		return nil, err
	}
	return &mcp.GetPromptResult{
		Description: p.description,
		Messages:    []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent(text)}},
	}, nil
}

// fromBranch runs the prompt's branch: a string body is one user message, a list of {role, text}
// the messages; any other shape is an error that says so.
func (p *prompt) fromBranch(ctx context.Context, m *runtime.Message) (*mcp.GetPromptResult, error) {
	out, err := p.branch.Process(ctx, m)
	if err != nil {
		return nil, err
	}
	v, err := out.Body()
	if err != nil {
		return nil, err
	}
	res := &mcp.GetPromptResult{Description: p.description}
	switch b := v.(type) {
	case string:
		res.Messages = []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent(b)}}
		return res, nil
	case []any:
		for i, item := range b {
			msg, err := promptMessage(i, item)
			if err != nil {
				return nil, err
			}
			res.Messages = append(res.Messages, msg)
		}
		return res, nil
	}
	return nil, errors.New("the prompt's branch must answer a string (one user message) or a list of {role, text} or {role, content}")
}

// promptMessage is message i of a prompt's branch: {role, text}, or {role, content} with one
// content item as MCP writes it (an image, an embedded resource).
func promptMessage(i int, item any) (mcp.PromptMessage, error) {
	msg, _ := item.(map[string]any)
	role, _ := msg["role"].(string)
	if role != "user" && role != "assistant" {
		return mcp.PromptMessage{}, fmt.Errorf("the prompt's branch answered message %d without a role (user or assistant)", i)
	}
	if text, ok := msg["text"].(string); ok {
		return mcp.PromptMessage{Role: role, Content: mcp.TextContent(text)}, nil
	}
	item, ok := msg["content"].(map[string]any)
	if !ok {
		return mcp.PromptMessage{}, fmt.Errorf("the prompt's branch answered message %d without a text or a content item", i)
	}
	raw, _ := json.Marshal(item)
	var c mcp.Content
	if err := json.Unmarshal(raw, &c); err != nil {
		return mcp.PromptMessage{}, fmt.Errorf("the prompt's branch answered message %d with a content item MCP cannot read: %v", i, err)
	}
	if problem := contentProblem(c); problem != "" {
		return mcp.PromptMessage{}, fmt.Errorf("the prompt's branch answered message %d whose content item %s", i, problem)
	}
	return mcp.PromptMessage{Role: role, Content: c}, nil
}

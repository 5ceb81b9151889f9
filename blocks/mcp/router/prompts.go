package router

import (
	"context"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime"
)

// prompts serves prompts rendered from template resources.
type prompts struct {
	list   []mcp.Prompt
	byName map[string]*prompt
}

type prompt struct {
	description string
	text        *runtime.Template
}

func buildPrompts(b *runtime.Build, confs []promptSettings) *prompts {
	ps := &prompts{byName: map[string]*prompt{}}
	for i := range confs {
		c := &confs[i]
		if _, dup := ps.byName[c.Name]; dup {
			b.Errorf(&c.Name, "duplicate prompt name %q", c.Name)
			continue
		}
		for _, a := range c.RepeatedArguments() {
			b.Errorf(&a.Name, "argument %q is declared twice", a.Name)
		}
		ps.byName[c.Name] = &prompt{description: c.Description, text: &c.Resource.Template}
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
	text, err := p.text.Render(parentOf(rc).Derive(body))
	if err != nil {
		return nil, err
	}
	return &mcp.GetPromptResult{
		Description: p.description,
		Messages:    []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent(text)}},
	}, nil
}

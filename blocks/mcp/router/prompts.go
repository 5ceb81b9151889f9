package router

import (
	"context"

	"github.com/octo-run/octo/blocks/mcp"
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

func buildPrompts(b *runtime.Build, confs []promptConfig) *prompts {
	ps := &prompts{byName: map[string]*prompt{}}
	items := b.Field("prompts")
	for i, c := range confs {
		at := b.At.Field("prompts").Index(i)
		node := items.Content[i]
		if _, dup := ps.byName[c.Name]; dup {
			b.Errorf(runtime.MappingValue(node, "name"), at.Field("name"), "duplicate prompt name %q", c.Name)
			continue
		}
		p := mcp.Prompt{Name: c.Name, Title: c.Title, Description: c.Description}
		seen := map[string]bool{}
		for j, a := range c.Arguments {
			if seen[a.Name] {
				args := runtime.MappingValue(node, "arguments")
				b.Errorf(args.Content[j], at.Field("arguments").Index(j), "duplicate argument name %q", a.Name)
			}
			seen[a.Name] = true
			p.Arguments = append(p.Arguments, mcp.PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
		}
		text := b.ResourceTemplate(c.Resource, runtime.MappingValue(node, "resource"), at.Field("resource"))
		ps.byName[c.Name] = &prompt{description: c.Description, text: text}
		ps.list = append(ps.list, p)
	}
	return ps
}

// ListPrompts lists every declared prompt.
func (ps *prompts) ListPrompts(context.Context, *mcp.RequestContext, string) ([]mcp.Prompt, string, error) {
	return ps.list, "", nil
}

// GetPrompt renders the prompt's template with the arguments as the body and
// returns it as one user message.
func (ps *prompts) GetPrompt(ctx context.Context, _ *mcp.RequestContext, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	p := ps.byName[name]
	if p == nil {
		return nil, mcp.ErrUnknownPrompt
	}
	body := make(map[string]any, len(args))
	for k, v := range args {
		body[k] = v
	}
	text, err := p.text.Render(parentOf(ctx).Derive(body))
	if err != nil {
		return nil, err
	}
	return &mcp.GetPromptResult{
		Description: p.description,
		Messages:    []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent(text)}},
	}, nil
}

package mock

import (
	"context"
	"errors"

	"github.com/octo-run/octo/blocks/mockkit/placeholder"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/runtime/config"
)

// prompt is one compiled prompt.
type prompt struct {
	def         mcp.Prompt
	messages    []promptMessage
	steps       []*step // elicit, sample and listRoots only
	completions map[string][]string
}

type promptMessage struct {
	role    string
	content *content
}

func (c *compiler) prompts(cat *catalog, confs []promptConfig) {
	first := map[string]config.Position{}
	for i := range confs {
		pc := &confs[i]
		if !pc.Enabled {
			continue
		}
		if f, dup := first[pc.Name]; dup {
			c.duplicate(&pc.Name, "prompt name", f)
			continue
		}
		p, ok := c.prompt(pc)
		if !ok {
			continue
		}
		first[pc.Name] = c.pos.Of(&pc.Name)
		cat.prompts = append(cat.prompts, p)
		cat.promptByName[p.def.Name] = p
		cat.promptList = append(cat.promptList, p.def)
	}
}

func (c *compiler) prompt(pc *promptConfig) (*prompt, bool) {
	p := &prompt{def: pc.Prompt(), completions: pc.Completions}
	args := map[string]bool{}
	for _, a := range pc.Arguments {
		args[a.Name] = true
	}
	for _, sc := range pc.Steps {
		if sc.As != "" {
			args[sc.As] = true
		}
	}
	holder := &tool{def: mcp.Tool{Name: pc.Name}}
	ok := c.steps(holder, pc.Steps, nil, refs{args: args, params: noParams})
	p.steps = holder.steps
	for i := range pc.Messages {
		mc := &pc.Messages[i]
		ct, cok := c.content(&mc.contentConfig, refs{args: args, params: noParams})
		if !cok {
			ok = false
			continue
		}
		p.messages = append(p.messages, promptMessage{role: mc.Role, content: ct})
	}
	return p, ok
}

// checkPrompt reports load errors: message shapes, argument names
// declared twice.
func checkPrompt(pc *promptConfig, pos *config.Positions, ds *config.Diags) {
	for _, a := range pc.RepeatedArguments() {
		*ds = append(*ds, pos.Diag(&a.Name, "argument %q is declared twice", a.Name))
	}
	for i := range pc.Messages {
		mc := &pc.Messages[i]
		checkContentShape(&mc.contentConfig, pos, ds)
	}
	declared := map[string]bool{}
	for _, a := range pc.Arguments {
		declared[a.Name] = true
	}
	for name := range pc.Completions {
		if !declared[name] {
			*ds = append(*ds, pos.Diag(&pc.Completions, "completions for %q, which is not an argument of the prompt", name))
		}
	}
	names := map[string]bool{}
	for i := range pc.Steps {
		sc := &pc.Steps[i]
		if sc.Elicit == nil && sc.Sample == nil && !sc.ListRoots {
			*ds = append(*ds, pos.Diag(sc, "a prompt's steps ask the client: elicit, sample or listRoots"))
			continue
		}
		if sc.BeforeTask {
			*ds = append(*ds, pos.Diag(&sc.BeforeTask, "beforeTask belongs to the steps of a tool with task; a prompt is no task"))
		}
		checkStep(sc, pos, names, ds)
	}
}

// get renders the prompt's messages with the client's arguments, once
// their room in the request's budget is reserved.
func (p *prompt) get(ctx context.Context, rc *mcp.RequestContext, args map[string]string, r *placeholder.Rand) (*mcp.GetPromptResult, error) {
	in := placeholder.Input{Args: make(map[string]any, len(args))}
	for k, v := range args {
		in.Args[k] = v
	}
	for i, s := range p.steps {
		failed, err := s.run(ctx, rc, &in, r)
		if errors.Is(err, mcp.ErrInputRequired) {
			return nil, askTogether(ctx, rc, &in, r, p.steps[i+1:])
		}
		if err != nil {
			return nil, err
		}
		if failed != nil { // the client could not answer: the prompt cannot render
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "%s", failed.Content[0].Text)
		}
	}
	size := 0
	for _, m := range p.messages {
		size += m.content.size(in)
	}
	if err := rc.Reserve(size); err != nil {
		return nil, err
	}
	res := &mcp.GetPromptResult{Description: p.def.Description, Messages: make([]mcp.PromptMessage, len(p.messages))}
	for i, m := range p.messages {
		res.Messages[i] = mcp.PromptMessage{Role: m.role, Content: m.content.render(in, r)}
	}
	return res, nil
}

// complete answers completion/complete from the suggestions settings give a prompt's
// arguments (ref/prompt) or a URI template's parts (ref/resource, the template as written);
// anything else (an unknown prompt or template, a fixed URI) gets no suggestions.
func (p *provider) complete(_ context.Context, req *jsonrpc.Request, _ *mcp.RequestContext) (any, error) {
	c, err := mcp.ReadCompletion(req)
	if err != nil {
		return nil, err
	}
	var suggestions []string
	cat := p.current()
	switch c.RefType {
	case "ref/prompt":
		if pr := cat.promptByName[c.Ref]; pr != nil {
			suggestions = pr.completions[c.Argument]
		}
	case "ref/resource":
		for _, r := range cat.templates {
			if r.uri == c.Ref {
				suggestions = r.completions[c.Argument]
				break
			}
		}
	}
	return mcp.Completions(suggestions, c.Value), nil
}

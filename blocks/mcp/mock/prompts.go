package mock

import (
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/blocks/mcp"
	"github.com/octo-run/octo/blocks/mcp/mock/placeholder"
	"github.com/octo-run/octo/runtime/config"
)

// prompt is one compiled prompt.
type prompt struct {
	def      mcp.Prompt
	messages []promptMessage
}

type promptMessage struct {
	role    string
	content *content
}

var roles = []string{"user", "assistant"}

func (c *compiler) prompts(cat *catalog, confs []promptConfig) {
	first := map[string]config.Diag{}
	for i := range confs {
		pc := &confs[i]
		n, at := c.item("prompts", i)
		if !enabled(pc.Enabled) {
			continue
		}
		if f, dup := first[pc.Name]; dup {
			c.duplicate(fieldOr(n, "name"), at.Field("name"), "prompt name", pc.Name, f)
			continue
		}
		p, ok := c.prompt(pc, n, at)
		if !ok {
			continue
		}
		first[pc.Name] = firstAt(fieldOr(n, "name"))
		cat.prompts = append(cat.prompts, p)
		cat.promptByName[p.def.Name] = p
		cat.promptList = append(cat.promptList, p.def)
	}
}

func (c *compiler) prompt(pc *promptConfig, n *yaml.Node, at config.Where) (*prompt, bool) {
	p := &prompt{def: mcp.Prompt{Name: pc.Name, Title: pc.Title, Description: pc.Description}}
	args := map[string]bool{}
	for _, a := range pc.Arguments {
		p.def.Arguments = append(p.def.Arguments, mcp.PromptArgument{Name: a.Name, Title: a.Title,
			Description: a.Description, Required: a.Required})
		args[a.Name] = true
	}
	ok := true
	list := field(n, "messages")
	for i := range pc.Messages {
		mc := &pc.Messages[i]
		item := itemAt(list, i)
		ct, cok := c.content(&mc.contentConfig, item, at.Field("messages").Index(i), refs{args: args, params: noParams})
		if !cok {
			ok = false
			continue
		}
		role := mc.Role
		if role == "" {
			role = "user"
		}
		p.messages = append(p.messages, promptMessage{role: role, content: ct})
	}
	return p, ok
}

// checkPrompt reports load errors: roles, message shapes, argument names
// declared twice.
func checkPrompt(pc *promptConfig, n *yaml.Node, at config.Where, ds *config.Diags) {
	seen := map[string]bool{}
	args := field(n, "arguments")
	for i, a := range pc.Arguments {
		if seen[a.Name] {
			an := fieldOr(itemAt(args, i), "name")
			ds.Addf(an, at.Field("arguments").Index(i).Field("name"), "argument %q is declared twice", a.Name)
		}
		seen[a.Name] = true
	}
	list := field(n, "messages")
	for i := range pc.Messages {
		mc := &pc.Messages[i]
		item := itemAt(list, i)
		mat := at.Field("messages").Index(i)
		if mc.Role != "" && !slices.Contains(roles, mc.Role) {
			ds.Addf(fieldOr(item, "role"), mat.Field("role"), "role %q: a prompt message is from the user or the assistant", mc.Role)
		}
		checkContentShape(&mc.contentConfig, item, mat, ds)
	}
}

// get renders the prompt's messages with the client's arguments, once
// their room in the request's budget is reserved.
func (p *prompt) get(rc *mcp.RequestContext, args map[string]string, r *placeholder.Rand) (*mcp.GetPromptResult, error) {
	in := placeholder.Input{Args: make(map[string]any, len(args))}
	for k, v := range args {
		in.Args[k] = v
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

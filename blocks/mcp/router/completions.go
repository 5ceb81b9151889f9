package router

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/runtime"
)

// completeSettings make a prompt's or URI template's suggestions with blocks.
type completeSettings struct {
	Process runtime.Branch `yaml:"process" octo:"required" answers:"the suggestions" doc:"Blocks run with {argument, value, arguments} as the body: the argument (or template part) being completed, what the user typed so far, and the other arguments already given (2025-06-18 and later clients send them); the final body is the suggestions, a list of strings (the first 100 are sent)."`
}

// Body is what a completion's branch runs with.
func (*completeSettings) Body() *runtime.BodyKeys {
	return &runtime.BodyKeys{Names: []string{"argument", "value", "arguments"}, What: "a key of a completion request",
		Fix: "the body is {argument, value, arguments}"}
}

// completer makes the suggestions for one prompt's arguments or one template's parts: from
// settings by name, else from a branch.
type completer struct {
	fixed  map[string][]string
	branch runtime.Block // nil: only the fixed ones
}

// buildCompleter checks that every name fixed suggestions are given for is one of names
// (what: "an argument of the prompt", "a part of the uriTemplate"); nil when there is nothing to suggest.
func buildCompleter(b *runtime.Build, setting *map[string][]string, complete *completeSettings, names []string, what string) *completer {
	fixed := *setting
	for _, name := range slices.Sorted(maps.Keys(fixed)) {
		if !slices.Contains(names, name) {
			b.Errorf(setting, "completions for %q, which is not %s (known: %s)", name, what, strings.Join(names, ", "))
		}
	}
	if len(fixed) == 0 && complete == nil {
		return nil
	}
	c := &completer{fixed: fixed}
	if complete != nil {
		c.branch = complete.Process.Block
	}
	return c
}

// suggest returns the suggestions for argument after typed, as completion/complete answers them.
func (c *completer) suggest(ctx context.Context, parent *runtime.Message, argument, typed string, given map[string]string) (any, error) {
	if values, ok := c.fixed[argument]; ok || c.branch == nil {
		return mcp.Completions(values, typed), nil
	}
	args := make(map[string]any, len(given))
	for k, v := range given {
		args[k] = v
	}
	out, err := c.branch.Process(ctx, parent.Derive(map[string]any{"argument": argument, "value": typed, "arguments": args}))
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "completing %s: %s", argument, runtime.ErrorOf(err).Msg)
	}
	v, err := out.Body()
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	values := make([]string, 0, len(list))
	for _, item := range list {
		s, isString := item.(string)
		if !isString {
			ok = false
			break
		}
		values = append(values, s)
	}
	if !ok {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "completing %s: the branch must answer a list of strings", argument)
	}
	return mcp.Completions(values, ""), nil // the branch chose them for what was typed
}

// completions serves completion/complete for the router's prompts and URI templates.
type completions struct {
	prompts   map[string]*completer // by prompt name
	templates map[string]*completer // by URI template, as written
}

// handle answers completion/complete; a prompt or template with nothing to suggest (or one
// the router does not have) gets no suggestions.
func (cs *completions) handle(ctx context.Context, req *jsonrpc.Request, rc *mcp.RequestContext) (any, error) {
	c, err := mcp.ReadCompletion(req)
	if err != nil {
		return nil, err
	}
	var comp *completer
	if c.RefType == "ref/prompt" {
		comp = cs.prompts[c.Ref]
	} else {
		comp = cs.templates[c.Ref]
	}
	if comp == nil {
		return mcp.Completions(nil, ""), nil
	}
	return comp.suggest(ctx, parentOf(rc), c.Argument, c.Value, c.Context)
}

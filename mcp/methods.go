package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// params holds the raw members the core methods read; absent ones are nil.
type params struct {
	name, arguments, uri, cursor, protocolVersion []byte
}

// readParams picks the known members out of a params object in one pass and
// records params._meta.progressToken in rc.
func readParams(raw json.RawMessage, rc *RequestContext) (params, *jsonrpc.Error) {
	var p params
	if jsonscan.IsNull(raw) {
		return p, nil
	}
	ok := jsonscan.EachMember(raw, func(key, val []byte) bool {
		switch string(jsonscan.KeyText(key)) {
		case "name":
			p.name = val
		case "arguments":
			p.arguments = val
		case "uri":
			p.uri = val
		case "cursor":
			p.cursor = val
		case "protocolVersion":
			p.protocolVersion = val
		case "_meta":
			rc.ProgressToken = progressToken(val)
		}
		return true
	})
	if !ok {
		return p, invalidParams("params must be an object")
	}
	return p, nil
}

// progressToken returns _meta.progressToken if it is a string or an integer.
func progressToken(meta []byte) json.RawMessage {
	var tok json.RawMessage
	jsonscan.EachMember(meta, func(key, val []byte) bool {
		if string(jsonscan.KeyText(key)) != "progressToken" {
			return true
		}
		if _, err := jsonrpc.ParseID(val); err == nil {
			tok = json.RawMessage(val)
		}
		return false
	})
	return tok
}

// stringParam reads a string member; null counts as absent.
func stringParam(raw []byte, name string, required bool) (string, *jsonrpc.Error) {
	if jsonscan.IsNull(raw) {
		if required {
			return "", invalidParams("missing %q", name)
		}
		return "", nil
	}
	s, ok := jsonscan.Unquote(raw)
	if !ok {
		return "", invalidParams("%q must be a string, got %s", name, jsonscan.Kind(raw))
	}
	return s, nil
}

// objectParam reads an object member; absent or null is {}.
func objectParam(raw []byte, name string) (json.RawMessage, *jsonrpc.Error) {
	if jsonscan.IsNull(raw) {
		return jsonrpc.EmptyObject, nil
	}
	if raw[0] != '{' {
		return nil, invalidParams("%q must be an object, got %s", name, jsonscan.Kind(raw))
	}
	return raw, nil
}

// List slots for Server.lists.
const (
	slotTools = iota
	slotResources
	slotTemplates
	slotPrompts
)

// listPage encodes one page of a list method as {"<key>":[...],"nextCursor"?}, its items with
// only the fields the request's revision defines (trim, listfields.go).
func listPage[T any](s *Server, slot int, key string, p params, rc *RequestContext, trim func(*T, int) bool,
	fetch func(cursor string) ([]T, string, error)) (json.RawMessage, error) {
	cursor, perr := stringParam(p.cursor, "cursor", false)
	if perr != nil {
		return nil, perr
	}
	tier := tierOf(rc.Version)
	if rc.versionGuessed { // the client did not say: leave nothing out
		tier = tierLatest
	}
	cache := s.CacheLists && cursor == ""
	if cache {
		if b := s.lists[slot][tier].Load(); b != nil {
			return *b, nil
		}
	}
	items, next, err := page(s, cursor, fetch)
	if err != nil {
		return nil, err
	}
	items = forTier(items, tier, trim)
	if items == nil {
		items = []T{}
	}
	list, err := json.Marshal(items)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", key, err)
	}
	out := make([]byte, 0, len(list)+len(key)+len(next)+24)
	out = append(out, `{"`...)
	out = append(out, key...)
	out = append(out, `":`...)
	out = append(out, list...)
	if next != "" {
		out = append(out, `,"nextCursor":`...)
		out = jsonscan.AppendString(out, next)
	}
	out = append(out, '}')
	if cache {
		s.lists[slot][tier].Store(&out)
	}
	return out, nil
}

// DefaultPageSize is the most items a page of a list holds when the server says nothing: enough
// that a small server answers in one page.
const DefaultPageSize = 1000

// pageCursor starts the cursors the core gives the pages it makes.
const pageCursor = "octo-page-"

// page is one page of a list: the provider's own, when it pages itself; else the items of a
// whole list from the cursor's offset on, at most PageSize, and the cursor of the next page.
// A cursor neither gave is ErrInvalidCursor.
func page[T any](s *Server, cursor string, fetch func(cursor string) ([]T, string, error)) ([]T, string, error) {
	offset := 0
	if rest, ours := strings.CutPrefix(cursor, pageCursor); ours {
		n, err := strconv.Atoi(rest)
		if err != nil || n <= 0 {
			return nil, "", ErrInvalidCursor
		}
		offset, cursor = n, ""
	}
	items, next, err := fetch("")
	if err != nil {
		return nil, "", err
	}
	if next != "" { // the provider pages: the cursor is its own
		if cursor == "" {
			return items, next, nil
		}
		return fetch(cursor)
	}
	if cursor != "" { // a whole list has no cursors but the core's
		return nil, "", ErrInvalidCursor
	}
	size := s.PageSize
	if size <= 0 {
		size = DefaultPageSize
	}
	if offset > len(items) {
		return nil, "", ErrInvalidCursor
	}
	if end := offset + size; end < len(items) {
		return items[offset:end], pageCursor + strconv.Itoa(end), nil
	}
	return items[offset:], "", nil
}

func (s *Server) tools(ctx context.Context, method string, p params, rc *RequestContext) (json.RawMessage, error) {
	if s.Tools == nil {
		return nil, methodNotFound(method)
	}
	if method == "tools/list" {
		return listPage(s, slotTools, "tools", p, rc, trimTool, func(c string) ([]Tool, string, error) {
			return s.Tools.ListTools(ctx, rc, c)
		})
	}
	name, perr := stringParam(p.name, "name", true)
	if perr != nil {
		return nil, perr
	}
	args, perr := objectParam(p.arguments, "arguments")
	if perr != nil {
		return nil, perr
	}
	if rc.rounds != nil {
		rc.rounds.args = args // a task's work makes the call again, elsewhere perhaps
	}
	res, err := s.Tools.CallTool(ctx, rc, name, args)
	if created, ok := err.(*taskCreated); ok {
		return created.result, nil
	}
	if errors.Is(err, ErrUnknownTool) {
		if s.UnknownTool == UnknownToolAsResult {
			res, err = ToolError("Unknown tool: "+name), nil
		} else {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown tool: %s", name)
		}
	} else if s.Probes != nil {
		rc.tool = s.toolSlot(name) // a tool the server has: its name is the config's, fit for a label
	}
	if err != nil {
		return nil, err
	}
	return s.toolAnswer(name, res, rc)
}

// toolAnswer encodes a tool's result for the request's revision.
func (s *Server) toolAnswer(name string, res *CallToolResult, rc *RequestContext) (json.RawMessage, error) {
	if res == nil {
		res = &CallToolResult{}
	}
	rc.toolError = res.IsError
	if c, changed := downgrade(res.Content, rc.Version); changed {
		r := *res
		r.Content = c
		res = &r
	}
	if size := res.plainSize(); size >= jsonrpc.FrameFrom {
		if f, ok := jsonrpc.NewFrame(rc.RequestID, size, res.appendPlain); ok {
			rc.framed = f
			return f.Result(), nil
		}
	} else if b, ok := res.appendPlain(make([]byte, 0, size)); ok {
		return b, nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encode result of tool %s: %w", name, err)
	}
	return b, nil
}

func (s *Server) resources(ctx context.Context, method string, p params, rc *RequestContext) (json.RawMessage, error) {
	if s.Resources == nil {
		return nil, methodNotFound(method)
	}
	switch method {
	case "resources/list":
		return listPage(s, slotResources, "resources", p, rc, trimResource, func(c string) ([]Resource, string, error) {
			return s.Resources.ListResources(ctx, rc, c)
		})
	case "resources/templates/list":
		return listPage(s, slotTemplates, "resourceTemplates", p, rc, trimTemplate, func(c string) ([]ResourceTemplate, string, error) {
			return s.Resources.ListResourceTemplates(ctx, rc, c)
		})
	}
	uri, perr := stringParam(p.uri, "uri", true)
	if perr != nil {
		return nil, perr
	}
	contents, err := s.Resources.ReadResource(ctx, rc, uri)
	// An empty answer is not "found": the protocol forbids answering an
	// unknown resource with empty contents.
	if errors.Is(err, ErrResourceNotFound) || (err == nil && len(contents) == 0) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeResourceNotFound, Message: "Resource not found", Data: map[string]string{"uri": uri}}
	}
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(struct {
		Contents []ResourceContents `json:"contents"`
	}{contents})
	if err != nil {
		return nil, fmt.Errorf("encode contents of %s: %w", uri, err)
	}
	return b, nil
}

func (s *Server) prompts(ctx context.Context, method string, p params, rc *RequestContext) (json.RawMessage, error) {
	if s.Prompts == nil {
		return nil, methodNotFound(method)
	}
	if method == "prompts/list" {
		return listPage(s, slotPrompts, "prompts", p, rc, trimPrompt, func(c string) ([]Prompt, string, error) {
			return s.Prompts.ListPrompts(ctx, rc, c)
		})
	}
	name, perr := stringParam(p.name, "name", true)
	if perr != nil {
		return nil, perr
	}
	args, perr := promptArguments(p.arguments)
	if perr != nil {
		return nil, perr
	}
	prompt, err := s.findPrompt(ctx, rc, name)
	if err != nil {
		return nil, err
	}
	if prompt == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown prompt: %s", name)
	}
	for _, a := range prompt.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return nil, invalidParams("missing required argument %q", a.Name)
		}
	}
	res, err := s.Prompts.GetPrompt(ctx, rc, name, args)
	if errors.Is(err, ErrUnknownPrompt) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown prompt: %s", name)
	}
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = &GetPromptResult{}
	}
	res = downgradePrompt(res, rc.Version)
	b, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encode prompt %s: %w", name, err)
	}
	return b, nil
}

// promptArguments reads prompts/get arguments: an object of strings.
func promptArguments(raw []byte) (map[string]string, *jsonrpc.Error) {
	obj, perr := objectParam(raw, "arguments")
	if perr != nil {
		return nil, perr
	}
	args := map[string]string{}
	jsonscan.EachMember(obj, func(key, val []byte) bool {
		k := string(jsonscan.KeyText(key))
		v, ok := jsonscan.Unquote(val)
		if !ok {
			perr = invalidParams("argument %q must be a string, got %s", k, jsonscan.Kind(val))
			return false
		}
		args[k] = v
		return true
	})
	return args, perr
}

// maxPromptPages bounds the walk through a paginated prompt list.
const maxPromptPages = 100

// findPrompt looks name up in the provider's list, the only place argument
// requirements are declared.
func (s *Server) findPrompt(ctx context.Context, rc *RequestContext, name string) (*Prompt, error) {
	cursor := ""
	for range maxPromptPages {
		list, next, err := s.Prompts.ListPrompts(ctx, rc, cursor)
		if err != nil {
			return nil, err
		}
		for i := range list {
			if list[i].Name == name {
				return &list[i], nil
			}
		}
		if next == "" || next == cursor {
			return nil, nil
		}
		cursor = next
	}
	return nil, nil
}

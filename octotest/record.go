package octotest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/runtime/jsonv"
)

// maxRecorded bounds the reads and prompt gets --record writes: a server listing thousands of
// resources gets a suite a person can read, not one case each.
const maxRecorded = 10

// recordTimeout is how long each request --record sends may take.
const recordTimeout = 10 * time.Second

// Recorded is what Record wrote.
type Recorded struct {
	Cases int
	// Volatile are the values that changed between the two answers to one request, by case:
	// written as its expect.ignore.
	Volatile map[string][]string
	// Skipped are the tools not called, and why.
	Skipped []string
}

// Record writes a new file of cases for srv, so a regression suite for an existing server is
// one command: it lists what the server offers, reads its resources, gets its prompts that
// need no arguments and calls its tools marked read-only that need none, each twice (a
// session each), and writes each answer as the case's expect.body. A value that differs
// between the two answers (an id, a time) goes in the case's expect.ignore. Tools that may
// change something are not called: they are listed for the user to write cases for.
func Record(ctx context.Context, srv *Server, file string) (*Recorded, error) {
	if _, err := os.Stat(file); err == nil {
		return nil, fmt.Errorf("%s exists: --record starts a new file; to refresh its answers run octo test with --update", file)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	srv.findTransport(ctx, io.Discard)
	r := &runner{server: srv, lookup: os.LookupEnv, update: true, ctx: ctx}
	rec := &Recorded{Volatile: map[string][]string{}}
	var cases []*yaml.Node
	var problems []string
	// take runs c twice and keeps it with its answer; false when the server does not have
	// what c asks for (method not found) or could not answer.
	take := func(c Case) (json.RawMessage, bool) {
		node, result, volatile, err := r.record(ctx, c)
		var rerr *rpcErr
		switch {
		case errors.As(err, &rerr) && rerr.Code == jsonrpc.CodeMethodNotFound:
			return nil, false
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: %v", c.Name, err))
			return nil, false
		}
		cases = append(cases, node)
		if len(volatile) > 0 {
			rec.Volatile[c.Name] = volatile
		}
		return result, true
	}
	list := func(what string) []map[string]any {
		result, ok := take(Case{Name: "lists the " + listName(what), MCP: &MCPRequest{List: what}})
		if !ok {
			return nil
		}
		v, _ := jsonv.Decode(result)
		items, _ := v.(map[string]any)[what].([]any)
		var out []map[string]any
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	tools := list("tools")
	if len(cases) == 0 && len(problems) > 0 { // not answered at all: once is enough to say so
		return nil, fmt.Errorf("%s did not answer: %s", srv, strings.TrimPrefix(problems[0], "lists the tools: "))
	}
	resources := list("resources")
	list("resourceTemplates")
	prompts := list("prompts")
	for _, res := range first(resources) {
		if uri, _ := res["uri"].(string); uri != "" {
			take(Case{Name: "reads " + uri, MCP: &MCPRequest{Read: uri}})
		}
	}
	for _, p := range first(prompts) {
		name, _ := p["name"].(string)
		if name != "" && !promptNeedsArguments(p) {
			take(Case{Name: "gets the prompt " + name, MCP: &MCPRequest{Prompt: name}})
		}
	}
	for _, t := range tools {
		name, _ := t["name"].(string)
		if name == "" {
			continue
		}
		if why := notCalled(t); why != "" {
			rec.Skipped = append(rec.Skipped, name+" ("+why+")")
			continue
		}
		take(Case{Name: "calls " + name + " (read-only, without arguments)", MCP: &MCPRequest{Tool: name}})
	}
	if len(cases) == 0 {
		problems = append(problems, "the server answered none of tools/list, resources/list and prompts/list")
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("some requests got no answer to record:\n  %s", strings.Join(problems, "\n  "))
	}
	doc := &yaml.Node{Kind: yaml.DocumentNode, HeadComment: "# Recorded from " + srv.String() + " by octo test --record. Each case's expect.body is\n" +
		"# what the server answered; octo test --update writes new answers in.",
		Content: []*yaml.Node{{Kind: yaml.MappingNode, Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: "cases"},
			{Kind: yaml.SequenceNode, Content: cases},
		}}}}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if _, ds := parseFile(file, []byte(b.String())); len(ds) > 0 {
		return nil, fmt.Errorf("the recorded cases would not load (a bug of octo test: please report it): %w", ds)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, err
	}
	if err := writeFile(file, []byte(b.String())); err != nil {
		return nil, err
	}
	rec.Cases = len(cases)
	return rec, nil
}

// record runs c twice against the server and returns it as a case node with the answer as its
// expectation, and the values that changed between the two answers (its ignore). A JSON-RPC
// error answer is the *rpcErr returned.
func (r *runner) record(ctx context.Context, c Case) (*yaml.Node, json.RawMessage, []string, error) {
	c.Timeout = recordTimeout
	var results [2]json.RawMessage
	for i := range results {
		o := r.runCase(ctx, &loaded{Case: c})
		if o.snap == nil {
			return nil, nil, nil, errors.New(strings.Join(o.failures, "; "))
		}
		if o.snap.err != nil {
			return nil, nil, nil, o.snap.err
		}
		results[i] = json.RawMessage(o.body)
	}
	a, err1 := jsonv.Decode(results[0])
	b, err2 := jsonv.Decode(results[1])
	if err := errors.Join(err1, err2); err != nil {
		return nil, nil, nil, err
	}
	c.Expect.Ignore = changed("", a, b)
	s, err := snapshotOf(results[1], nil, &c.Expect, c.MCP.Tool != "")
	if err != nil {
		return nil, nil, nil, err
	}
	s.apply(&c.Expect)
	node, err := caseNode(c)
	return node, results[1], c.Expect.Ignore, err
}

func (e *rpcErr) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// caseNode writes c as a test file does: name, the mcp request on one line, then expect.
func caseNode(c Case) (*yaml.Node, error) {
	req := map[string]any{}
	switch m := c.MCP; {
	case m.List != "":
		req["list"] = m.List
	case m.Read != "":
		req["read"] = m.Read
	case m.Prompt != "":
		req["prompt"] = m.Prompt
	case m.Tool != "":
		req["tool"] = m.Tool
	}
	var mcpNode yaml.Node
	if err := mcpNode.Encode(req); err != nil {
		return nil, err
	}
	mcpNode.Style = yaml.FlowStyle
	expect := &yaml.Node{Kind: yaml.MappingNode}
	if len(c.Expect.Ignore) > 0 {
		var ig yaml.Node
		if err := ig.Encode(c.Expect.Ignore); err != nil {
			return nil, err
		}
		ig.Style = yaml.FlowStyle
		setKey(expect, "ignore", &ig)
	}
	if c.Expect.IsError != nil {
		setKey(expect, "isError", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
	}
	setKey(expect, "body", c.Expect.Body)
	n := &yaml.Node{Kind: yaml.MappingNode}
	setKey(n, "name", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: c.Name})
	setKey(n, "mcp", &mcpNode)
	setKey(n, "expect", expect)
	return n, nil
}

// changed lists the paths at which a and b differ, as expect.ignore writes them: a key or item
// only one has, a list of another length, a scalar of another value.
func changed(path string, a, b any) []string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		var out []string
		keys := maps.Clone(x)
		maps.Copy(keys, y)
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			xv, inX := x[k]
			yv, inY := y[k]
			if inX != inY {
				out = append(out, join(path, k))
				continue
			}
			out = append(out, changed(join(path, k), xv, yv)...)
		}
		return out
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			break
		}
		var out []string
		for i := range x {
			out = append(out, changed(join(path, strconv.Itoa(i)), x[i], y[i])...)
		}
		return out
	default:
		if scalarEqual(a, b) {
			return nil
		}
	}
	if path == "" { // the whole answer differs: nothing is left to compare
		return []string{Any}
	}
	return []string{path}
}

// notCalled says why --record does not call tool t, "" when it may: only a tool the server
// marks read-only that needs no arguments is called, since a call could change something.
func notCalled(t map[string]any) string {
	ann, _ := t["annotations"].(map[string]any)
	if ro, _ := ann["readOnlyHint"].(bool); !ro {
		return "not marked readOnlyHint"
	}
	schema, _ := t["inputSchema"].(map[string]any)
	if req, _ := schema["required"].([]any); len(req) > 0 {
		return "needs arguments"
	}
	return ""
}

// promptNeedsArguments reports whether prompt p has a required argument.
func promptNeedsArguments(p map[string]any) bool {
	args, _ := p["arguments"].([]any)
	return slices.ContainsFunc(args, func(a any) bool {
		m, _ := a.(map[string]any)
		req, _ := m["required"].(bool)
		return req
	})
}

func listName(what string) string {
	if what == "resourceTemplates" {
		return "resource templates"
	}
	return what
}

// first is at most maxRecorded items of l.
func first(l []map[string]any) []map[string]any {
	return l[:min(len(l), maxRecorded)]
}

// PrintRecorded says what Record wrote, and what it left for the user to write.
func PrintRecorded(w io.Writer, rec *Recorded, file string) {
	fmt.Fprintf(w, "recorded %d %s in %s\n", rec.Cases, plural(rec.Cases, "case", "cases"), file)
	for _, name := range slices.Sorted(maps.Keys(rec.Volatile)) {
		fmt.Fprintf(w, "  %s: ignoring what changed between two answers: %s\n", name, strings.Join(rec.Volatile[name], ", "))
	}
	if len(rec.Skipped) > 0 {
		fmt.Fprintf(w, "not called, since a call may change something or needs arguments: %s\n"+
			"  write cases for them (mcp: { tool: NAME, arguments: {...} }), then run octo test with --update to record their answers\n",
			strings.Join(rec.Skipped, ", "))
	}
}

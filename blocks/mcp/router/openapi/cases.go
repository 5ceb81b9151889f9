package openapi

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/octo-run/octo/mcp/schema"
)

// The octo test cases written beside the config.
type (
	testFile struct {
		Cases []testCase `yaml:"cases"`
	}
	testCase struct {
		Name   string         `yaml:"name"`
		MCP    mcpRequest     `yaml:"mcp"`
		Stubs  []stub         `yaml:"stubs,omitempty"`
		Expect map[string]any `yaml:"expect,omitempty"`
	}
	mcpRequest struct {
		List      string         `yaml:"list,omitempty"`
		Tool      string         `yaml:"tool,omitempty"`
		Arguments map[string]any `yaml:"arguments,omitempty"`
	}
	stub struct {
		Method string         `yaml:"method"`
		URL    string         `yaml:"url"`
		Status int            `yaml:"status,omitempty"`
		Body   any            `yaml:"body,omitempty"`
		Expect map[string]any `yaml:"expect,omitempty"`
	}
)

// listedTools is how many tool names the listing case checks.
const listedTools = 5

// Cases are the test cases of the import: the tools listed, and a call of each tool whose
// operation has an example answer, with that answer from a stub that checks the request.
func (im *Import) Cases() testFile {
	base := im.base
	if base == "" {
		base = placeholderBase
	}
	paths := map[string]any{}
	for i, t := range im.tools[:min(len(im.tools), listedTools)] {
		paths[fmt.Sprintf("tools.%d.name", i)] = t.name
	}
	f := testFile{Cases: []testCase{{Name: "lists the tools", MCP: mcpRequest{List: "tools"}, Expect: map[string]any{"paths": paths}}}}
	for _, t := range im.tools {
		if c, ok := t.exampleCase(base); ok {
			f.Cases = append(f.Cases, c)
		}
	}
	return f
}

// exampleCase calls the tool with arguments from the description's examples (a required one
// without any made up from its schema) and stubs the API with the example answer. A tool
// whose examples do not fit its own schemas gets no case: the description contradicts itself.
func (t *tool) exampleCase(base string) (testCase, bool) {
	mt := t.answer
	if mt == nil {
		return testCase{}, false
	}
	example := mt.Example
	if example == nil {
		example = firstExample(mt.Examples)
	}
	if example == nil && mt.Schema != nil && mt.Schema.Value != nil {
		example = mt.Schema.Value.Example
	}
	if example == nil {
		return testCase{}, false
	}
	args := map[string]any{}
	for _, p := range t.params {
		v := p.example
		if v == nil {
			v = made(p.schema)
		}
		if v == nil && p.required {
			return testCase{}, false
		}
		if v != nil {
			args[p.arg] = v
		}
	}
	var sentBody any
	if t.body != nil {
		switch ex := t.body.example.(type) {
		case nil:
			if required(t.input, t.body.arg) || t.body.arg == "" && anyRequired(t.input, t.body.props) {
				return testCase{}, false
			}
		case map[string]any:
			if t.body.arg != "" {
				args[t.body.arg], sentBody = ex, ex
				break
			}
			picked := map[string]any{}
			for _, p := range t.body.props {
				if v, ok := ex[p]; ok && v != nil {
					args[p], picked[p] = v, v
				}
			}
			sentBody = picked
		default:
			if t.body.arg == "" {
				return testCase{}, false
			}
			args[t.body.arg], sentBody = ex, ex
		}
	}
	if !fits(t.input, args) || t.output != nil && !fits(t.output, example) {
		return testCase{}, false
	}
	u, ok := t.stubURL(base, args)
	if !ok {
		return testCase{}, false
	}
	s := stub{Method: t.method, URL: u, Body: example}
	if sentBody != nil {
		s.Expect = map[string]any{"body": sentBody}
	}
	c := testCase{Name: t.name + " answers with the example", MCP: mcpRequest{Tool: t.name, Arguments: args}, Stubs: []stub{s}}
	if t.output != nil {
		c.Expect = map[string]any{"bodyContains": map[string]any{"structuredContent": example}}
	} else {
		// The API's JSON answer is the result's text as it came (a string with its quotes).
		c.Expect = map[string]any{"text": string(mustJSON(example))}
	}
	return c, true
}

// stubURL is the URL the tool calls with args, as the http-request block sends it (query keys
// sorted), or false when an argument has no plain text form.
func (t *tool) stubURL(base string, args map[string]any) (string, bool) {
	path := t.path
	var query []string
	for _, p := range t.params {
		v, given := args[p.arg]
		if !given {
			continue
		}
		text, ok := plainText(v)
		if !ok {
			return "", false
		}
		switch p.in {
		case "path":
			path = strings.ReplaceAll(path, "{"+p.name+"}", url.PathEscape(text))
		case "query":
			if text != "" {
				query = append(query, url.QueryEscape(p.name)+"="+url.QueryEscape(text))
			}
		}
	}
	slices.Sort(query)
	u := base + path
	if len(query) > 0 {
		u += "?" + strings.Join(query, "&")
	}
	return u, true
}

// plainText is v as a template renders it into a URL: a list joined by commas.
func plainText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case bool, float64, int, int64, uint64:
		return fmt.Sprint(v), true
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			s, ok := plainText(e)
			if !ok {
				return "", false
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), true
	}
	return "", false
}

// made is a value that fits a simple schema, for a required argument without an example: its
// default, first enum value, or a plain value of its type.
func made(s object) any {
	if v, ok := s.get("default"); ok {
		return v
	}
	if v, ok := s.get("enum"); ok {
		if list, _ := v.([]any); len(list) > 0 {
			return list[0]
		}
	}
	t, _ := s.get("type")
	switch t {
	case "string":
		return "example"
	case "integer", "number":
		return 1
	case "boolean":
		return true
	}
	return nil
}

func required(s object, name string) bool {
	r, _ := s.get("required")
	list, _ := r.([]string)
	return name != "" && slices.Contains(list, name)
}

func anyRequired(s object, names []string) bool {
	for _, n := range names {
		if required(s, n) {
			return true
		}
	}
	return false
}

// fits reports whether v matches the converted schema s.
func fits(s object, v any) bool {
	sc, err := schema.Compile([]byte(schemaJSON(s)))
	return err == nil && sc.Validate(mustJSON(v)) == nil
}

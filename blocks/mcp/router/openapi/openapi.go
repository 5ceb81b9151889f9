// Package openapi writes an MCP router config from an OpenAPI description (`octo import
// openapi`): one tool per operation, its arguments the operation's parameters and JSON body,
// its branch an http-request to the API, and octo test cases made of the description's
// examples, the API answered by stubs. What it writes is a starting point to edit: plain YAML,
// the same a person would write.
package openapi

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Options choose what is imported.
type Options struct {
	// Tags keeps the operations with one of these tags; Operations those with one of these
	// operationIds or tool names. Both empty: every operation.
	Tags, Operations []string
}

// Import is what a description becomes.
type Import struct {
	spec    *spec
	name    string
	base    string // the API's base URL; "" when the description names none
	tools   []*tool
	skipped []skip
	chosen  []operation // every operation the options keep, tool or not: the mock's routes
	// unmatched are the --tags and --operations that chose nothing.
	unmatched []string
}

// Load reads the description at source and plans its tools.
func Load(ctx context.Context, source string, o Options) (*Import, error) {
	sp, err := load(ctx, source)
	if err != nil {
		return nil, err
	}
	im := &Import{spec: sp, name: serviceName(sp.doc)}
	im.base, _ = baseURL(sp)
	taken, patterns := map[string]bool{}, map[string]error{}
	usedTags, usedOps := map[string]bool{}, map[string]bool{}
	for _, op := range operations(sp.doc) {
		if !chosen(op, o, usedTags, usedOps) {
			continue
		}
		im.chosen = append(im.chosen, op)
		t, why := plan(op, taken)
		if why == nil {
			why = compiles(t, patterns)
		}
		if why != nil {
			im.skipped = append(im.skipped, *why)
			continue
		}
		t.security = credentials(sp.doc, op.op)
		im.tools = append(im.tools, t)
	}
	for _, tag := range o.Tags {
		if !usedTags[tag] {
			im.unmatched = append(im.unmatched, "--tags "+tag)
		}
	}
	for _, op := range o.Operations {
		if !usedOps[op] {
			im.unmatched = append(im.unmatched, "--operations "+op)
		}
	}
	if len(im.tools) == 0 {
		return im, fmt.Errorf("%s: no operation became a tool%s", source, im.why())
	}
	return im, nil
}

// why says what left every operation out, for the error of an import with no tools.
func (im *Import) why() string {
	var parts []string
	if len(im.unmatched) > 0 {
		parts = append(parts, "nothing matched "+strings.Join(im.unmatched, ", "))
	}
	for _, s := range im.skipped[:min(len(im.skipped), 3)] {
		parts = append(parts, s.op+": "+s.why)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// chosen reports whether the options keep the operation, noting which of them matched.
func chosen(op operation, o Options, usedTags, usedOps map[string]bool) bool {
	if len(o.Tags) == 0 && len(o.Operations) == 0 {
		return true
	}
	keep := false
	for _, tag := range op.op.Tags {
		if slices.Contains(o.Tags, tag) {
			usedTags[tag], keep = true, true
		}
	}
	for _, id := range o.Operations {
		if id == op.op.OperationID || id == toolName(op.op, op.method, op.path, map[string]bool{}) {
			usedOps[id], keep = true, true
		}
	}
	return keep
}

// compiles checks what of the tool's schemas the router's JSON Schema compiler refuses and a
// description may hold: a pattern that is not a Go regular expression (ECMAScript's \u0080 or
// lookaheads), which leaves the operation out, so that what is written always builds.
// (Compiling each whole schema would say the same of a converted one, at a hundred times
// the cost on a large description.)
func compiles(t *tool, patterns map[string]error) *skip {
	var bad error
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case object:
			for _, m := range v {
				if p, ok := m.value.(string); ok && m.key == "pattern" {
					err, seen := patterns[p]
					if !seen {
						_, err = regexp.Compile(p)
						patterns[p] = err
					}
					if err != nil && bad == nil {
						bad = fmt.Errorf("its pattern %q is not a regular expression octo reads: %v", p, err)
					}
					continue
				}
				walk(m.value)
			}
		case []object:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(t.input)
	walk(t.output)
	if bad != nil {
		return &skip{t.where(), bad.Error()}
	}
	return nil
}

// Tools are the names of the tools planned, in the order they are written.
func (im *Import) Tools() []string {
	names := make([]string, len(im.tools))
	for i, t := range im.tools {
		names[i] = t.name
	}
	return names
}

// Skipped are the operations left out, each as "operation: why".
func (im *Import) Skipped() []string {
	out := make([]string, len(im.skipped))
	for i, s := range im.skipped {
		out[i] = s.op + ": " + s.why
	}
	return out
}

// Credentials are the variables that carry the API's credentials, in the order declared.
func (im *Import) Credentials() []string {
	var vars []string
	for _, t := range im.tools {
		for _, c := range t.security {
			for _, v := range c.vars {
				if !slices.Contains(vars, v) {
					vars = append(vars, v)
				}
			}
		}
	}
	return vars
}

// placeholderBase is the base URL written when the description names none: a host that is
// never an API (RFC 2606), so that a call fails plainly until API_BASE_URL is set.
const placeholderBase = "https://api.example.com"

// Config is the router config, as the YAML document the import writes.
func (im *Import) Config(port int) config {
	base := im.base
	if base == "" {
		base = placeholderBase
	}
	c := config{
		Service: service{Name: im.name},
		Env: []envVar{
			{Name: "HTTP_PORT", Default: fmt.Sprint(port)},
			{Name: baseURLVar, Default: base, Description: "Where the API is, without a trailing slash."},
		},
		Connectors: []connector{{Name: "web", Type: "http", Settings: map[string]string{"port": "${HTTP_PORT}"}}},
	}
	for _, v := range im.Credentials() {
		c.Env = append(c.Env, envVar{Name: v, Default: "", Description: "A credential of the API: set it in the environment, never here. Empty sends none."})
	}
	rb := routerBlock{Type: "mcp-router", ServerName: im.name}
	for _, t := range im.tools {
		tc := toolConfig{Name: t.name, Description: literal(t.description), Annotations: t.annotations,
			InputSchema: literal(schemaJSON(t.input)), Process: []httpBlock{{Type: "http-request", Settings: t.request()}}}
		if t.output != nil {
			tc.OutputSchema = literal(schemaJSON(t.output))
		}
		rb.Tools = append(rb.Tools, tc)
	}
	c.Flows = []flow{{Name: "mcp", Source: source{Connector: "web", Settings: map[string]string{"path": "/mcp"}},
		Process: []routerBlock{rb}}}
	return c
}

// mustJSON is v as JSON; v was decoded from JSON or YAML, so it always encodes.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("openapi: an example does not encode: %v", err))
	}
	return b
}

// literal is text as a config value that reads as written: a config replaces ${NAME} with a
// variable, and $${ writes ${.
func literal(text string) string { return strings.ReplaceAll(text, "${", "$${") }

package openapi

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// methods are the HTTP methods an operation may have, in the order tools are written.
var methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"}

// tool is what one operation becomes: the tool's declaration and the HTTP call its branch makes.
type tool struct {
	name, method, path, description string
	input, output                   object // output nil: the answer is not a JSON object
	annotations                     *annotations
	params                          []param
	body                            *requestBody
	security                        []credential
	op                              *openapi3.Operation
}

// param is one parameter of the operation, under the argument name the tool gives it.
type param struct {
	arg, name, in string
	required      bool
	array         bool
	example       any
	schema        object
}

// requestBody is how the tool's arguments become the JSON body: the properties named
// (flattened into the arguments), or the one argument that holds the whole body.
type requestBody struct {
	props   []string // flattened: these arguments are the body's properties
	arg     string   // else the argument that is the body
	example any
}

type annotations struct {
	ReadOnlyHint    *bool `yaml:"readOnlyHint,omitempty"`
	DestructiveHint *bool `yaml:"destructiveHint,omitempty"`
	IdempotentHint  *bool `yaml:"idempotentHint,omitempty"`
}

// skip is an operation left out, and why.
type skip struct{ op, why string }

var (
	validToolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	notNameChars  = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)
	identifier    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// maxToolName is the longest tool name written: MCP allows 128, but several clients cut or
// refuse names past 64.
const maxToolName = 64

// operations lists the operations of doc in a stable order: by path, then by method.
func operations(doc *openapi3.T) []struct {
	path, method string
	item         *openapi3.PathItem
	op           *openapi3.Operation
} {
	var out []struct {
		path, method string
		item         *openapi3.PathItem
		op           *openapi3.Operation
	}
	paths := doc.Paths.Map()
	for _, p := range sortedKeys(paths) {
		item := paths[p]
		ops := item.Operations()
		for _, m := range methods {
			if op := ops[m]; op != nil {
				out = append(out, struct {
					path, method string
					item         *openapi3.PathItem
					op           *openapi3.Operation
				}{p, m, item, op})
			}
		}
	}
	return out
}

// toolName is the operation's operationId when that is a valid tool name, else its method and
// path in the characters a name may hold, made unique among taken.
func toolName(op *openapi3.Operation, method, path string, taken map[string]bool) string {
	name := op.OperationID
	if !validToolName.MatchString(name) {
		name = strings.ToLower(method) + "_" + strings.Trim(notNameChars.ReplaceAllString(strings.NewReplacer("{", "", "}", "").Replace(path), "_"), "_")
		name = strings.TrimSuffix(name, "_")
		if len(name) > maxToolName {
			name = name[:maxToolName]
		}
	}
	unique := name
	for i := 2; taken[unique]; i++ {
		suffix := "_" + strconv.Itoa(i)
		unique = name[:min(len(name), maxToolName-len(suffix))] + suffix
	}
	taken[unique] = true
	return unique
}

// describe is the tool's description: the operation's summary and description.
func describe(op *openapi3.Operation, method, path string) string {
	var parts []string
	if op.Deprecated {
		parts = append(parts, "Deprecated.")
	}
	for _, s := range []string{op.Summary, op.Description} {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(parts, s) {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 || len(parts) == 1 && op.Deprecated {
		parts = append(parts, method+" "+path)
	}
	return strings.Join(parts, "\n\n")
}

func hint(b bool) *bool { return &b }

// annotate gives the tool the hints its method implies.
func annotate(method string) *annotations {
	a := &annotations{}
	switch method {
	case "GET", "HEAD", "OPTIONS":
		a.ReadOnlyHint = hint(true)
	case "DELETE":
		a.DestructiveHint, a.IdempotentHint = hint(true), hint(true)
	case "PUT":
		a.IdempotentHint = hint(true)
	default:
		return nil
	}
	return a
}

// jsonMedia is the JSON media type of content: application/json, or any +json type.
func jsonMedia(content openapi3.Content) (*openapi3.MediaType, bool) {
	if mt := content.Get("application/json"); mt != nil {
		return mt, true
	}
	for _, k := range sortedKeys(content) {
		base, _, _ := strings.Cut(k, ";")
		if base = strings.TrimSpace(strings.ToLower(base)); base == "application/json" || strings.HasSuffix(base, "+json") || base == "*/*" {
			return content[k], true
		}
	}
	return nil, false
}

// plan makes the tool of one operation, or says why it has none.
func plan(sp *spec, path, method string, item *openapi3.PathItem, op *openapi3.Operation, taken map[string]bool) (*tool, *skip) {
	where := method + " " + path
	if op.OperationID != "" {
		where = op.OperationID + " (" + where + ")"
	}
	t := &tool{method: method, path: path, op: op, description: describe(op, method, path), annotations: annotate(method)}
	var why *skip
	defs := schemas(sent, func(input *jsonSchema) { why = t.arguments(input, item, op, where) })
	if why != nil {
		return nil, why
	}
	if len(defs) > 0 {
		t.input.set("$defs", defs)
	}
	if mt := answer(op); mt != nil {
		var out object
		defs := schemas(answered, func(c *jsonSchema) { out = c.root(mt.Schema) })
		if isObject(out) {
			if len(defs) > 0 {
				out.set("$defs", defs)
			}
			t.output = out
		}
	}
	t.name = toolName(op, method, path, taken)
	return t, nil
}

// arguments makes the tool's inputSchema and how each argument reaches the API, from the
// parameters and the JSON request body, or says why the operation has no tool.
func (t *tool) arguments(input *jsonSchema, item *openapi3.PathItem, op *openapi3.Operation, where string) *skip {
	t.params, t.body = nil, nil
	var props object
	var required []string
	args := map[string]bool{}
	for _, p := range parameters(item, op) {
		if p.In == "cookie" {
			continue // a cookie parameter is the browser's business, not a tool's
		}
		pr := param{name: p.Name, in: p.In, required: p.Required || p.In == "path", example: p.Example}
		schema := p.Schema
		if schema == nil {
			if mt, ok := jsonMedia(p.Content); ok {
				schema = mt.Schema
			}
		}
		pr.schema = input.root(schema)
		if d := strings.TrimSpace(p.Description); d != "" {
			if _, has := pr.schema.get("description"); !has {
				pr.schema = append(object{{"description", d}}, pr.schema...)
			}
		}
		if ty, _ := pr.schema.get("type"); ty == "array" {
			pr.array = true
		}
		if pr.example == nil {
			pr.example = firstExample(p.Examples)
		}
		pr.arg = p.Name
		if args[pr.arg] {
			pr.arg = p.In + "_" + p.Name
		}
		args[pr.arg] = true
		props.set(pr.arg, pr.schema)
		if pr.required {
			required = append(required, pr.arg)
		}
		t.params = append(t.params, pr)
	}
	if op.RequestBody != nil && op.RequestBody.Value != nil && len(op.RequestBody.Value.Content) > 0 {
		rb := op.RequestBody.Value
		mt, ok := jsonMedia(rb.Content)
		if !ok {
			return &skip{where, "its request body is " + strings.Join(sortedKeys(rb.Content), ", ") + ", not JSON"}
		}
		body := input.root(mt.Schema)
		t.body = &requestBody{example: mt.Example}
		if t.body.example == nil {
			t.body.example = firstExample(mt.Examples)
		}
		if bp, ok := body.get("properties"); ok && isObject(body) && !collides(bp.(object), args) {
			for _, m := range bp.(object) {
				props.set(m.key, m.value)
				t.body.props = append(t.body.props, m.key)
			}
			if r, ok := body.get("required"); ok && rb.Required {
				required = append(required, r.([]string)...)
			}
		} else {
			t.body.arg = "body"
			if args["body"] {
				t.body.arg = "requestBody"
			}
			if d := strings.TrimSpace(rb.Description); d != "" {
				if _, has := body.get("description"); !has {
					body = append(object{{"description", d}}, body...)
				}
			}
			props.set(t.body.arg, body)
			if rb.Required {
				required = append(required, t.body.arg)
			}
		}
	}
	t.input = object{{"type", "object"}}
	if len(props) > 0 {
		t.input.set("properties", props)
	}
	if len(required) > 0 {
		t.input.set("required", required)
	}
	return nil
}

// collides reports whether a body property has the name of a parameter's argument.
func collides(props object, args map[string]bool) bool {
	for _, m := range props {
		if args[m.key] {
			return true
		}
	}
	return false
}

// parameters are the operation's parameters, the path item's included unless the operation
// overrides them, $refs resolved.
func parameters(item *openapi3.PathItem, op *openapi3.Operation) []*openapi3.Parameter {
	var out []*openapi3.Parameter
	seen := map[string]bool{}
	for _, list := range []openapi3.Parameters{op.Parameters, item.Parameters} {
		for _, ref := range list {
			if ref == nil || ref.Value == nil || seen[ref.Value.In+" "+ref.Value.Name] {
				continue
			}
			seen[ref.Value.In+" "+ref.Value.Name] = true
			out = append(out, ref.Value)
		}
	}
	return out
}

// answer is the JSON media type of the operation's success: 200, else the first 2xx.
func answer(op *openapi3.Operation) *openapi3.MediaType {
	if op.Responses == nil {
		return nil
	}
	codes := sortedKeys(op.Responses.Map())
	for _, c := range append([]string{"200"}, codes...) {
		if len(c) != 3 || c[0] != '2' {
			continue
		}
		if r := op.Responses.Value(c); r != nil && r.Value != nil {
			if mt, ok := jsonMedia(r.Value.Content); ok && mt.Schema != nil {
				return mt
			}
		}
	}
	return nil
}

// firstExample is the value of the first named example, by name.
func firstExample(ex openapi3.Examples) any {
	for _, k := range sortedKeys(ex) {
		if e := ex[k]; e != nil && e.Value != nil && e.Value.Value != nil {
			return e.Value.Value
		}
	}
	return nil
}

// schemaJSON writes a schema as the JSON text the config holds: an object per line and
// indented, but a small object of plain values ({"type": "string"}) and a list of plain values
// on one line, so that a schema reads at a glance.
func schemaJSON(o object) string {
	var b strings.Builder
	writeJSON(&b, o, "")
	b.WriteByte('\n')
	return b.String()
}

// inlineMembers is how many plain members an object may have and still sit on one line.
const inlineMembers = 3

func writeJSON(b *strings.Builder, v any, indent string) {
	switch v := v.(type) {
	case object:
		if len(v) == 0 {
			b.WriteString("{}")
			return
		}
		if len(v) <= inlineMembers && plainMembers(v) {
			b.WriteByte('{')
			for i, m := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				b.Write(mustJSON(m.key))
				b.WriteString(": ")
				writeJSON(b, m.value, indent)
			}
			b.WriteByte('}')
			return
		}
		b.WriteString("{\n")
		for i, m := range v {
			b.WriteString(indent + "  ")
			b.Write(mustJSON(m.key))
			b.WriteString(": ")
			writeJSON(b, m.value, indent+"  ")
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []object:
		b.WriteString("[\n")
		for i, e := range v {
			b.WriteString(indent + "  ")
			writeJSON(b, e, indent+"  ")
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	default:
		// A plain value, or a list of them: one line, with a space after each comma.
		var items []any
		if list, ok := v.([]any); ok {
			items = list
		} else if list, ok := v.([]string); ok {
			for _, s := range list {
				items = append(items, s)
			}
		} else {
			b.Write(mustJSON(v))
			return
		}
		b.WriteByte('[')
		for i, e := range items {
			if i > 0 {
				b.WriteString(", ")
			}
			b.Write(mustJSON(e))
		}
		b.WriteByte(']')
	}
}

// plainMembers reports whether no member of o is an object or a list of objects.
func plainMembers(o object) bool {
	for _, m := range o {
		switch v := m.value.(type) {
		case object, []object:
			return false
		case []any:
			for _, e := range v {
				if _, ok := e.(map[string]any); ok {
					return false
				}
			}
		}
	}
	return true
}

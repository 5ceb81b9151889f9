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
	operation
	name, description string
	input, output     object              // output nil: the answer is not a JSON object
	answer            *openapi3.MediaType // the success's JSON, nil if none
	annotations       *annotations
	params            []param
	body              *requestBody
	security          []credential
}

// param is one parameter of the operation, under the argument name the tool gives it.
type param struct {
	arg, name, in string
	required      bool
	example       any
	schema        object
}

// isArray reports whether the parameter is a list, which a URL carries comma-separated.
func (p param) isArray() bool {
	ty, _ := p.schema.get("type")
	return ty == "array"
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

// operation is one method of one path of the description.
type operation struct {
	path, method string
	item         *openapi3.PathItem
	op           *openapi3.Operation
}

// where names the operation in what the import reports.
func (o operation) where() string {
	if o.op.OperationID != "" {
		return o.op.OperationID + " (" + o.method + " " + o.path + ")"
	}
	return o.method + " " + o.path
}

// operations lists the operations of doc in a stable order: by path, then by method.
func operations(doc *openapi3.T) []operation {
	var out []operation
	paths := doc.Paths.Map()
	for _, p := range sortedKeys(paths) {
		ops := paths[p].Operations()
		for _, m := range methods {
			if op := ops[m]; op != nil {
				out = append(out, operation{p, m, paths[p], op})
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
func plan(o operation, taken map[string]bool) (*tool, *skip) {
	t := &tool{operation: o, description: describe(o.op, o.method, o.path), annotations: annotate(o.method)}
	var why *skip
	defs := schemas(sent, func(input *jsonSchema) { why = t.arguments(input) })
	if why != nil {
		return nil, why
	}
	if len(defs) > 0 {
		t.input.set("$defs", defs)
	}
	if t.answer = answer(o.op); t.answer != nil {
		var out object
		defs := schemas(answered, func(c *jsonSchema) { out = c.root(t.answer.Schema) })
		if isObject(out) {
			if len(defs) > 0 {
				out.set("$defs", defs)
			}
			t.output = out
		}
	}
	t.name = toolName(o.op, o.method, o.path, taken)
	return t, nil
}

// arguments makes the tool's inputSchema and how each argument reaches the API, from the
// parameters and the JSON request body, or says why the operation has no tool.
func (t *tool) arguments(input *jsonSchema) *skip {
	t.params, t.body = nil, nil
	var in inputs
	for _, p := range parameters(t.item, t.op) {
		if p.In == "cookie" {
			continue // a cookie parameter is the browser's business, not a tool's
		}
		schema := p.Schema
		if schema == nil {
			if mt, ok := jsonMedia(p.Content); ok {
				schema = mt.Schema
			}
		}
		pr := param{name: p.Name, in: p.In, required: p.Required || p.In == "path", example: p.Example,
			schema: described(input.root(schema), p.Description)}
		if pr.example == nil {
			pr.example = firstExample(p.Examples)
		}
		pr.arg = p.Name
		if in.has(pr.arg) {
			pr.arg = p.In + "_" + p.Name
		}
		in.add(pr.arg, pr.schema, pr.required)
		t.params = append(t.params, pr)
	}
	if rb := t.op.RequestBody; rb != nil && rb.Value != nil && len(rb.Value.Content) > 0 {
		if why := t.requestBody(input, rb.Value, &in); why != nil {
			return why
		}
	}
	t.input = object{{"type", "object"}}
	if len(in.props) > 0 {
		t.input.set("properties", in.props)
	}
	if len(in.required) > 0 {
		t.input.set("required", in.required)
	}
	return nil
}

// requestBody adds the JSON body to the arguments: an object's properties beside the
// parameters, else (or when a name is taken) the whole body as one argument.
func (t *tool) requestBody(input *jsonSchema, rb *openapi3.RequestBody, in *inputs) *skip {
	mt, ok := jsonMedia(rb.Content)
	if !ok {
		return &skip{t.where(), "its request body is " + strings.Join(sortedKeys(rb.Content), ", ") + ", not JSON"}
	}
	body := input.root(mt.Schema)
	t.body = &requestBody{example: mt.Example}
	if t.body.example == nil {
		t.body.example = firstExample(mt.Examples)
	}
	if bp, ok := body.get("properties"); ok && isObject(body) && !in.hasAny(bp.(object)) {
		r, _ := body.get("required")
		bodyRequired, _ := r.([]string)
		for _, m := range bp.(object) {
			in.add(m.key, m.value, rb.Required && slices.Contains(bodyRequired, m.key))
			t.body.props = append(t.body.props, m.key)
		}
		return nil
	}
	t.body.arg = "body"
	if in.has("body") {
		t.body.arg = "requestBody"
	}
	in.add(t.body.arg, described(body, rb.Description), rb.Required)
	return nil
}

// inputs are a tool's arguments as they are gathered.
type inputs struct {
	props    object
	required []string
}

func (in *inputs) add(name string, schema any, required bool) {
	in.props.set(name, schema)
	if required {
		in.required = append(in.required, name)
	}
}

func (in *inputs) has(name string) bool {
	_, ok := in.props.get(name)
	return ok
}

// hasAny reports whether one of props has the name of an argument already there.
func (in *inputs) hasAny(props object) bool {
	for _, m := range props {
		if in.has(m.key) {
			return true
		}
	}
	return false
}

// described is s with the description d first, unless s has one of its own.
func described(s object, d string) object {
	if d = strings.TrimSpace(d); d == "" {
		return s
	}
	if _, has := s.get("description"); has {
		return s
	}
	return append(object{{"description", d}}, s...)
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

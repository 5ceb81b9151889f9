package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/blocks/mockkit/placeholder"
	"github.com/octo-run/octo/runtime/reference"
)

// This file is `--mock WORKSPACE`: the API itself stood in for by an HTTP mock, a saved server
// of kind http with a route per operation answering its success with the description's example,
// or, without one, a value made from its schema: fake data where a format or a name says what
// a string is, and the request's own path parameters echoed where a property is named after one.

// mockRoute is one route of the mock as the saved file holds it.
type mockRoute struct {
	Method  string            `yaml:"method"`
	Path    string            `yaml:"path"`
	Status  int               `yaml:"status,omitempty"`
	Headers map[string]string `yaml:"headers,omitempty"`
	Body    string            `yaml:"body,omitempty"`
}

// mockFile is the saved server file's keys.
type mockFile struct {
	Name string `yaml:"name"`
	Kind string `yaml:"kind"`
	Port int    `yaml:"port"`
	HTTP struct {
		Routes []mockRoute `yaml:"routes"`
	} `yaml:"http"`
}

// A made-up value nests at most maxSampleDepth deep (a schema may contain itself) and grows
// past maxSampleBytes only by the least values of what it still owes.
const (
	maxSampleDepth = 6
	maxSampleBytes = 8 << 10
)

// MockRoutes are the mock's routes, one per operation the options keep, with the operations
// left out and why (a path parameter that is only part of a segment, which routes cannot match).
func (im *Import) MockRoutes() ([]mockRoute, []skip) {
	var routes []mockRoute
	var left []skip
	prefix := im.basePath()
	for _, op := range im.chosen {
		if why := wholeSegments(op.path); why != "" {
			left = append(left, skip{op.where(), why})
			continue
		}
		r := mockRoute{Method: op.method, Path: prefix + op.path}
		code, mt := success(op.op)
		if code != http.StatusOK {
			r.Status = code
		}
		if mt != nil {
			r.Body = sampleBody(mt, pathParams(op.path))
		}
		routes = append(routes, r)
	}
	return routes, left
}

// basePath is the path of the API's base URL (/v2 in https://api.example.com/v2), which the
// mock's routes keep so that a client of the API reaches the mock by its host alone.
func (im *Import) basePath() string {
	u, err := url.Parse(im.base)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(u.Path, "/")
}

// wholeSegments says why a path's parameters cannot be a route's ({name}.json), or "".
func wholeSegments(path string) string {
	for _, seg := range strings.Split(strings.Trim(path, "/"), "/") {
		if strings.ContainsAny(seg, "{}") && !(strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") && strings.Count(seg, "{") == 1) {
			return fmt.Sprintf("its path segment %q holds a parameter and more; an HTTP mock's parameters are whole segments", seg)
		}
	}
	return ""
}

// pathParams are the names of a path's parameters.
func pathParams(path string) map[string]bool {
	out := map[string]bool{}
	for _, seg := range strings.Split(path, "/") {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			out[strings.TrimSuffix(name, "}")] = true
		}
	}
	return out
}

// success is the operation's success status (200, else the first 2xx, else 200) and its JSON
// answer, nil when it has none.
func success(op *openapi3.Operation) (int, *openapi3.MediaType) {
	if op.Responses == nil {
		return http.StatusOK, nil
	}
	codes := sortedKeys(op.Responses.Map())
	for _, c := range append([]string{"200"}, codes...) {
		r := op.Responses.Value(c)
		if len(c) != 3 || c[0] != '2' || r == nil || r.Value == nil {
			continue
		}
		n, _ := strconv.Atoi(c)
		mt, _ := jsonMedia(r.Value.Content)
		return n, mt
	}
	return http.StatusOK, nil
}

// sampleBody is the answer's body as a template: the example as written, else a value made
// from the schema.
func sampleBody(mt *openapi3.MediaType, params map[string]bool) string {
	example := mt.Example
	if example == nil {
		example = firstExample(mt.Examples)
	}
	if example == nil && mt.Schema != nil && mt.Schema.Value != nil {
		example = mt.Schema.Value.Example
	}
	if example != nil {
		b, err := json.Marshal(example)
		if err == nil {
			return placeholder.Literal(string(b))
		}
	}
	if mt.Schema == nil {
		return ""
	}
	var b strings.Builder
	sample(&b, mt.Schema, "", params, 0)
	return b.String()
}

// sample writes a JSON value fitting ref as template text: an object's properties, an array of
// one item, and for a string a tag that draws fake data where its format or name says what it
// is, or the path parameter of its name.
func sample(b *strings.Builder, ref *openapi3.SchemaRef, name string, params map[string]bool, depth int) {
	if ref == nil || ref.Value == nil {
		b.WriteString("null")
		return
	}
	s := ref.Value
	if depth > maxSampleDepth || b.Len() > maxSampleBytes { // the least value of its type: a schema that contains itself ends here
		b.WriteString(least(s))
		return
	}
	if s.Example != nil {
		if e, err := json.Marshal(s.Example); err == nil {
			b.WriteString(placeholder.Literal(string(e)))
			return
		}
	}
	if len(s.Enum) > 0 {
		if e, err := json.Marshal(s.Enum[0]); err == nil {
			b.WriteString(placeholder.Literal(string(e)))
			return
		}
	}
	if len(s.AllOf) > 0 || len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
		for _, list := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
			if len(list) > 0 {
				sample(b, list[0], name, params, depth+1)
				return
			}
		}
	}
	switch {
	case s.Type.Is("object") || len(s.Properties) > 0:
		keys := sortedKeys(s.Properties)
		if depth >= 2 { // deeper down, only what is required: a nesting of optional parts ends
			keys = slices.DeleteFunc(keys, func(k string) bool { return !slices.Contains(s.Required, k) })
		}
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			key, _ := json.Marshal(k)
			b.WriteString(placeholder.Literal(string(key)))
			b.WriteString(": ")
			sample(b, s.Properties[k], k, params, depth+1)
		}
		b.WriteByte('}')
	case s.Type.Is("array"):
		b.WriteByte('[')
		sample(b, s.Items, name, params, depth+1)
		b.WriteByte(']')
	case s.Type.Is("integer"):
		b.WriteString("{{$randomInt 1 100}}") // a path parameter is text: echoing it would change the type
	case s.Type.Is("number"):
		b.WriteString("{{$randomInt 1 1000}}.5")
	case s.Type.Is("boolean"):
		b.WriteString("{{$randomBoolean}}")
	case s.Type.Is("string"):
		b.WriteString(`"` + stringTag(s.Format, name, params) + `"`)
	default:
		b.WriteString("null")
	}
}

// least is the smallest value of a schema's type.
func least(s *openapi3.Schema) string {
	switch {
	case s.Type.Is("object") || len(s.Properties) > 0:
		return "{}"
	case s.Type.Is("array"):
		return "[]"
	case s.Type.Is("string"):
		return `""`
	case s.Type.Is("integer"), s.Type.Is("number"):
		return "0"
	case s.Type.Is("boolean"):
		return "false"
	}
	return "null"
}

// stringTag is what a string property is made of: the path parameter it is named after, else
// fake data its format or name suggests, else a word.
func stringTag(format, name string, params map[string]bool) string {
	if params[name] {
		return "{{params." + name + "}}"
	}
	switch format {
	case "uuid":
		return "{{$uuid}}"
	case "date-time":
		return "{{$isoTimestamp}}"
	case "date":
		return "2026-01-15"
	case "email":
		return "{{$randomEmail}}"
	case "uri", "url":
		return "https://example.com/{{$randomWord}}"
	}
	lower := strings.ToLower(name)
	switch {
	case lower == "id" || strings.HasSuffix(lower, "id"):
		return "{{$uuid}}"
	case strings.Contains(lower, "email"):
		return "{{$randomEmail}}"
	case lower == "name" || strings.HasSuffix(lower, "name"):
		return "{{$randomFullName}}"
	case strings.Contains(lower, "city"):
		return "{{$randomCity}}"
	case strings.Contains(lower, "country"):
		return "{{$randomCountry}}"
	case strings.Contains(lower, "phone"):
		return "{{$randomPhoneNumber}}"
	case strings.Contains(lower, "url"):
		return "https://example.com/{{$randomWord}}"
	}
	return "{{$randomWord}}"
}

// mocked is what writeMock wrote.
type mocked struct {
	name, file string
	base       string // the API's base path, which the routes keep
	port       int
	routes     int
	left       []skip
}

// writeMock writes the mock into the workspace dir (made a workspace if it is not one) as
// servers/<title>.yaml on port (0: the next one free), checked as octo serve would read it;
// an existing file is replaced only with force.
func (im *Import) writeMock(ctx context.Context, dir, from string, port int, force bool) (mocked, error) {
	m := mocked{name: im.title()}
	if err := workspace.CheckName(m.name); err != nil {
		m.name = im.name
	}
	routes, left := im.MockRoutes()
	if len(routes) == 0 {
		return m, fmt.Errorf("%s: no operation can be a route of a mock%s", from, whyNone(left))
	}
	m.routes, m.left = len(routes), left
	if err := os.MkdirAll(filepath.Join(dir, workspace.ServersDir), 0o755); err != nil {
		return m, err
	}
	lockCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	w, err := workspace.Lock(lockCtx, dir)
	if err != nil {
		return m, err
	}
	defer w.Unlock()
	m.file = workspace.ServerFile(dir, m.name)
	if _, err := os.Stat(m.file); err == nil && !force {
		return m, fmt.Errorf("%s exists: pass --force to replace it with a new import", m.file)
	}
	if m.port = port; m.port == 0 {
		m.port = w.NextPort()
	}
	f := mockFile{Name: m.name, Kind: workspace.KindHTTP, Port: m.port}
	f.HTTP.Routes = routes
	head := fmt.Sprintf("# yaml-language-server: $schema=../%s\n"+
		"# Written by `octo import openapi --mock` from %s: the API answered from settings, a route per\n"+
		"# operation with its example answer (or one made from its schema). Edit it as you like;\n"+
		"# importing again with --force replaces it.\n", reference.SchemaFile(workspace.ServerSchema), filepath.Base(from))
	var b bytes.Buffer
	b.WriteString(head)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(f); err != nil {
		return m, err
	}
	_ = enc.Close()
	if _, ds := workspace.CheckServer(dir, m.file, b.Bytes(), ""); len(ds) > 0 {
		return m, fmt.Errorf("the mock written from %s does not load (a bug of the import: please report it): %w", from, ds.Err())
	}
	if err := reference.WriteSchemas(dir, workspace.ServerSchema, "workspace", testSchema); err != nil {
		return m, err
	}
	return m, w.WriteServer(m.file, b.Bytes())
}

// title is the mock's server name: the description's title, else the import's name.
func (im *Import) title() string {
	if info := im.spec.doc.Info; info != nil && strings.TrimSpace(info.Title) != "" {
		return strings.TrimSpace(info.Title)
	}
	return im.name
}

func whyNone(left []skip) string {
	if len(left) == 0 {
		return ""
	}
	return " (" + left[0].op + ": " + left[0].why + ")"
}

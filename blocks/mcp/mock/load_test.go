package mock

import (
	"encoding/json"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// load decodes settings as the runtime does for a block, then checks and
// compiles them.
func load(n *yaml.Node, at config.Where) (*version, config.Diags) {
	d, ds := runtime.DecodeBlockSettings("mcp-mock", n, at)
	if len(ds) > 0 {
		return nil, ds
	}
	return newVersion(d.Settings.(*Settings), d.Positions)
}

func parse(t testing.TB, text string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("yaml: %v", err)
	}
	return doc.Content[0]
}

var at = config.Where{File: "servers/Test.yaml", Path: "mcp", Kind: KindServer, Name: "Test"}

// TestSettingsThatCannotBeUsedStopTheServer lists the load errors: each is
// reported at its line and nothing is built.
func TestSettingsThatCannotBeUsedStopTheServer(t *testing.T) {
	cases := []struct {
		name, settings, want string
	}{
		{"a misspelt tool key is refused with a suggestion", `
tools:
  - name: a
    reslt: x`, `4:5: mcp.tools[0].reslt (server "Test"): unknown key "reslt" (did you mean "result"?)`},
		{"completions for an argument the prompt lacks are refused", `
prompts:
  - name: p
    arguments: [ { name: city } ]
    completions: { town: [a] }
    messages: [ { text: hi } ]`, `completions for "town", which is not an argument of the prompt`},
		{"a prompt step that does not ask the client is refused", `
prompts:
  - name: p
    steps: [ { log: hi } ]
    messages: [ { text: hi } ]`, `a prompt's steps ask the client: elicit, sample or listRoots`},
		{"an icon that is not https or data is refused", `
tools:
  - name: a
    result: x
    icons: [ { src: "http://example.com/a.png" } ]`, `mcp.tools[0].icons[0].src (server "Test"): icon src "http://example.com/a.png": use an https: URL or a data: URI`},
		{"a limit of zero is refused", `
maxBatch: 0`, `2:11: mcp.maxBatch (server "Test"): maxBatch must be positive, got 0`},
		{"a stream cap of zero is refused", `
maxStreamsPerSession: 0`, `mcp.maxStreamsPerSession (server "Test"): maxStreamsPerSession must be positive, got 0`},
		{"a zero stall timeout is refused", `
stallTimeout: 0s`, `mcp.stallTimeout (server "Test"): stallTimeout must be positive, got 0s`},
		{"a negative response budget is refused", `
maxResponseBytes: -1`, `mcp.maxResponseBytes (server "Test"): maxResponseBytes must be positive, got -1`},
		{"a negative idle timeout is refused", `
sessionIdleTimeout: -5s`, `mcp.sessionIdleTimeout (server "Test"): sessionIdleTimeout must be positive, got -5s`},
		{"a duration without a unit is refused", `
sessionIdleTimeout: 30`, `mcp.sessionIdleTimeout (server "Test"): expected a duration such as "5s" or "250ms"`},
		{"a delay over an hour is refused", `
tools:
  - { name: a, result: x, delayMs: 3600001 }`, `mcp.tools[0].delayMs (server "Test"): delayMs 3600001 is out of range 0-3600000`},
		{"a negative delay is refused", `
tools:
  - { name: a, result: x, delayMs: -1 }`, `delayMs -1 is out of range 0-3600000`},
		{"result and content together are refused", `
tools:
  - name: a
    result: x
    content: [ { text: y } ]`, `a tool answers with result (one text) or content (items), not both`},
		{"an output schema without a result is refused", `
tools:
  - name: a
    outputSchema: '{"type":"object"}'
    content: [ { text: y } ]`, `outputSchema needs result`},
		{"a content item with two kinds is refused", `
tools:
  - name: a
    content: [ { text: y, image: aGk=, mimeType: image/png } ]`, `this one has text and image`},
		{"a content item with no kind is refused", `
tools:
  - name: a
    content: [ { mimeType: image/png } ]`, `a content item needs one of: text, image, audio, resource, resourceLink`},
		{"an image without a mime type is refused", `
tools:
  - name: a
    content: [ { image: aGk= } ]`, `an image item needs a mimeType`},
		{"an embedded resource with text and blob is refused", `
tools:
  - name: a
    content: [ { resource: { uri: "x://y", text: a, blob: aGk= } } ]`, `an embedded resource needs text or blob (one of them)`},
		{"a step with two kinds is refused", `
tools:
  - name: a
    result: x
    steps: [ { log: hi, delayMs: 5 } ]`, `this one has log and delayMs`},
		{"a step key that belongs to another kind is refused", `
tools:
  - name: a
    result: x
    steps: [ { log: hi, maxTokens: 5 } ]`, `"maxTokens" does not belong to a log step`},
		{"an unknown log level is refused", `
tools:
  - name: a
    result: x
    steps: [ { log: hi, level: loud } ]`, `steps[0].level (server "Test"): unknown level "loud"; expected one of: debug, info, notice, warning, error, critical, alert, emergency`},
		{"an as name used twice is refused", `
tools:
  - name: a
    result: x
    steps: [ { elicit: a, as: r }, { sample: b, as: r } ]`, `as "r" is already used by an earlier step`},
		{"a resource without text or blob is refused", `
resources:
  - { uri: "a://b", name: b }`, `a resource needs text or blob`},
		{"a prompt message from a third party is refused", `
prompts:
  - name: p
    messages: [ { role: system, text: hi } ]`, `messages[0].role (server "Test"): unknown role "system"; expected one of: user, assistant`},
		{"a prompt argument declared twice is refused", `
prompts:
  - name: p
    arguments: [ { name: a }, { name: a } ]`, `argument "a" is declared twice`},
		{"the legacy paths cannot be the Streamable HTTP path", `
path: /sse`, `path "/sse" is reserved for the legacy HTTP+SSE transport`},
		{"a variable no tag can name is refused", `
variables: { "1st": x }`, `variable name "1st" cannot be used`},
		{"a tool without a name is refused", `
tools:
  - { result: x }`, `missing required key "name"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, ds := load(parse(t, c.settings), at)
			if v != nil || len(ds) == 0 {
				t.Fatalf("loaded; want the load error %q", c.want)
			}
			if got := ds.Error(); !strings.Contains(got, c.want) {
				t.Fatalf("diags:\n%s\nwant one containing %q", got, c.want)
			}
		})
	}
}

// TestItemsThatWouldConfuseClientsAreLeftOut lists the problems that leave
// one item out: the rest of the server still loads.
func TestItemsThatWouldConfuseClientsAreLeftOut(t *testing.T) {
	cases := []struct {
		name, settings, want string
		tools, resources     int
	}{
		{"a second enabled tool with one name is left out", `
tools:
  - { name: a, result: x }
  - { name: a, result: y }
  - { name: a, result: z, enabled: false }`, `4:13: mcp.tools[1].name (server "Test"): duplicate tool name "a"; first declared at 3:13`, 1, 0},
		{"a schema that is not JSON is left out", `
tools:
  - { name: a, result: x, inputSchema: '{"type": ' }
  - { name: b, result: x }`, `schema is not valid JSON`, 1, 0},
		{"a schema that is not an object schema is left out", `
tools:
  - { name: a, result: x, inputSchema: '{"type": "string"}' }`, `the root "type" must be "object"`, 0, 0},
		{"a bad template tag is reported at its column", `
tools:
  - name: a
    result: "Hi {{$randomIntt}}"`, `4:17: mcp.tools[0].result (server "Test"): unknown dynamic variable "$randomIntt"`, 0, 0},
		{"an unknown variable is reported", `
tools:
  - { name: a, result: "{{tokn}}" }
variables: { token: x }`, `unknown variable "tokn"`, 0, 0},
		{"a tool name with spaces is left out", `
tools:
  - { name: get weather, result: x }`, `tool name "get weather" would confuse clients`, 0, 0},
		{"an argument the schema does not declare is reported", `
tools:
  - name: a
    inputSchema: '{"type":"object","properties":{"city":{"type":"string"}}}'
    result: "{{args.cty}}"`, `{{args.cty}}: unknown argument "cty" (did you mean "city"?)`, 0, 0},
		{"URI parts in a tool are reported", `
tools:
  - { name: a, result: "{{params.id}}" }`, `{{params.id}} needs a resource uri with {id} in it`, 0, 0},
		{"a URI part the template lacks is reported", `
resources:
  - { uri: "a://{id}", name: r, text: "{{params.name}}" }
  - { uri: "a://fixed", name: f, text: ok }`, `unknown URI part "name"`, 0, 1},
		{"arguments in a resource are reported", `
resources:
  - { uri: "a://b", name: r, text: "{{args.x}}" }`, `{{args.x}}: nothing here takes arguments`, 0, 0},
		{"a bad URI template is left out", `
resources:
  - { uri: "a://{id", name: r, text: x }`, `unclosed "{"`, 0, 0},
		{"a second resource with one URI is left out", `
resources:
  - { uri: "a://b", name: r, text: x }
  - { uri: "a://b", name: s, text: y }`, `duplicate resource uri "a://b"`, 0, 1},
		{"data that is not base64 is left out", `
resources:
  - { uri: "a://b", name: r, blob: "not base64!" }`, `not valid base64`, 0, 0},
		{"an elicitation schema that is not an object schema is left out", `
tools:
  - name: a
    result: x
    steps: [ { elicit: hi, schema: { type: string } } ]`, `the root "type" must be "object"`, 0, 0},
		{"an as name that shadows an argument is left out", `
tools:
  - name: a
    inputSchema: '{"type":"object","properties":{"user":{"type":"string"}}}'
    result: x
    steps: [ { elicit: hi, as: user } ]`, `as "user" is also an argument of the tool`, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, ds := load(parse(t, c.settings), at)
			if len(ds) > 0 {
				t.Fatalf("load error %s; want the item left out", ds.Error())
			}
			if got := v.problems.Error(); !strings.Contains(got, c.want) {
				t.Fatalf("problems:\n%s\nwant one containing %q", got, c.want)
			}
			if len(v.cat.toolList) != c.tools || len(v.cat.resourceList)+len(v.cat.templateList) != c.resources {
				t.Fatalf("served %d tools and %d resources, want %d and %d", len(v.cat.toolList),
					len(v.cat.resourceList)+len(v.cat.templateList), c.tools, c.resources)
			}
		})
	}
}

// TestSchemasWrittenAsYAMLAreListedAsJSONInKeyOrder covers the YAML form of
// a schema: keys in the order written, numbers and booleans kept.
func TestSchemasWrittenAsYAMLAreListedAsJSONInKeyOrder(t *testing.T) {
	v, ds := load(parse(t, `
tools:
  - name: a
    result: x
    inputSchema:
      type: object
      properties:
        zeta: { type: integer, default: 30, maximum: 1.5e3 }
        alpha: { type: boolean, default: true, enum: [true, false] }
        name: { type: string, default: "30" }
      required: []
`), at)
	if len(ds) > 0 || len(v.problems) > 0 {
		t.Fatalf("load: %v %v", ds, v.problems)
	}
	want := `{"type":"object","properties":{"zeta":{"type":"integer","default":30,"maximum":1500},"alpha":{"type":"boolean","default":true,"enum":[true,false]},"name":{"type":"string","default":"30"}},"required":[]}`
	if got := string(v.cat.toolList[0].InputSchema); got != want {
		t.Fatalf("inputSchema = %s\nwant          %s", got, want)
	}
}

// TestDefaultsFillWhatIsNotWritten covers the documented defaults.
func TestDefaultsFillWhatIsNotWritten(t *testing.T) {
	v, ds := load(parse(t, `
tools: [ { name: a } ]
resources:
  - { uri: "a://t", name: t, text: x }
  - { uri: "a://b", name: b, blob: aGk= }
prompts: [ { name: p, messages: [ { text: hi } ] } ]
`), at)
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	checks := []struct{ what, got, want string }{
		{"path", v.s.Path, "/mcp"},
		{"version", v.s.Version, "1.0.0"},
		{"text mime type", v.cat.resourceList[0].MimeType, "text/plain"},
		{"blob mime type", v.cat.resourceList[1].MimeType, "application/octet-stream"},
		{"message role", v.cat.prompts[0].messages[0].role, "user"},
		{"empty input schema", marshal(v.cat.toolList[0]), `{"name":"a","inputSchema":{"type":"object"}}`},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
}

func marshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

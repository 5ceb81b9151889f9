package agenttools

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	_ "github.com/octo-run/octo/connectors/all" // a saved server is built on the http connector
)

// The weather server of the product docs, as an agent sends it.
const weatherArgs = `{"name": "Weather mock", "kind": "mcp", "mcp": {
	"instructions": "Use get_weather for the weather in a city.",
	"tools": [
		{"name": "get_weather", "description": "The current weather in a city.",
		 "inputSchema": "{\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}",
		 "result": "{\"city\": \"{{args.city}}\", \"forecast\": \"sunny\", \"temperatureC\": 21}"},
		{"name": "slow_report", "description": "A report\nthat takes a while.", "result": "Done.", "delayMs": 5000, "isError": false}
	],
	"resources": [{"uri": "stations://{name}", "name": "station", "text": "Station {{params.name}}: 21 °C"}],
	"prompts": [{"name": "plan_trip", "arguments": [{"name": "city", "required": true}],
		"messages": [{"role": "user", "text": "Plan a day in {{args.city}}."}]}],
	"variables": {"version": "3004", "empty": "", "nothing": null}
}}`

const weatherFile = `# yaml-language-server: $schema=../octo-server.schema.json
name: Weather mock
kind: mcp
port: 3005
mcp:
  instructions: Use get_weather for the weather in a city.
  tools:
    - name: get_weather
      description: The current weather in a city.
      inputSchema: '{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}'
      result: '{"city": "{{args.city}}", "forecast": "sunny", "temperatureC": 21}'
    - name: slow_report
      description: |-
        A report
        that takes a while.
      result: Done.
      delayMs: 5000
      isError: false
  resources:
    - uri: stations://{name}
      name: station
      text: 'Station {{params.name}}: 21 °C'
  prompts:
    - name: plan_trip
      arguments:
        - name: city
          required: true
      messages:
        - role: user
          text: Plan a day in {{args.city}}.
  variables:
    version: "3004"
    empty: ""
    nothing: null
`

func weatherSaving(t *testing.T) *saving {
	t.Helper()
	var s saving
	if err := json.Unmarshal([]byte(weatherArgs), &s.saveArgs); err != nil {
		t.Fatal(err)
	}
	n, err := jsonNode(s.MCP)
	if err != nil {
		t.Fatal(err)
	}
	s.mcp = n
	return &s
}

func TestASavedServerIsWrittenAsTheAgentOrderedIt(t *testing.T) {
	text, err := serverText(weatherSaving(t), 3005)
	if err != nil {
		t.Fatal(err)
	}
	if string(text) != weatherFile {
		t.Fatalf("wrote:\n%s\nwant:\n%s", text, weatherFile)
	}
}

func TestAWrittenServerPassesTheWorkspaceChecks(t *testing.T) {
	text, err := serverText(weatherSaving(t), 3005)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, ds := workspace.CheckServer(dir, workspace.ServerFile(dir, "Weather mock"), text, "")
	if len(ds) > 0 || s.Name != "Weather mock" || s.Port != 3005 {
		t.Fatalf("%+v %v", s, ds)
	}
}

// get_server gives back the fields save_server took, in their order.
func TestAFileReadsBackAsTheArgumentsItWasSavedFrom(t *testing.T) {
	fields, err := yamlFields("servers/Weather mock.yaml", []byte(weatherFile))
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := json.Compact(&want, []byte(weatherArgs)); err != nil {
		t.Fatal(err)
	}
	got := bytes.Replace(fields, []byte(`"kind":"mcp","port":3005,`), []byte(`"kind":"mcp",`), 1)
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("read back:\n%s\nwant:\n%s", got, want.Bytes())
	}
}

func TestFieldsResolveAliasesAndKeepWhatJSONCannotHold(t *testing.T) {
	text := "a: &x {n: 1, f: 1.5, h: 0x1F, t: 2001-12-14, s: 'yes'}\nb: *x\nc: .inf\n"
	fields, err := yamlFields("f.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"a":{"n":1,"f":1.5,"h":31,"t":"2001-12-14","s":"yes"},"b":{"n":1,"f":1.5,"h":31,"t":"2001-12-14","s":"yes"},"c":".inf"}`
	if string(fields) != want {
		t.Fatalf("%s\nwant %s", fields, want)
	}
}

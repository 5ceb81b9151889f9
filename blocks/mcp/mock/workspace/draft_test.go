package workspace_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
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

// weatherDraft is the weather server as an agent sends it.
func weatherDraft(t *testing.T) *workspace.Draft {
	t.Helper()
	var args struct {
		Name, Kind string
		MCP        json.RawMessage
	}
	if err := json.Unmarshal([]byte(weatherArgs), &args); err != nil {
		t.Fatal(err)
	}
	d, err := workspace.NewDraft(args.Name, args.Kind, args.MCP)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestADraftIsWrittenAsItWasSent(t *testing.T) {
	text, err := weatherDraft(t).Text(3005)
	if err != nil {
		t.Fatal(err)
	}
	if string(text) != weatherFile {
		t.Fatalf("wrote:\n%s\nwant:\n%s", text, weatherFile)
	}
}

func TestAWrittenDraftPassesTheWorkspaceChecks(t *testing.T) {
	text, err := weatherDraft(t).Text(3005)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, ds := workspace.CheckServer(dir, workspace.ServerFile(dir, "Weather mock"), text, "")
	if len(ds) > 0 || s.Name != "Weather mock" || s.Port != 3005 {
		t.Fatalf("%+v %v", s, ds)
	}
}

// The fields read back from a file are those it was written from, in their order.
func TestAFileReadsBackAsTheFieldsItWasWrittenFrom(t *testing.T) {
	fields, err := workspace.ServerFields("servers/Weather mock.yaml", []byte(weatherFile))
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
	fields, err := workspace.ServerFields("f.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"a":{"n":1,"f":1.5,"h":31,"t":"2001-12-14","s":"yes"},"b":{"n":1,"f":1.5,"h":31,"t":"2001-12-14","s":"yes"},"c":".inf"}`
	if string(fields) != want {
		t.Fatalf("%s\nwant %s", fields, want)
	}
}

func TestADraftIsAnObjectOfBoundedDepth(t *testing.T) {
	for _, c := range []struct{ mcp, want string }{
		{`[]`, "expected a JSON object"},
		{strings.Repeat(`{"a":`, 70) + `1` + strings.Repeat(`}`, 70), "nests deeper than 64 levels"},
		{`{} {}`, "more than one JSON value"},
	} {
		if _, err := workspace.NewDraft("A", "mcp", json.RawMessage(c.mcp)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.40s: %v, want %q", c.mcp, err, c.want)
		}
	}
}

// What is sent as a server's mcp section reads back from the written file as the same JSON
// value: the YAML in between loses and adds nothing.
func FuzzADraftReadsBackAsSent(f *testing.F) {
	f.Add(`{"tools": [{"name": "a", "result": "{\"x\": 1}", "delayMs": 5}], "variables": {"v": "3004"}}`)
	f.Add(`{"a": ["", null, true, 1.5, -0, 1e3, "yes", "no", "~", "null", "0x1F", "2001-12-14", "a: b", "- x", "#c", "\n x\n"]}`)
	f.Add(`{"k y": {"": "\t\u0000\u2028", "é": "\"'"}}`)
	f.Fuzz(func(t *testing.T, sent string) {
		var want map[string]any
		if json.Unmarshal([]byte(sent), &want) != nil {
			return
		}
		d, err := workspace.NewDraft("A", "mcp", json.RawMessage(sent))
		if err != nil {
			return // too deep: refused before anything is written
		}
		text, err := d.Text(3004)
		if err != nil {
			t.Fatalf("cannot write %s: %v", sent, err)
		}
		fields, err := workspace.ServerFields("A.yaml", text)
		if err != nil {
			t.Fatalf("cannot read back what was written for %s:\n%s\n%v", sent, text, err)
		}
		var got struct {
			MCP map[string]any `json:"mcp"`
		}
		if err := json.Unmarshal(fields, &got); err != nil {
			t.Fatalf("%s: %v", fields, err)
		}
		if !reflect.DeepEqual(got.MCP, want) {
			t.Fatalf("sent %s\nwrote:\n%s\nread back %s", sent, text, fields)
		}
	})
}

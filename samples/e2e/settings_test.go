package e2e

// Settings as the built binary decodes them: every block's and connector's settings type, its
// tags (defaults, enums, bounds) and typed settings (schemas written as YAML).

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeConfig writes text as c.yaml in a new folder and returns the file's path.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestValidateReportsEverySettingsMistakeAtItsLine(t *testing.T) {
	file := writeConfig(t, `connectors:
  - name: api
    type: http
    settings: { port: 70000, maxInFlight: 0, cors: maybe }
flows:
  - name: f
    source: { connector: api, settings: { path: /mcp, methods: [POST] } }
    process:
      - { type: log, settings: { message: hi, level: wrn } }
      - { type: delay, settings: { duration: 0s } }
      - type: mcp-router
        settings: { serverName: x }
        tools:
          - name: t
            process: []
`)
	code, out, _ := validate(t, file)
	if code == 0 {
		t.Fatalf("a broken config validated:\n%s", out)
	}
	want := []string{
		`c.yaml:4:23: connectors[0].settings.port (connector "api"): port 70000 is out of range 0-65535`,
		`c.yaml:4:43: connectors[0].settings.maxInFlight (connector "api"): maxInFlight must be positive, got 0`,
		`c.yaml:4:52: connectors[0].settings.cors (connector "api"): expected true, false or a list of origins such as [https://app.example.com]`,
		`c.yaml:9:54: flows[0].process[0].settings.level (log): unknown level "wrn" (did you mean "warn"?)`,
		`c.yaml:10:46: flows[0].process[1].settings.duration (delay): duration must be more than 0s and at most 1h0m0s, got 0s`,
		`c.yaml:12:19: flows[0].process[2].settings (mcp-router): unknown key "settings"; expected one of: serverName, tools, resources, prompts, initializeUpTo, cache, tasks, logging, maxBatch, maxResponseBytes`,
	}
	got := strings.ReplaceAll(out, filepath.Dir(file)+string(filepath.Separator), "")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("missing\n  %s\nin\n%s", w, got)
		}
	}
}

func TestARouterToolSchemaWrittenAsYAMLIsListedAndChecked(t *testing.T) {
	port := freePort(t)
	file := writeConfig(t, `connectors: [ { name: api, type: http, settings: { port: `+strconv.Itoa(port)+` } } ]
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        tools:
          - name: forecast
            inputSchema:
              type: object
              properties: { days: { type: integer, minimum: 1 }, city: { type: string } }
              required: [city]
            process:
              - { type: set-payload, settings: { value: '"sunny in " + body.city' } }
`)
	startOcto(t, nil, "run", "--config", file)
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	post := func(body string) string {
		a := do(t, "POST", url, "application/json", body, "Accept", "application/json, text/event-stream")
		if a.status != 200 {
			t.Fatalf("status %d: %s", a.status, a.body)
		}
		return a.body
	}
	t.Run("the schema is listed as JSON, its keys in the order written", func(t *testing.T) {
		want := `"inputSchema":{"type":"object","properties":{"days":{"type":"integer","minimum":1},"city":{"type":"string"}},"required":["city"]}`
		if got := post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); !strings.Contains(got, want) {
			t.Fatalf("got %s\nwant it to hold %s", got, want)
		}
	})
	t.Run("a call is checked against it before the branch runs", func(t *testing.T) {
		got := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"forecast","arguments":{"days":0}}}`)
		if !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "city") {
			t.Fatalf("got %s", got)
		}
		got = post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Oslo"}}}`)
		if !strings.Contains(got, `"text":"sunny in Oslo"`) {
			t.Fatalf("got %s", got)
		}
	})
}

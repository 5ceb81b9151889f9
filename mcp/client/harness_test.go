package client_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/mcp/client"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeStdioEnv); mode != "" {
		os.Exit(fakeStdio(mode))
	}
	goleak.VerifyTestMain(m)
}

// mockSettings is the mock every transport test talks to: tools that
// answer, fail, report progress, take their time and ask the client for
// what it cannot give; a resource, a template and a prompt.
const mockSettings = `
serverName: Weather mock
instructions: Use get_weather for the weather in a city.
tools:
  - name: get_weather
    inputSchema: '{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}'
    result: '{"city": "{{args.city}}", "forecast": "sunny"}'
  - name: structured
    outputSchema: '{"type": "object", "properties": {"n": {"type": "number"}}}'
    result: '{"n": 7}'
  - name: broken
    result: the upstream is down
    isError: true
  - name: report
    steps:
      - { progress: 1, total: 2, message: "first half" }
      - { progress: 2, total: 2, message: "second half" }
    result: reported
  - name: slow
    delayMs: 30000
    result: too late
  - name: ask_user
    steps:
      - { elicit: "Which city?", as: city }
    result: 'got {{args.city}}'
resources:
  - uri: docs://readme
    name: readme
    mimeType: text/markdown
    text: "# Weather service"
  - uri: stations://{name}
    name: station
    text: "Station {{params.name}}"
prompts:
  - name: plan_trip
    arguments:
      - { name: city, required: true }
    messages:
      - { role: user, text: "Plan a day in {{args.city}}." }
`

// startMock serves mockSettings on a free port and returns its base URL
// (the Streamable HTTP endpoint is /mcp, the legacy stream /sse) and its
// log, which holds the mock's traffic.
func startMock(t testing.TB) (string, *runtimetest.Buffer) {
	t.Helper()
	var b strings.Builder
	b.WriteString(`service: { name: mcpclient-test }
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1 } }
flows:
  - name: mcp
    source: { connector: api, settings: { paths: [/mcp, /sse, /messages] } }
    process:
      - type: mcp-mock
        name: weather
        settings:
`)
	for _, line := range strings.Split(strings.Trim(mockSettings, "\n"), "\n") {
		b.WriteString("          " + line + "\n")
	}
	log := &runtimetest.Buffer{}
	svc := runtimetest.StartConfig(t, b.String(), log)
	return "http://" + svc.Connector("api").(interface{ Addr() string }).Addr(), log
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// dial connects and closes the client when the test ends.
func dial(t testing.TB, o client.Options) *client.Client {
	t.Helper()
	c, err := client.Dial(testCtx(t), o)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return c
}

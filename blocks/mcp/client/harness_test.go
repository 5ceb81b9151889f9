package client_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// upstreamConfig is the MCP server the router's tools call: octo's mock.
const upstreamConfig = `service: { name: upstream }
connectors:
  - { name: api, type: http, settings: { port: %d, host: 127.0.0.1 } }
flows:
  - name: mcp
    source: { connector: api, settings: { paths: [/mcp, /sse, /messages] } }
    process:
      - type: mcp-mock
        name: weather
        settings:
          serverName: Weather mock
          tools:
            - name: get_weather
              result: '{"city": "{{args.city}}", "forecast": "sunny"}'
            - name: structured
              outputSchema: '{"type": "object"}'
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
          resources:
            - uri: stations://{name}
              name: station
              text: "Station {{params.name}}"
          prompts:
            - name: plan_trip
              arguments: [{ name: city, required: true }]
              messages:
                - { role: user, text: "Plan a day in {{args.city}}." }
`

// upstream serves the mock on port (0: a free one) and returns its address and log.
func upstream(t testing.TB, port int) (*runtime.Service, string, *runtimetest.Buffer) {
	t.Helper()
	log := &runtimetest.Buffer{}
	svc := runtimetest.StartConfig(t, fmt.Sprintf(upstreamConfig, port), log)
	return svc, svc.Connector("api").(interface{ Addr() string }).Addr(), log
}

// routerConfig puts tools (YAML, indented for the router's tools list) in a router.
func routerConfig(tools string) string {
	var b strings.Builder
	b.WriteString(`service: { name: router }
connectors:
  - { name: api, type: http, settings: { port: 0, host: 127.0.0.1 } }
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        name: tools
        tools:
`)
	for _, line := range strings.Split(strings.Trim(tools, "\n"), "\n") {
		b.WriteString("          " + line + "\n")
	}
	return b.String()
}

// startRouter serves tools and returns the router's MCP endpoint and the service.
func startRouter(t testing.TB, tools string) (string, *runtime.Service) {
	t.Helper()
	svc := runtimetest.StartConfig(t, routerConfig(tools), nil)
	return "http://" + svc.Connector("api").(interface{ Addr() string }).Addr() + "/mcp", svc
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

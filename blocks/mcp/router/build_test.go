package router_test

import (
	"flag"
	"testing"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime/runtimetest"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestRouterBuildMistakesAreAllReportedWithTheirLines(t *testing.T) {
	runtimetest.BuildGoldens(t, "testdata/broken/*.yaml", *update)
}

// routerHead is the service a router test's keys are served in: an mcp-router at /mcp of an
// http connector on a free port.
const routerHead = `connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
`

// serveRouter serves a router with keys (its settings, written eight spaces in) and returns the
// service's base URL.
func serveRouter(t *testing.T, keys string) string {
	t.Helper()
	_, base := runtimetest.Serve(t, routerHead+keys, "api", &runtimetest.Buffer{})
	return base
}

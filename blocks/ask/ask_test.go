package ask_test

import (
	"flag"
	"testing"

	_ "github.com/octo-run/octo/blocks/ask"
	_ "github.com/octo-run/octo/connectors/http"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Asks the router's e2e tests answer are in blocks/mcp/router/ask_test.go and samples/e2e.

func TestBrokenAsksAreReportedAtTheirSettings(t *testing.T) {
	runtimetest.BuildGoldens(t, "testdata/broken/*.yaml", *update)
}

// An ask outside an MCP tool has nobody to ask, and says where it belongs.
func TestAnAskWithoutAClientSaysWhereItBelongs(t *testing.T) {
	svc := runtimetest.StartConfig(t, `connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: f
    source: { connector: api, settings: { path: /a } }
    process:
      - type: ask
        settings: { sample: { prompt: hi } }
`, nil)
	_, err := runtimetest.RunFlow(t, svc, "f", runtime.NewMessage([]byte(`{}`)))
	e := runtime.ErrorOf(err)
	if e.Kind != runtime.KindInvalid || e.Msg != "an ask block asks an MCP client, and this run has none: put it in an mcp-router tool" {
		t.Fatalf("error %v: %v %q", err, e.Kind, e.Msg)
	}
}

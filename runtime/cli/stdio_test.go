package cli_test

import (
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// `validate --stdio` builds the config as `run --stdio` would serve it, so what cannot work over
// standard input and output is refused before any client starts octo and waits on it.
func TestValidateStdioRefusesWhatCannotWorkOverStdio(t *testing.T) {
	cases := []struct{ name, config, golden string }{
		{"two router flows: --stdio cannot choose", "testdata/stdio/two-routers.yaml", "two-routers"},
		{"a config with no router flow", "../../samples/hello", "no-router"},
		{"a config whose own stdio connector serves another flow", "testdata/stdio/own-stdio.yaml", "own-stdio"},
		{"a router behind jwt-validate, which needs an HTTP request", "../../samples/mcp-oauth", "jwt-validate"},
		{"a workspace folder, which serves a saved server its own way", "../../samples/weather-mock", "workspace"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI("validate", "--config", c.config, "--stdio")
			if code == 0 || out != "" {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
			}
			runtimetest.Golden(t, "testdata/stdio/"+c.golden+".golden", errs, *update)
		})
	}
}

func TestValidateStdioAcceptsARouterFlow(t *testing.T) {
	for _, config := range []string{"../../samples/mcp-router", "testdata/stdio/own-stdio.yaml"} {
		code, out, errs := runCLI("validate", "--config", config)
		if code != 0 || !strings.HasSuffix(out, ": ok\n") {
			t.Fatalf("%s without --stdio: exit %d\n%s%s", config, code, out, errs)
		}
	}
	code, out, errs := runCLI("validate", "--config", "../../samples/mcp-router", "--stdio")
	if code != 0 || out != "../../samples/mcp-router: ok\n" {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

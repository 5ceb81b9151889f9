package proxy_test

import (
	"flag"
	"testing"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime/runtimetest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Every mistake in the upstreams is reported at its line before anything is dialed.
func TestProxyBuildMistakesAreAllReportedWithTheirLines(t *testing.T) {
	runtimetest.BuildGoldens(t, "testdata/broken/*.yaml", *update)
}

package runtime_test

import (
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// The engine knows no block, connector or operations listener: they register themselves, and
// main.go, the composition root, imports them. A package under runtime/ importing one would
// tie the engine to a protocol (and its commands to a block, as runtime/cli once was to the
// mock workspace and jwt-validate, and to ops for --admin).
func TestTheEngineImportsNoBlockOrConnector(t *testing.T) {
	const module = "github.com/octo-run/octo/"
	files := runtimetest.Imports(t, ".")
	for path, imports := range files {
		for _, p := range imports {
			if strings.HasPrefix(p, module+"blocks/") || strings.HasPrefix(p, module+"connectors/") || p == module+"ops" || strings.HasPrefix(p, module+"ops/") {
				t.Errorf("runtime/%s imports %s: register it from its own package instead (runtime.RegisterBlock, cli.RegisterCommand, cli.RegisterAdmin)", path, p)
			}
		}
	}
	if len(files) < 40 {
		t.Fatalf("read %d files; the walk missed the engine", len(files))
	}
}

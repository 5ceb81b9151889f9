package mcp_test

import (
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// The protocol core and the client library know nothing of the octo runtime, its blocks or
// connectors: the MCP blocks (blocks/mcp/...) adapt to them, never the other way round. What
// they may take from beside the runtime are its leaf packages that import only the standard
// library (or yaml positions): JSON values, lines, positions and suggestions in messages.
func TestTheCoreImportsNoRuntimeBlockOrConnector(t *testing.T) {
	const module = "github.com/octo-run/octo/"
	leaves := map[string]bool{module + "runtime/jsonv": true, module + "runtime/lines": true, module + "runtime/config": true}
	files := runtimetest.Imports(t, ".")
	for path, imports := range files {
		for _, p := range imports {
			if strings.HasPrefix(p, module) && !leaves[p] && p != module+"mcp" && !strings.HasPrefix(p, module+"mcp/") {
				t.Errorf("mcp/%s imports %s: the protocol core must not know the runtime, blocks or connectors", path, p)
			}
		}
	}
	if len(files) < 40 {
		t.Fatalf("read %d files; the walk missed the core", len(files))
	}
}

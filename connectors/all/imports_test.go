package all_test

import (
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// A connector knows no block: what a connector and a block both use (the agent link's data
// folder and handshake) lives outside blocks/, in a library both import.
func TestConnectorsImportNoBlock(t *testing.T) {
	const module = "github.com/octo-run/octo/"
	files := runtimetest.Imports(t, "..")
	for path, imports := range files {
		for _, p := range imports {
			if strings.HasPrefix(p, module+"blocks/") {
				t.Errorf("connectors/%s imports %s: move what both need out of blocks/ (as agentlink/ is)", path, p)
			}
		}
	}
	if len(files) < 10 {
		t.Fatalf("read %d files; the walk missed the connectors", len(files))
	}
}

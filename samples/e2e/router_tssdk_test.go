package e2e

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTypeScriptSDKClientUsesTheRouterSample runs node/router-client.mjs, the
// official TypeScript SDK client doing the same checks as the Go one, against
// the mcp-router sample. Node is part of the machine, so its absence fails
// the test rather than skipping it: a skip would hide a broken interop suite.
func TestTypeScriptSDKClientUsesTheRouterSample(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH (it is part of the machine spec and these tests need it): %v", err)
	}
	dir := filepath.Join(repoRoot(), "samples", "e2e", "node")
	sdk := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(sdk); errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the TypeScript SDK is not installed in %s: run `make test` (its interop-deps target runs npm ci there)", dir)
	} else if err != nil {
		t.Fatal(err)
	}

	base, _ := runSample(t, "mcp-router")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "router-client.mjs", base)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second // a hung child holding the pipes must not hang the test
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node router-client.mjs %s: %v\n%s", base, err, out)
	}
	// The script prints its summary only after every check ran; an exit 0
	// without it means it stopped early without saying why.
	if !strings.HasPrefix(string(out), "ok: ") {
		t.Fatalf("node router-client.mjs exited 0 without its summary line:\n%s", out)
	}
	t.Log(strings.TrimSpace(string(out)))
}

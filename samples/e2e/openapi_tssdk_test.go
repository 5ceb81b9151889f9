package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// An API known only by its OpenAPI description, end to end with the built binary: `octo import
// openapi --out --mock` writes the router and the API's mock, `octo serve` serves the mock, `octo
// run` the router pointed at it, and the official TypeScript SDK client calls every tool, each
// answering without an error (the router checks each answer against the tool's outputSchema).
func TestTypeScriptSDKCallsTheImportedToolsAgainstTheImportedMock(t *testing.T) {
	node, nodeDir := typeScriptSDK(t)
	dir, ws := t.TempDir(), t.TempDir()
	mockPort, routerPort := freePort(t), freePort(t)
	spec := filepath.Join(repoRoot(), "blocks", "mcp", "router", "openapi", "testdata", "notes.yaml")
	out, err := exec.Command(octoBin, "import", "openapi", spec, "--out", dir, "--port", strconv.Itoa(routerPort),
		"--mock", ws, "--mock-port", strconv.Itoa(mockPort)).CombinedOutput()
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	startOcto(t, nil, "serve", ws)
	startOcto(t, []string{"API_BASE_URL=http://127.0.0.1:" + strconv.Itoa(mockPort) + "/v2"}, "run", "--config", dir)
	calls := filepath.Join(t.TempDir(), "calls.json")
	if err := os.WriteFile(calls, []byte(`[
		{"name": "listNotes", "arguments": {"limit": 2, "tags": ["a"]}},
		{"name": "createNote", "arguments": {"text": "buy milk"}},
		{"name": "getNote", "arguments": {"noteId": "n1"}},
		{"name": "deleteNote", "arguments": {"noteId": "n1"}},
		{"name": "get_notes_noteId_history", "arguments": {"noteId": "n1"}},
		{"name": "setTags", "arguments": {"noteId": "n1", "body": ["x", "y"]}}
	]`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "openapi-client.mjs", "http://127.0.0.1:"+strconv.Itoa(routerPort)+"/mcp", calls)
	cmd.Dir = nodeDir
	cmd.WaitDelay = 5 * time.Second
	got, err := cmd.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(got), "ok: 6 tools called") {
		t.Fatalf("node openapi-client.mjs: %v\n%s", err, got)
	}
	t.Log(strings.TrimSpace(string(got)))
}

package e2e

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTypeScriptSDKClientsUseTheWeatherMock runs node/mock-client.mjs
// against the weather sample served by the built binary: the official
// TypeScript SDK client over Streamable HTTP (every list, call, read and
// prompt checked exactly, a slow call cancelled after its first progress
// notification, the session ended with DELETE) and its SSE client over
// /sse. Node and the SDK are part of the machine, so their absence fails
// the test rather than skipping it.
func TestTypeScriptSDKClientsUseTheWeatherMock(t *testing.T) {
	node, dir := typeScriptSDK(t)
	url, p := serveWeatherMock(t)
	base := strings.TrimSuffix(url, "/mcp")
	runClientScript(t, node, dir, "mock-client.mjs", base)

	// The server's side of what the script saw: it dropped the cancelled
	// call's answer and served a call over each transport.
	waitLog(t, p, "Weather mock  out no answer to cancelled tools/call slow_report")
	for _, transport := range []string{"streamable-http", "sse"} {
		re := regexp.MustCompile(`Weather mock  out result of tools/call get_weather  \[\S+ ` + transport + `\]`)
		if !re.MatchString(p.Log()) {
			t.Errorf("the log shows no get_weather answer over %s:\n%s", transport, p.Log())
		}
	}
}

// typeScriptSDK returns the node binary and the folder where the official
// TypeScript SDK is installed (by `make interop-deps`), failing the test
// when either is missing.
func typeScriptSDK(t *testing.T) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH (it is part of the machine spec and these tests need it): %v", err)
	}
	dir = filepath.Join(repoRoot(), "samples", "e2e", "node")
	sdk := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(sdk); errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the TypeScript SDK is not installed in %s: run `make test` (its interop-deps target runs npm ci there)", dir)
	} else if err != nil {
		t.Fatal(err)
	}
	return node, dir
}

// runClientScript runs a client script of samples/e2e/node against base and
// fails the test with its output unless it exits 0 with its summary line.
func runClientScript(t *testing.T, node, dir, script, base string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, base)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second // a hung child holding the pipes must not hang the test
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s %s: %v\n%s", script, base, err, out)
	}
	// The summary comes only after every check ran; an exit 0 without it
	// means the script stopped early without saying why.
	if !strings.HasPrefix(string(out), "ok: ") {
		t.Fatalf("node %s exited 0 without its summary line:\n%s", script, out)
	}
	t.Log(strings.TrimSpace(string(out)))
}

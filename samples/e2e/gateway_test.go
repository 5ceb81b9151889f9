package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// gatewayClient runs gateway-client.mjs (the official TypeScript SDK client) against url.
func gatewayClient(t *testing.T, url, mode string, into any) {
	t.Helper()
	node, dir := typeScriptSDK(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "gateway-client.mjs", url, mode)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node gateway-client.mjs %s: %v\n%s", mode, err, out)
	}
	if err := json.Unmarshal(out, into); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
}

// A gateway over two upstreams, one over HTTP (samples/mcp-ask, whose tools ask the user and
// the model) and one over stdio (a TypeScript SDK server that reports progress), seen through
// the TypeScript SDK client: both upstreams' tools under their prefixes, an elicitation and a
// sampling request passed to the client and its answers back, progress passed on, an upstream's
// list change passed on, a call the client gives up on cancelled upstream. The HTTP upstream
// killed mid-run drops out of the list; restarted, it comes back by itself.
func TestAGatewayServesTwoUpstreamsAndOutlivesOne(t *testing.T) {
	_, nodeDir := typeScriptSDK(t)
	filesPort := strconv.Itoa(freePort(t))
	files := startOcto(t, []string{"HTTP_PORT=" + filesPort}, "run", "--config", "samples/mcp-ask")
	gwPort := strconv.Itoa(freePort(t))
	cfg := filepath.Join(t.TempDir(), "gateway.yaml")
	node, _ := exec.LookPath("node")
	if err := os.WriteFile(cfg, []byte(`connectors: [ { name: api, type: http, settings: { port: `+gwPort+` } } ]
flows:
  - name: gateway
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-proxy
        name: gateway
        settings:
          ping: 200ms
          retry: 200ms
          upstreams:
            - { name: files, url: "http://127.0.0.1:`+filesPort+`/mcp" }
            - { name: notes, command: ["`+node+`", "`+filepath.Join(nodeDir, "stdio-server.mjs")+`"], tools: { deny: [tally] } }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	gw := startOcto(t, nil, "run", "--config", cfg)
	gw.waitCount(t, "upstream up", 2)
	url := "http://127.0.0.1:" + gwPort + "/mcp"
	notes := []string{"notes_add", "notes_cancelled", "notes_count", "notes_unlock", "notes_wait"}
	all := append([]string{"files_connect_tracker", "files_delete_file", "files_summarize"}, notes...)
	var full struct {
		Tools                     []string
		Deleted, Summary, Counted string
		Progress                  []float64
		Asked                     []string
		ListChanged, Unlocked     bool
		Waited                    bool
		CancelledUpstream         string
	}
	gatewayClient(t, url, "full", &full)
	if !slices.Equal(full.Tools, all) {
		t.Errorf("tools: %v", full.Tools)
	}
	if full.Deleted != "Deleted /tmp/x." || full.Summary != "A short summary." || full.Counted != "counted to 3" ||
		!slices.Equal(full.Progress, []float64{1, 2, 3}) || !slices.Equal(full.Asked, []string{"Delete /tmp/x?", "Summarize in one sentence: A long story."}) {
		t.Errorf("through the gateway: %+v", full)
	}
	if !full.ListChanged || !full.Unlocked || full.Waited || full.CancelledUpstream != "1" {
		t.Errorf("a list change and a cancellation through the gateway: %+v", full)
	}
	// The HTTP upstream goes away: its tools leave the list, the other's stay.
	if err := files.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	gw.waitCount(t, "upstream down", 1)
	var listed struct{ Tools []string }
	gatewayClient(t, url, "list", &listed)
	if !slices.Equal(listed.Tools, slices.Sorted(slices.Values(append(notes, "notes_secret")))) {
		t.Errorf("with files down: %v", listed.Tools)
	}
	// Back on its port, it is found again without anyone asking.
	startOcto(t, []string{"HTTP_PORT=" + filesPort}, "run", "--config", "samples/mcp-ask")
	gw.waitCount(t, "upstream up", 3)
	gatewayClient(t, url, "list", &listed)
	if want := slices.Sorted(slices.Values(append(all, "notes_secret"))); !slices.Equal(listed.Tools, want) {
		t.Errorf("with files back: %v", listed.Tools)
	}
}

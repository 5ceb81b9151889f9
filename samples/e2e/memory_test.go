package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// idleGoalMB is the resident size an idle octo serving the router sample keeps once started:
// what the start touched and serving does not need goes back to the kernel (runtime/memtrim).
const idleGoalMB = 12

// settlesUnder waits until octo's resident size is at most limitMB, and fails with its parts
// if it stays above.
func settlesUnder(t *testing.T, p *proc, limitMB int, when string) {
	t.Helper()
	pid := p.cmd.Process.Pid
	deadline := time.Now().Add(5 * time.Second)
	for {
		rss := memKB(t, pid, "VmRSS")
		if rss <= limitMB<<10 {
			t.Logf("%s: %.1f MB resident (%d kB of its own, %d kB of the binary's pages)", when,
				float64(rss)/1024, memKB(t, pid, "RssAnon"), memKB(t, pid, "RssFile"))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %.1f MB resident after 5s (%d kB of its own, %d kB of the binary's pages); want at most %d MB",
				when, float64(rss)/1024, memKB(t, pid, "RssAnon"), memKB(t, pid, "RssFile"), limitMB)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestAnIdleRouterHandsBackWhatItsStartUsed(t *testing.T) {
	// A copy of the sample, to be edited.
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(repoRoot(), "samples", "mcp-router"))); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "mcp-router.yaml")
	port := freePort(t)
	p := startOcto(t, []string{"HTTP_PORT=" + strconv.Itoa(port)}, "run", "--config", dir)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	settlesUnder(t, p, idleGoalMB, "started")

	// The pages handed back come back from the page cache as serving touches them.
	for range 3 {
		res := callTool(t, base+"/mcp", "forecast", map[string]any{"city": "Lisbon"})
		if res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != `{"city":"Lisbon","summary":"Sunny, 24C"}` {
			t.Fatalf("forecast after the hand-back: %+v", res.Content)
		}
	}

	// A reload builds and starts the config again, and hands back again.
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), "serverName: weather-tools", "serverName: weather-tools-2", 1)
	if edited == string(b) {
		t.Fatal("the sample no longer names its server weather-tools")
	}
	if err := os.WriteFile(cfg, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	p.waitCount(t, "reloaded", 1)
	settlesUnder(t, p, idleGoalMB, "reloaded")
	if res := callTool(t, base+"/mcp", "forecast", map[string]any{"city": "Porto"}); res.IsError {
		t.Fatalf("forecast after the reload: %+v", res.Content)
	}
	t.Logf("peak resident size: %d MB", memKB(t, p.cmd.Process.Pid, "VmHWM")>>10)
}

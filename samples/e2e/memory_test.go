package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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

// TestARouterThatWentIdleHandsBackWhatItsWorkLeft loads a router, then leaves it idle: once a
// whole idle window has passed (OCTO_IDLE_RELEASE, 1s here) it is back under the idle goal,
// the heap the load grew and the code it ran handed back, and it answers as before; so after
// a single session too.
func TestARouterThatWentIdleHandsBackWhatItsWorkLeft(t *testing.T) {
	port := freePort(t)
	p := startOcto(t, []string{"HTTP_PORT=" + strconv.Itoa(port), "OCTO_IDLE_RELEASE=1s"}, "run", "--config", "samples/mcp-router")
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	settlesUnder(t, p, idleGoalMB, "started")

	const clients, calls = 8, 400
	var wg sync.WaitGroup
	failures := make(chan string, clients)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				resp, err := http.Post(url, "application/json", strings.NewReader(
					`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Lisbon"}}}`))
				if err != nil {
					failures <- err.Error()
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Sunny") {
					failures <- fmt.Sprintf("%d %s", resp.StatusCode, body)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Fatalf("a call under load failed: %s", f)
	}
	pid := p.cmd.Process.Pid
	t.Logf("after %d calls: %.1f MB resident (%d kB of its own, %d kB of the binary's pages)", clients*calls,
		float64(memKB(t, pid, "VmRSS"))/1024, memKB(t, pid, "RssAnon"), memKB(t, pid, "RssFile"))

	settlesUnder(t, p, idleGoalMB, "idle after the load")

	// One session's calls map the code they run again; idle, it goes back again.
	if res := callTool(t, url, "forecast", map[string]any{"city": "Porto"}); res.IsError {
		t.Fatalf("forecast after the hand-back: %+v", res.Content)
	}
	t.Logf("after one session: %.1f MB resident", float64(memKB(t, pid, "VmRSS"))/1024)
	settlesUnder(t, p, idleGoalMB, "idle after one session")
}

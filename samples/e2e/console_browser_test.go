package e2e

import (
	"bufio"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// chromiumPath is Debian's chromium, which `make test` installs when it is missing.
const chromiumPath = "/usr/bin/chromium"

// The console in a real browser: the built binary's `octo app` on a fresh data folder and
// workspace, driven in headless chromium by samples/e2e/browser/console.mjs (playwright-core):
// a server made from the starter, a tool added through the form and seen in the YAML, a broken
// YAML edit refused at its line, the server started and called from Try it, a call seen
// arriving live in the traffic panel, and a real agent's (`octo mcp`) save_server approved on
// the Agents page. Screenshots of each main page are kept in .build/artifacts/console/.
func TestTheConsoleInChromium(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH (it is part of the machine spec): %v", err)
	}
	browser := os.Getenv("CHROMIUM")
	if browser == "" {
		browser = chromiumPath
	}
	if _, err := os.Stat(browser); err != nil {
		t.Fatalf("chromium is not installed at %s: run `make test` (its browser-deps target installs Debian's chromium): %v", browser, err)
	}
	dir := filepath.Join(repoRoot(), "samples", "e2e", "browser")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core", "package.json")); errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("playwright-core is not installed in %s: run `make test` (its browser-deps target runs npm ci there)", dir)
	}
	data, ws := t.TempDir(), filepath.Join(t.TempDir(), "mocks")
	url := startApp(t, data, ws)
	artifacts := filepath.Join(repoRoot(), ".build", "artifacts", "console")
	if err := os.RemoveAll(artifacts); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "console.mjs", url, octoBin, data, artifacts)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CHROMIUM="+browser)
	cmd.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || !strings.HasPrefix(string(out), "ok: ") {
		t.Fatalf("node console.mjs: %v\n%s%s", err, out, stderr.String())
	}
	t.Log(strings.TrimSpace(string(out)))
	for _, shot := range []string{"home", "server-tools", "server-yaml", "server-yaml-error", "server-clients", "server-try", "traffic", "agents", "agents-history"} {
		if fi, err := os.Stat(filepath.Join(artifacts, shot+".png")); err != nil || fi.Size() == 0 {
			t.Errorf("screenshot %s missing: %v", shot, err)
		}
	}
}

var consoleLine = regexp.MustCompile(`console on (http://127\.0\.0\.1:\d+/)`)

// startApp runs `octo app` on the data folder and workspace and returns the console's address.
func startApp(t *testing.T, data, ws string) string {
	t.Helper()
	cmd := exec.Command(octoBin, "app", "--workspace", ws, "--data-dir", data)
	cmd.Env = append(os.Environ(), "OCTO_DATA_DIR=")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	log := &lockedLog{}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	found := make(chan string, 1)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := consoleLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("octo app log:\n%s", log.String())
		}
	})
	select {
	case url := <-found:
		return url
	case <-done:
		t.Fatalf("octo app ended before its console served\n%s", log.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("octo app printed no console address in 30 s\n%s", log.String())
	}
	return ""
}

// lockedLog is a process's standard error, read while it is written.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

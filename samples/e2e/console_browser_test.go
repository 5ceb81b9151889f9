package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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
	node, browser, dir := chromiumScripts(t)
	data, ws := t.TempDir(), filepath.Join(t.TempDir(), "mocks")
	url := consoleURL(t, data, ws)
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
	for _, shot := range []string{"login-needed", "home", "server-tools", "server-yaml", "server-yaml-error", "server-clients", "server-try", "traffic", "variables", "sidebar-rename", "sidebar-undo", "agents", "agents-history", "server-routes"} {
		if fi, err := os.Stat(filepath.Join(artifacts, shot+".png")); err != nil || fi.Size() == 0 {
			t.Errorf("screenshot %s missing: %v", shot, err)
		}
	}
}

// chromiumScripts finds what runs the scripts of samples/e2e/browser: node, Debian's chromium
// and the folder with playwright-core installed; a test fails, saying what to run, without them.
func chromiumScripts(t *testing.T) (node, browser, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH (it is part of the machine spec): %v", err)
	}
	browser = os.Getenv("CHROMIUM")
	if browser == "" {
		browser = chromiumPath
	}
	if _, err := os.Stat(browser); err != nil {
		t.Fatalf("chromium is not installed at %s: run `make test` (its browser-deps target installs Debian's chromium): %v", browser, err)
	}
	dir = filepath.Join(repoRoot(), "samples", "e2e", "browser")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core", "package.json")); errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("playwright-core is not installed in %s: run `make test` (its browser-deps target runs npm ci there)", dir)
	}
	return node, browser, dir
}

var (
	consoleLine = regexp.MustCompile(`console on (http://127\.0\.0\.1:\d+/)`)
	loginLine   = regexp.MustCompile(`open (?:it|its console) with (http://127\.0\.0\.1:\d+/login\?secret=[A-Za-z0-9_-]+) `)
)

// consoleURL runs `octo app` on the data folder and workspace and returns the console's login
// link, which it prints after the console's address.
func consoleURL(t *testing.T, data, ws string) string {
	t.Helper()
	_, login := consoleLinks(t, startApp(t, "--workspace", ws, "--data-dir", data))
	return login
}

// consoleLinks reads the console's address and its one-time login link from what p printed.
func consoleLinks(t *testing.T, p *appProc) (base, login string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); login == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m, l := consoleLine.FindStringSubmatch(p.out()), loginLine.FindStringSubmatch(p.out()); m != nil && l != nil {
			base, login = m[1], l[1]
		}
	}
	if login == "" {
		t.Fatalf("octo app printed no console login link:\n%s", p.out())
	}
	return base, login
}

// consoleAPI is the console of a running `octo app`, called as its page calls it: by a client
// whose cookie jar holds the session the login link was traded for.
type consoleAPI struct {
	url    string
	client *http.Client
}

// openConsole logs in to the console of p with the link it printed.
func openConsole(t *testing.T, p *appProc) consoleAPI {
	t.Helper()
	base, login := consoleLinks(t, p)
	return logIn(t, base, login)
}

// logIn opens the login link as a browser would and returns the logged-in console.
func logIn(t *testing.T, base, login string) consoleAPI {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := consoleAPI{url: base, client: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
	page, err := c.client.Get(login)
	if err != nil {
		t.Fatalf("the console's login link %q: %v", login, err)
	}
	defer page.Body.Close()
	body, _ := io.ReadAll(page.Body)
	if page.StatusCode != 200 || page.Request.URL.String() != base {
		t.Fatalf("the login link led to %s, %d:\n%s", page.Request.URL, page.StatusCode, body)
	}
	return c
}

// call calls the console's API and decodes the answer into out.
func (c consoleAPI) call(t *testing.T, method, path string, body, out any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, _ := http.NewRequest(method, c.url+path, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatal(err)
		}
	}
}

// answerNext waits for the first question in the console and answers it.
func (c consoleAPI) answerNext(t *testing.T, answer string) {
	t.Helper()
	var s struct{ Pending []struct{ ID uint64 } }
	for deadline := time.Now().Add(20 * time.Second); len(s.Pending) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no question waits in the console")
		}
		c.call(t, "GET", "api/state", nil, &s)
	}
	c.call(t, "POST", "api/answer", map[string]any{"id": s.Pending[0].ID, "answer": answer}, nil)
}

// --console-port puts the console on that port (on 127.0.0.1 only); a port out of range is a
// usage error.
func TestOctoAppConsolePort(t *testing.T) {
	out, err := exec.Command(octoBin, "app", "--console-port", "70000").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "--console-port is 70000") {
		t.Fatalf("--console-port 70000: %v\n%s", err, out)
	}
	port := freePort(t)
	p := startApp(t, "--data-dir", t.TempDir(), "--workspace", filepath.Join(t.TempDir(), "mocks"), "--console-port", strconv.Itoa(port))
	c := openConsole(t, p)
	if want := "http://127.0.0.1:" + strconv.Itoa(port) + "/"; c.url != want {
		t.Fatalf("console on %s, want %s", c.url, want)
	}
	var s struct{ Servers []any }
	c.call(t, "GET", "api/state", nil, &s)
	p.stop(t)
}

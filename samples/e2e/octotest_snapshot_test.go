package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// startNodeServer runs a script of samples/e2e/node until the test ends, once it has printed
// ready, and returns the port it listens on. With port 0 the script is given a free port in
// MCP_PORT, and another when a process took that one first.
func startNodeServer(t *testing.T, ready, script string, port int) int {
	t.Helper()
	for attempt := 0; ; attempt++ {
		p := port
		if p == 0 {
			p = freePort(t)
		}
		stderr, ok := tryNodeServer(t, ready, script, p)
		switch {
		case ok:
			return p
		case port == 0 && attempt < 3 && strings.Contains(stderr, "EADDRINUSE"):
			continue
		}
		t.Fatalf("node %s did not print %q; its standard error:\n%s", script, ready, stderr)
	}
}

// tryNodeServer starts script on port and reports whether it printed ready, else what it
// wrote to its standard error.
func tryNodeServer(t *testing.T, ready, script string, port int) (string, bool) {
	node, dir := typeScriptSDK(t)
	ctx, cancel := context.WithCancel(context.Background())
	srv := exec.CommandContext(ctx, node, script)
	srv.Dir, srv.Env = dir, append(os.Environ(), "MCP_PORT="+strconv.Itoa(port))
	srv.WaitDelay = 5 * time.Second
	var stderr runtimetest.Buffer
	srv.Stderr = &stderr
	out, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = srv.Wait(); close(exited) }()
	t.Cleanup(func() { cancel(); <-exited })
	up := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), ready) {
				up <- true
			}
		}
	}()
	select {
	case <-up:
		return "", true
	case <-exited:
	case <-time.After(30 * time.Second):
	}
	return stderr.String(), false
}

// A regression suite for an existing server is one command, and stays one: --record writes the
// cases from what the server answers (a value that changed between two answers ignored),
// they pass; the server changes and they fail with a diff that names the value; --update
// writes the new answer and they pass again.
func TestOctoTestSnapshotRoundTrip(t *testing.T) {
	dir := t.TempDir()
	mock := filepath.Join(dir, "mock")
	if err := os.CopyFS(mock, os.DirFS(filepath.Join(repoRoot(), "samples", "weather-mock"))); err != nil {
		t.Fatal(err)
	}
	server := filepath.Join(mock, "servers", "Weather mock.yaml")
	edit(t, server, "    - name: slow_report", `    - name: station_status
      description: The station's status now.
      annotations: { readOnlyHint: true }
      result: 'Station up; checked as {{$randomUUID}}'
    - name: slow_report`)
	cases := filepath.Join(dir, "suite", "tests", "weather.yaml")
	serve := []string{"--server", "--", octoBin, "serve", mock, "Weather mock", "--stdio"}
	got := octoExits(t, 0, append([]string{"test", "--record", cases}, serve...)...)
	for _, want := range []string{
		"recorded 6 cases in " + cases,
		"calls station_status (read-only, without arguments): ignoring what changed between two answers: content.0.text",
		"not called, since a call may change something or needs arguments: get_weather (not marked readOnlyHint), slow_report (not marked readOnlyHint)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("--record lacks %q:\n%s", want, got)
		}
	}
	written, err := os.ReadFile(cases)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(written), "text: '# Weather service'") || strings.Contains(string(written), "Station up") {
		t.Fatalf("the recorded cases:\n%s", written)
	}
	suite := filepath.Join(dir, "suite")
	if got := octoExits(t, 0, append([]string{"test", suite}, serve...)...); !strings.Contains(got, "ok: 6 cases passed") {
		t.Fatalf("the recorded suite against the server it recorded:\n%s", got)
	}
	octoExits(t, 2, append([]string{"test", "--record", cases}, serve...)...) // never over a suite

	edit(t, server, `text: "# Weather service"`, `text: "# Weather service, v2"`)
	got = octoExits(t, 1, append([]string{"test", suite}, serve...)...)
	if !strings.Contains(got, `FAIL `+cases+`:`) || !strings.Contains(got, `body.contents[0].text: expected "# Weather service", got "# Weather service, v2"`) ||
		!strings.Contains(got, "FAIL: 1 of 6 cases failed") {
		t.Fatalf("the changed server against the suite:\n%s", got)
	}
	got = octoExits(t, 0, append([]string{"test", suite, "--update"}, serve...)...)
	if !strings.Contains(got, "updated "+cases+": 1 case") || !strings.Contains(got, "ok: 6 cases passed") {
		t.Fatalf("--update:\n%s", got)
	}
	if got := octoExits(t, 0, append([]string{"test", suite}, serve...)...); !strings.Contains(got, "ok: 6 cases passed") {
		t.Fatalf("after --update:\n%s", got)
	}
	updated, err := os.ReadFile(cases)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(updated), "# Recorded from ") || !strings.Contains(string(updated), "text: '# Weather service, v2'") {
		t.Fatalf("the updated cases:\n%s", updated)
	}
}

// edit replaces old with new in file, which must hold it.
func edit(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s lacks %q", file, old)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// octo test finds, as the MCP spec tells a client to, a server that speaks the legacy HTTP+SSE
// transport at the URL it is given: the TypeScript SDK's SSE example (its log notifications
// come on the stream) and an octo mock's /sse.
func TestOctoTestSpeaksLegacySSE(t *testing.T) {
	// The SDK's example listens on port 3000, which it does not let us choose.
	startNodeServer(t, "listening on port 3000", "node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleSseServer.js", 3000)
	cases := filepath.Join(repoRoot(), "samples", "e2e", "testdata", "server-cases")
	got := octoExits(t, 0, "test", filepath.Join(cases, "ts-sse"), "--server", "http://localhost:3000/mcp")
	if !strings.Contains(got, "speaks the legacy HTTP+SSE transport") || !strings.Contains(got, "ok: 2 cases passed") {
		t.Fatalf("against the TypeScript SDK's SSE server:\n%s", got)
	}
	port := freePort(t)
	startOcto(t, nil, "serve", filepath.Join(repoRoot(), "samples", "weather-mock"), "Weather mock", "--port", strconv.Itoa(port))
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	for _, path := range []string{"/sse", "/mcp"} {
		got := octoExits(t, 0, "test", filepath.Join(cases, "weather"), "--server", base+path)
		if !strings.Contains(got, "ok: 2 cases passed") || strings.Contains(got, "legacy") != (path == "/sse") {
			t.Fatalf("against the weather mock at %s:\n%s", path, got)
		}
	}
}

// A server written with the official TypeScript SDK over stdio: its progress and log
// notifications checked, a changing value ignored, two cases on one process (mcp.session).
func TestOctoTestAgainstATypeScriptServerOverStdio(t *testing.T) {
	node, dir := typeScriptSDK(t)
	cases := filepath.Join(repoRoot(), "samples", "e2e", "testdata", "server-cases", "ts-stdio")
	got := octoExits(t, 0, "test", cases, "--server", "--", node, filepath.Join(dir, "stdio-server.mjs"))
	if !strings.Contains(got, "ok: 7 cases passed") {
		t.Fatalf("against the TypeScript stdio server:\n%s", got)
	}
}

// Client teams and server teams share one suite: it passes against the TypeScript SDK's
// example server through octo record, and against the mock octo record made of it.
func TestOneSuiteForAServerAndItsRecording(t *testing.T) {
	port := startNodeServer(t, "listening on port", "node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js", 0)
	ws := filepath.Join(t.TempDir(), "mocks")
	proxy := freePort(t)
	rec := exec.Command(octoBin, "record", ws, "TS example", "--upstream", "http://localhost:"+strconv.Itoa(port)+"/mcp", "--port", strconv.Itoa(proxy))
	out, err := rec.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	rec.Stderr = os.Stderr
	if err := rec.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rec.Process.Kill(); _ = rec.Wait() }()
	up := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Point the client at") {
				up <- true
			}
		}
	}()
	select {
	case <-up:
	case <-time.After(20 * time.Second):
		t.Fatal("octo record did not start")
	}
	suite := filepath.Join(repoRoot(), "samples", "e2e", "testdata", "server-cases", "ts-shared")
	got := octoExits(t, 0, "test", suite, "--server", "http://127.0.0.1:"+strconv.Itoa(proxy)+"/mcp")
	if !strings.Contains(got, "ok: 3 cases passed") {
		t.Fatalf("against the server through octo record:\n%s", got)
	}
	if err := rec.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := rec.Wait(); err != nil {
		t.Fatalf("octo record at SIGINT: %v", err)
	}
	got = octoExits(t, 0, "test", suite, "--server", "--", octoBin, "serve", ws, "TS example", "--stdio")
	if !strings.Contains(got, "ok: 3 cases passed") {
		t.Fatalf("against the recording:\n%s", got)
	}
}

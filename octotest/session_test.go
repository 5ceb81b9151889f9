package octotest_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/octotest"
)

// serveMock serves a workspace holding one saved mock server (text, its file) on a free port
// until the test ends, and returns its base URL.
func serveMock(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "servers"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "servers", "Steps.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ready := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- workspace.Run(ctx, dir, workspace.Options{Servers: []string{"Steps"}, Port: port,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Ready: func(_, url string) { ready <- url }})
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case url := <-ready:
		return strings.TrimSuffix(url, "/mcp")
	case err := <-done:
		t.Fatalf("the mock did not serve: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the mock did not serve")
	}
	return ""
}

// steps answers a session's first call of next with "one", its second with "two".
const steps = `name: Steps
kind: mcp
mcp:
  tools:
    - name: next
      answerOrder: sequence
      answers: [ { result: one }, { result: two } ]
`

// Cases naming one mcp.session share it, in order, over Streamable HTTP and legacy SSE; a case
// without one has a session of its own.
func TestCasesNamingASessionShareIt(t *testing.T) {
	base := serveMock(t, steps)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cases.yaml"), []byte(`cases:
  - name: the first step
    mcp: { tool: next, session: walk }
    expect: { text: one }
  - name: a session of its own
    mcp: { tool: next }
    expect: { text: one }
  - name: the second step, on the same session
    mcp: { tool: next, session: walk }
    expect: { text: two }
  - name: another session
    mcp: { tool: next, session: run }
    expect: { text: one }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/mcp", "/sse"} {
		var out bytes.Buffer
		sum, err := octotest.Run(context.Background(), dir, octotest.Options{Out: &out, Server: &octotest.Server{URL: base + path}})
		if err != nil || sum.Passed != 4 {
			t.Fatalf("%s: %+v %v\n%s", path, sum, err, out.String())
		}
	}
}

// What opened a session is its first case's: a later case that sets it is refused at its line.
func TestAJoiningCaseCannotSetWhatOpenedTheSession(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cases.yaml"), []byte(`cases:
  - name: opens
    mcp: { tool: next, session: walk }
  - name: joins
    mcp: { tool: next, session: walk, headers: { X-A: b } }
    client: { protocol: "2025-11-25" }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := octotest.Run(context.Background(), dir, octotest.Options{Server: &octotest.Server{URL: "http://127.0.0.1:1/mcp"}})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`cases.yaml:5`, `mcp.headers: this case joins session "walk", which the case "opens" opened: set it there`,
		`cases.yaml:6`, `client.protocol: this case joins session "walk"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q:\n%v", want, err)
		}
	}
}

// A config's cases build their service each, so mcp.session fails the case, saying so.
func TestAConfigsCasesShareNoSession(t *testing.T) {
	dir := write(t, snapshotConfig, `cases:
  - name: in a session
    mcp: { tool: hello, session: s }
`)
	sum, out := run(t, dir, nil)
	if sum.Failed != 1 {
		t.Fatalf("%+v\n%s", sum, out)
	}
	reports(t, out, "mcp.session: a config's cases each build its service afresh")
}

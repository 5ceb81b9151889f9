package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// octo test --server runs a folder of cases against an MCP server it did not build: the official
// TypeScript SDK's example server over Streamable HTTP (its form elicitation answered from the
// script), samples/weather-mock, samples/mcp-router and a Go SDK server started as commands over
// stdio, one process a case.
func TestOctoTestRunsCasesAgainstAnyServer(t *testing.T) {
	port := startNodeServer(t, "listening on port", "node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js", 0)
	cases := filepath.Join(repoRoot(), "samples", "e2e", "testdata", "server-cases")
	url := "http://localhost:" + strconv.Itoa(port) + "/mcp"
	got := octoExits(t, 0, "test", filepath.Join(cases, "ts-example"), "--server", url)
	if !strings.Contains(got, "ok: 3 cases passed") {
		t.Fatalf("against the TypeScript SDK's server:\n%s", got)
	}
	got = octoExits(t, 0, "test", filepath.Join(cases, "weather"), "--server", "--",
		octoBin, "serve", filepath.Join(repoRoot(), "samples", "weather-mock"), "Weather mock", "--stdio")
	if !strings.Contains(got, "ok: 2 cases passed") {
		t.Fatalf("against the weather mock over stdio:\n%s", got)
	}
	got = octoExits(t, 0, "test", filepath.Join(cases, "router"), "--server", "--",
		octoBin, "run", "--config", filepath.Join(repoRoot(), "samples", "mcp-router"), "--stdio")
	if !strings.Contains(got, "ok: 6 cases passed") {
		t.Fatalf("against the router sample over stdio:\n%s", got)
	}
	// A server written with the official Go SDK, over stdio.
	bin := filepath.Join(t.TempDir(), "gosdk-server")
	build := exec.Command("go", "build", "-o", bin, "./samples/e2e/testdata/gosdk-server")
	build.Dir = repoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build the Go SDK server: %v\n%s", err, out)
	}
	got = octoExits(t, 0, "test", filepath.Join(cases, "gosdk"), "--server", "--", bin)
	if !strings.Contains(got, "ok: 3 cases passed") {
		t.Fatalf("against the Go SDK server over stdio:\n%s", got)
	}
}

// A case the server does not meet fails the run (exit 1) saying what it got, and one that only
// a config's flows can run names the key; usage mistakes exit 2.
func TestOctoTestAgainstAServerReportsFailuresAndMisfits(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cases.yaml"), []byte(`cases:
  - name: expects rain
    mcp: { tool: get_weather, arguments: { city: Paris } }
    expect: { textContains: [rainy] }
  - name: stubs a call
    mcp: { tool: get_weather, arguments: { city: Paris } }
    stubs: [ { url: "https://example.com/", status: 200, body: {} } ]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	junit, jsonFile := filepath.Join(dir, "results.xml"), filepath.Join(dir, "results.json")
	got := octoExits(t, 1, "test", dir, "--report", "junit:"+junit, "--report", "json:"+jsonFile,
		"--server", "--", octoBin, "serve", filepath.Join(repoRoot(), "samples", "weather-mock"), "Weather mock", "--stdio")
	for _, want := range []string{
		`FAIL ` + filepath.Join(dir, "cases.yaml") + `:2: expects rain`,
		`textContains: expected the text to contain "rainy"`,
		`stubs: stubs stand in for a config's HTTP calls; a server under --server makes its own`,
		`FAIL: 2 of 2 cases failed`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	// The reports: JUnit XML as a reader from npm parses it, and JSON.
	node, nodeDir := typeScriptSDK(t)
	read := exec.Command(node, "junit-read.mjs", junit)
	read.Dir = nodeDir
	out, err := read.CombinedOutput()
	if err != nil {
		t.Fatalf("junit2json: %v\n%s", err, out)
	}
	var suites struct {
		Tests, Failures int
		Testsuite       []struct {
			Testcase []struct {
				Name    string
				Line    int
				Failure []struct{ Message string }
			}
		}
	}
	if err := json.Unmarshal(out, &suites); err != nil || suites.Tests != 2 || suites.Failures != 2 || len(suites.Testsuite) != 1 ||
		len(suites.Testsuite[0].Testcase) != 2 || suites.Testsuite[0].Testcase[0].Name != "expects rain" || suites.Testsuite[0].Testcase[0].Line != 2 ||
		len(suites.Testsuite[0].Testcase[0].Failure) != 1 || !strings.Contains(suites.Testsuite[0].Testcase[0].Failure[0].Message, `"rainy"`) {
		t.Fatalf("the JUnit report as junit2json reads it: %v\n%s", err, out)
	}
	data, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Passed, Failed int
		Cases          []struct {
			Name     string
			Passed   bool
			Failures []string
		}
	}
	if err := json.Unmarshal(data, &rep); err != nil || rep.Failed != 2 || rep.Passed != 0 || len(rep.Cases) != 2 || rep.Cases[1].Passed ||
		!strings.Contains(strings.Join(rep.Cases[1].Failures, " "), "stubs:") {
		t.Fatalf("the JSON report: %v\n%s", err, data)
	}
	// A server that exits fails its case at once, with its last words and exit status, not at
	// the case's timeout.
	got = octoExits(t, 1, "test", dir, "--run", "expects rain", "--server", "--", "sh", "-c", "echo cannot start >&2; exit 3")
	for _, want := range []string{"the server's output ended", "cannot start", "octo test: the server exited: exit status 3"} {
		if !strings.Contains(got, want) {
			t.Errorf("a server that exits: missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "timeout") {
		t.Errorf("a server that exits was waited for until the timeout:\n%s", got)
	}
	for _, args := range [][]string{
		{"test", dir, "--report", "xml:out.xml", "--server", "http://127.0.0.1:1/mcp"},
		{"test", dir, "--server", "ftp://x"},
		{"test", dir, "--", "cmd"},
		{"test", dir, "--server", "--"},
		{"test", dir, "--server", "http://127.0.0.1:1/mcp", "--stdio"},
	} {
		octoExits(t, 2, args...)
	}
}

// octoExits runs the built binary with args, checks its exit code, and returns all it printed.
func octoExits(t *testing.T, want int, args ...string) string {
	t.Helper()
	code, stdout, stderr := runOcto(t, args...)
	if code != want {
		t.Fatalf("octo %s exited %d, want %d:\n%s%s", strings.Join(args, " "), code, want, stdout, stderr)
	}
	return stdout + stderr
}

package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// runOcto runs the built binary to its end and returns its exit code and output.
func runOcto(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(octoBin, args...)
	cmd.Dir = repoRoot()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("octo %v: %v", args, err)
	}
	return code, out.String(), errb.String()
}

// Every sample and every starter carries octo test cases, and they pass: `make test` runs this,
// so a sample whose answers drift from its cases fails CI.
func TestOctoTestPassesOnEverySampleAndStarter(t *testing.T) {
	router, api, mocks := t.TempDir()+"/router", t.TempDir()+"/api", t.TempDir()
	for starter, dir := range map[string]string{"mcp-router": router, "mcp-api": api} {
		if code, _, stderr := runOcto(t, "new", starter, dir); code != 0 {
			t.Fatalf("octo new %s: %d %s", starter, code, stderr)
		}
	}
	if code, _, stderr := runOcto(t, "new", "mcp-mock", mocks, "Weather mock"); code != 0 {
		t.Fatalf("octo new mcp-mock: %d %s", code, stderr)
	}
	samples, _ := filepath.Glob(filepath.Join(repoRoot(), "samples", "*", "tests"))
	configs := []string{router, api, mocks}
	for _, s := range samples {
		configs = append(configs, filepath.Dir(s))
	}
	if len(configs) < 7 {
		t.Fatalf("found %d configs with tests: %v", len(configs), configs)
	}
	// The MCP servers' cases pass over stdio too (octo test --stdio serves the config as octo run
	// --stdio does), but for the samples that cannot be served so.
	notOnStdio := map[string]bool{"samples/hello": true, "samples/mcp-oauth": true}
	for _, dir := range configs {
		name, _ := filepath.Rel(repoRoot(), dir)
		t.Run(name, func(t *testing.T) {
			for _, args := range [][]string{{}, {"--stdio"}} {
				if len(args) > 0 && notOnStdio[name] {
					continue
				}
				code, stdout, stderr := runOcto(t, append([]string{"test", "--config", dir}, args...)...)
				if code != 0 || !strings.Contains(stdout, "cases passed") || strings.Contains(stdout, "FAIL") {
					t.Fatalf("octo test %v: exit %d\n%s%s", args, code, stdout, stderr)
				}
			}
		})
	}
	// Every sample folder that runs has cases.
	entries, _ := os.ReadDir(filepath.Join(repoRoot(), "samples"))
	for _, e := range entries {
		if e.Name() == "e2e" || !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(repoRoot(), "samples", e.Name(), "tests")); err != nil {
			t.Errorf("samples/%s has no tests/ folder", e.Name())
		}
	}
}

// A wrong expectation fails the run: exit code 1, the case's file:line, the difference
// between what was expected and what came, and a summary.
func TestOctoTestFailsAWrongExpectationWithADiff(t *testing.T) {
	dir := t.TempDir()
	sample, err := os.ReadFile(filepath.Join(repoRoot(), "samples", "hello", "hello.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "hello.yaml"), string(sample))
	writeFile(t, filepath.Join(dir, "tests", "greet.yaml"), `cases:
  - name: greets by name
    request: { flow: greet, body: { name: Ada } }
    expect:
      body: { greeting: "Hello, Ada!" }
  - name: expects a greeting it does not get
    request: { flow: greet, body: { name: Ada } }
    expect:
      status: 201
      body: { greeting: "Bonjour, Ada!" }
`)
	code, stdout, stderr := runOcto(t, "test", "--config", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"ok   " + dir + "/tests/greet.yaml:2: greets by name",
		"FAIL " + dir + "/tests/greet.yaml:6: expects a greeting it does not get",
		`status: expected 201, got 200`,
		`body.greeting: expected "Bonjour, Ada!", got "Hello, Ada!"`,
		`level=INFO msg="greeting Ada"`, // the service's log, for the failed case
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "FAIL: 1 of 2 cases failed") {
		t.Errorf("stderr: %s", stderr)
	}
	// --run picks the passing case alone.
	if code, stdout, _ := runOcto(t, "test", "--config", dir, "--run", "by name$"); code != 0 || !strings.Contains(stdout, "ok: 1 cases passed") {
		t.Errorf("--run: exit %d\n%s", code, stdout)
	}
}

// A test file that cannot be read is reported as a config is, every problem at its line and
// column, and nothing runs.
func TestOctoTestReportsABadTestFileAtItsLines(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "hello.yaml"), readSample(t, "hello/hello.yaml"))
	writeFile(t, filepath.Join(dir, "tests", "bad.yaml"), `cases:
  - name: a typo
    request: { flow: greet }
    expcet: { status: 200 }
  - name: two requests
    request: { flow: greet }
    mcp: { tool: forecast }
  - name: a bad pattern
    request: { flow: greet }
    stubs: [ { urlPattern: "([" } ]
`)
	code, stdout, stderr := runOcto(t, "test", "--config", dir)
	if code != 2 || stdout != "" { // the cases could not run: 2, not the 1 of failed cases
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	f := dir + "/tests/bad.yaml"
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(regexp.QuoteMeta(f+":4:5: cases[0]") + `.*unknown key "expcet".*did you mean "expect"`),
		regexp.MustCompile(regexp.QuoteMeta(f + ":7:10: cases[1].mcp (case \"two requests\"): set request or mcp, not both")),
		regexp.MustCompile(regexp.QuoteMeta(f + ":10:28: cases[2].stubs[0].urlPattern (case \"a bad pattern\"): urlPattern: error parsing regexp")),
	} {
		if !want.MatchString(stderr) {
			t.Errorf("stderr lacks %s:\n%s", want, stderr)
		}
	}
}

func readSample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(), "samples", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The README's "Test a config" cases, beside the "Call an HTTP API from a tool" config, pass as
// the README prints it (durations aside).
func TestReadmeTestsAConfig(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "weather-api")
	writeFile(t, filepath.Join(dir, "octo.yaml"), readmeConfig(t, docSection(t, "Call an HTTP API from a tool")))
	section := docSection(t, "Test a config")
	writeFile(t, filepath.Join(dir, "tests", "tools.yaml"), readmeConfig(t, section))
	_, transcript, _ := strings.Cut(section, "bin/octo test --config weather-api\n")
	transcript, _, _ = strings.Cut(transcript, "```")
	cmd := exec.Command(octoBin, "test", "--config", "weather-api")
	cmd.Dir = filepath.Dir(dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	duration := regexp.MustCompile(` \([0-9.µmns]+\)$`)
	var want []string
	for _, line := range strings.Split(strings.TrimSpace(transcript), "\n") {
		want = append(want, duration.ReplaceAllString(strings.TrimPrefix(line, "# "), ""))
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		got = append(got, duration.ReplaceAllString(line, ""))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("octo test printed\n%s\nthe README prints\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A required variable CI does not export (a secret) can come from the cases' env or from
// --env-file: the config is still checked once, a case that sets it passes, a case that sets
// nothing fails naming the variable, and a bad env file is reported at its line.
func TestOctoTestTakesSecretsFromCasesAndAnEnvFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "api.yaml"), `env:
  - { name: API_TOKEN }
connectors:
  - { name: api, type: http, settings: { port: 0 } }
flows:
  - name: whoami
    source: { connector: api, settings: { path: /whoami } }
    process:
      - type: set-payload
        settings: { value: '{"token": "${API_TOKEN}"}' }
`)
	writeFile(t, filepath.Join(dir, "tests", "cases.yaml"), `cases:
  - name: with the case's token
    env: { API_TOKEN: from-case }
    request: { flow: whoami }
    expect: { body: { token: from-case } }
`)
	env := func(args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(octoBin, args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()} // API_TOKEN is not exported
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), out.String(), errb.String()
	}
	if code, stdout, stderr := env("test", "--config", dir); code != 0 || !strings.Contains(stdout, "ok: 1 cases passed") {
		t.Fatalf("a case's env did not satisfy the required variable: exit %d\n%s%s", code, stdout, stderr)
	}

	writeFile(t, filepath.Join(dir, "tests", "more.yaml"), `cases:
  - name: with the env file's token
    request: { flow: whoami }
    expect: { body: { token: "from file" } }
`)
	code, stdout, _ := env("test", "--config", dir)
	if code != 1 || !strings.Contains(stdout, `variable "API_TOKEN" is not set and has no default: set it in the environment`) {
		t.Errorf("a case without the variable: exit %d, want 1 naming API_TOKEN\n%s", code, stdout)
	}
	envFile := filepath.Join(t.TempDir(), "test.env")
	writeFile(t, envFile, "# CI's secrets\nexport API_TOKEN=\"from file\"\n")
	if code, stdout, stderr := env("test", "--config", dir, "--env-file", envFile); code != 0 || !strings.Contains(stdout, "ok: 2 cases passed") {
		t.Errorf("--env-file: exit %d\n%s%s", code, stdout, stderr)
	}
	writeFile(t, envFile, "API_TOKEN=ok\nnot a line\n")
	if code, _, stderr := env("test", "--config", dir, "--env-file", envFile); code == 0 || !strings.Contains(stderr, envFile+":2:1: expected NAME=value") {
		t.Errorf("a bad env file: exit %d\n%s", code, stderr)
	}
}

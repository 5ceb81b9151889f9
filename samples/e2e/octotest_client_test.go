package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// octo test's client answers the calendar mock's sign-in link as a case scripts it, over HTTP
// and over stdio: the sample's own cases pass (TestOctoTestPassesOnEverySampleAndStarter), and a
// case whose script or expectations are wrong fails at its line, saying what differs, with exit 1.
func TestOctoTestScriptsTheClientsAnswers(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(repoRoot(), "samples", "calendar-mock"))); err != nil {
		t.Fatal(err)
	}
	cases := `cases:
  - name: the link names another user
    mcp: { tool: connect_calendar, arguments: { user: ana } }
    client:
      protocol: "2025-11-25"
      answers: [ { elicit: accept, mode: url } ]
    expect:
      asked: [ { method: elicitation/create, params: { url: "https://calendar.example.com/connect?user=bob" } } ]
  - name: a form answer to a link (the client declares form only)
    mcp: { tool: connect_calendar, arguments: { user: ana } }
    client:
      protocol: "2025-11-25"
      answers: [ { elicit: accept, mode: form } ]
  - name: declined, but expected to connect
    mcp: { tool: connect_calendar, arguments: { user: ana } }
    client:
      protocol: "2025-11-25"
      answers: [ { elicit: decline } ]
    expect: { text: Calendar connected for ana (accept). }
  - name: a form answer to a link (the client declares both)
    mcp: { tool: connect_calendar, arguments: { user: ana } }
    client:
      protocol: "2025-11-25"
      capabilities: { elicitation: { form: {}, url: {} } }
      answers: [ { elicit: accept, mode: form } ]
    expect: { isError: true }
`
	if err := os.WriteFile(filepath.Join(dir, "tests", "calendar-mock.yaml"), []byte(cases), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{}, {"--stdio"}} {
		code, stdout, stderr := runOcto(t, append([]string{"test", "--config", dir}, args...)...)
		if code != 1 || !strings.Contains(stdout+stderr, "FAIL: 4 of 4 cases failed") {
			t.Fatalf("octo test %v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		file := filepath.Join(dir, "tests", "calendar-mock.yaml")
		for _, want := range []string{
			"FAIL " + file + ":2: the link names another user",
			`asked[0].params.url: expected "https://calendar.example.com/connect?user=bob", got "https://calendar.example.com/connect?user=ana"`,
			"FAIL " + file + ":9: a form answer to a link (the client declares form only)",
			"client.answers[0] (line 13): the server never asked elicitation/create",
			"the client did not declare elicitation.url",
			"FAIL " + file + ":14: declined, but expected to connect",
			`text: expected "Calendar connected for ana (accept).", got "ana chose not to connect a calendar."`,
			"FAIL " + file + ":20: a form answer to a link (the client declares both)",
			"the next answer, client.answers[0] (line 25), answers a form elicitation, and this one is in mode url",
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("octo test %v: the report lacks %q:\n%s", args, want, stdout)
			}
		}
	}
}

// The README's example of a client that answers ("Test a config") passes on the calendar mock,
// over HTTP and over stdio.
func TestTheREADMEClientExamplePasses(t *testing.T) {
	section := docSection(t, "Test a config")
	_, example, ok := strings.Cut(section, "# samples/calendar-mock/tests/signin.yaml\n")
	if !ok {
		t.Fatal(`the "Test a config" section has no calendar-mock example`)
	}
	example, _, _ = strings.Cut(example, "```")
	example = strings.ReplaceAll(example, "\n  ", "\n") // the block is indented under its bullet
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(repoRoot(), "samples", "calendar-mock"))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tests", "calendar-mock.yaml"), []byte(strings.TrimPrefix(example, "  ")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{}, {"--stdio"}} {
		code, stdout, stderr := runOcto(t, append([]string{"test", "--config", dir}, args...)...)
		if code != 0 || !strings.Contains(stdout+stderr, "2 cases passed") {
			t.Fatalf("octo test %v: exit %d\n%s%s\n%s", args, code, stdout, stderr, example)
		}
	}
}

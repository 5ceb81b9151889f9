package octotest_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/octo-run/octo/octotest"
)

// snapshotConfig serves a mock whose answers --update writes: a plain one, one with a value
// that changes every call, a tool error; and an unknown tool's protocol error.
const snapshotConfig = api + `  - name: mock
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-mock
        name: m
        settings:
          tools:
            - { name: hello, result: "Hello, {{args.name}}" }
            - name: ticket
              outputSchema: '{"type": "object"}'
              result: '{"id": "{{$randomUUID}}", "status": "open"}'
            - { name: broken, result: "it broke", isError: true }
`

// --update writes each answer into its case (keeping the file's comments and other keys), the
// cases then pass as written, and a second --update has nothing to write.
func TestUpdateWritesTheAnswersIntoTheCases(t *testing.T) {
	dir := write(t, snapshotConfig, `# The mock's cases.
cases:
  # Greets.
  - name: greets
    mcp: { tool: hello, arguments: { name: Ada } }
    expect: { textContains: [Ada] }  # by name
  - name: opens a ticket
    mcp: { tool: ticket }
    expect:
      ignore: [structuredContent.id, content.*.text]
      body: { structuredContent: { status: closed } }
  - name: a tool error
    mcp: { tool: broken }
  - name: an unknown tool
    mcp: { tool: nope }
    expect: { error: { code: -32602 } }
`)
	var out bytes.Buffer
	sum, err := octotest.Run(context.Background(), dir, octotest.Options{Out: &out, Update: true})
	if err != nil || sum.Passed != 4 || sum.Updated != 4 {
		t.Fatalf("--update: %+v %v\n%s", sum, err, out.String())
	}
	reports(t, out.String(), "updated: expect.body", "updated: expect.error", "updated "+filepath.Join(dir, "tests", "cases.yaml")+": 4 cases")
	file := filepath.Join(dir, "tests", "cases.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# The mock's cases.", "# Greets.", "expect: # by name", "textContains: [Ada]",
		"text: Hello, Ada", "status: open", "ignore: [structuredContent.id, content.*.text]",
		"isError: true", "text: it broke", "code: -32602", "message: 'Unknown tool: nope'",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the updated file lacks %q:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "id:") {
		t.Errorf("an ignored value was written:\n%s", data)
	}
	if sum, out := run(t, dir, nil); sum.Passed != 4 {
		t.Fatalf("the updated cases: %+v\n%s", sum, out)
	}
	out.Reset()
	if sum, err := octotest.Run(context.Background(), dir, octotest.Options{Out: &out, Update: true}); err != nil || sum.Updated != 0 {
		t.Fatalf("a second --update: %+v %v\n%s", sum, err, out.String())
	}
	if again, _ := os.ReadFile(file); !bytes.Equal(again, data) {
		t.Fatalf("a second --update rewrote the file:\n%s", again)
	}
}

// ignore leaves out of body what changes from run to run; without it the case fails there.
func TestIgnoreLeavesChangingValuesOut(t *testing.T) {
	dir := write(t, snapshotConfig, `cases:
  - name: ignored
    mcp: { tool: ticket }
    expect:
      ignore: [structuredContent.id, "content[0].text"]
      body: { content: [ { type: text } ], structuredContent: { status: open } }
  - name: not ignored
    mcp: { tool: ticket }
    expect:
      ignore: [content.*.text]
      body: { content: [ { type: text } ], structuredContent: { status: open } }
`)
	sum, out := run(t, dir, nil)
	if sum.Passed != 1 || sum.Failed != 1 {
		t.Fatalf("%+v\n%s", sum, out)
	}
	reports(t, out, "FAIL", "not ignored", `body.structuredContent.id: expected nothing (no such key), got "`)
}

// A path in ignore that cannot be one is reported at its line before any case runs.
func TestABadIgnorePathIsReportedAtItsLine(t *testing.T) {
	dir := write(t, snapshotConfig, `cases:
  - name: bad
    mcp: { tool: hello }
    expect:
      ignore: [ok, "a..b"]
`)
	_, err := octotest.Run(context.Background(), dir, octotest.Options{})
	if err == nil || !strings.Contains(err.Error(), "cases.yaml:5") || !strings.Contains(err.Error(), "none empty") {
		t.Fatalf("got %v", err)
	}
}

// listed finds items by name wherever they are in a list, with a part each must match;
// unlisted names what must not be there. Each miss names the key and what the list holds.
func TestListedChecksItemsByName(t *testing.T) {
	dir := write(t, snapshotConfig, `cases:
  - name: holds them
    mcp: { list: tools }
    expect:
      listed: { broken: {}, ticket: { outputSchema: { type: object } }, hello: null }
      unlisted: [deploy]
  - name: misses
    mcp: { list: tools }
    expect:
      listed: { deploy: {}, ticket: { outputSchema: { type: string } } }
      unlisted: [hello]
`)
	sum, out := run(t, dir, nil)
	if sum.Passed != 1 || sum.Failed != 1 {
		t.Fatalf("%+v\n%s", sum, out)
	}
	reports(t, out, "listed.deploy: not in the list, which holds hello, ticket, broken",
		`listed.ticket.outputSchema.type: expected "string", got "object"`, "unlisted: hello is in the list")
	bad := write(t, snapshotConfig, `cases:
  - name: not a list
    mcp: { tool: hello }
    expect: { listed: { hello: {} } }
  - name: not an object
    mcp: { list: tools }
    expect:
      listed: { hello: yes }
`)
	_, err := octotest.Run(context.Background(), bad, octotest.Options{})
	if err == nil || !strings.Contains(err.Error(), "listed and unlisted are for mcp list cases") ||
		!strings.Contains(err.Error(), "cases.yaml:8") || !strings.Contains(err.Error(), "listed.hello: expected a part of the item") {
		t.Fatalf("got %v", err)
	}
}

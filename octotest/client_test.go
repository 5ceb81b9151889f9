package octotest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/octo-run/octo/octotest"
)

// askingMock is an mcp-mock whose tool asks the client each kind of question (a form, a model,
// its roots) and answers with what it was told; served over HTTP or (on) stdio.
const askingMock = `
    process:
      - type: mcp-mock
        name: m
        settings:
          tools:
            - name: greet
              steps:
                - elicit: What is your name?
                  schema: { type: object, properties: { name: { type: string } }, required: [name] }
                  as: user
                - sample: "Greet {{args.user.content.name}}"
                  as: llm
                - listRoots: true
                  as: roots
              result: "{{args.llm.content.text}} ({{args.user.content.name}}, {{args.roots.roots.0.uri}})"
`

// askingCases script the client's answers to askingMock's questions, right and wrong.
const askingCases = `cases:
  - name: answers a form, a model and roots
    mcp: { tool: greet }
    client:
      protocol: "PROTOCOL"
      answers:
        - elicit: accept
          content: { name: Ada }
        - sample: Hello, Ada!
        - roots: [ { uri: "file:///home/ada", name: home } ]
    expect:
      text: Hello, Ada! (Ada, file:///home/ada)
      asked:
        - { method: elicitation/create, params: { message: "What is your name?" } }
        - { method: sampling/createMessage, params: { messages: [ { role: user, content: { text: Greet Ada } } ] } }
        - { method: roots/list }
  - name: expects another question
    mcp: { tool: greet }
    client:
      protocol: "PROTOCOL"
      answers:
        - elicit: accept
          content: { name: Ada }
        - sample: Hi
        - roots: []
    expect:
      asked:
        - { method: elicitation/create, params: { message: "What is your age?" } }
  - name: answers in the wrong order
    mcp: { tool: greet }
    client:
      protocol: "PROTOCOL"
      answers:
        - sample: Hi
        - elicit: accept
  - name: scripts more than is asked
    mcp: { tool: greet }
    client:
      protocol: "PROTOCOL"
      answers:
        - elicit: accept
          content: { name: Bo }
        - sample: Hi
        - roots: []
        - sample: never asked
    expect: { text: "Hi (Bo, )" }
`

// A case scripts the client's answers to a mock that asks a form, a model and the roots, over
// HTTP and over stdio and in each revision: the answers reach the tool, what was asked is
// checked, and a wrong script fails the case precisely (the question and the answer's line),
// without waiting for the case's timeout.
func TestTheClientAnswersAsTheCaseScripts(t *testing.T) {
	for _, tt := range []struct{ name, config, protocol string }{
		{"HTTP 2025-06-18", api + "  - name: mcp\n    source: { connector: api, settings: { path: /mcp } }" + askingMock, "2025-06-18"},
		{"HTTP 2025-11-25", api + "  - name: mcp\n    source: { connector: api, settings: { path: /mcp } }" + askingMock, "2025-11-25"},
		{"HTTP 2026-07-28", api + "  - name: mcp\n    source: { connector: api, settings: { path: /mcp } }" + askingMock, "2026-07-28"},
		{"stdio 2025-11-25", onStdio + "  - name: mcp\n    source: { connector: io }" + askingMock, "2025-11-25"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := write(t, tt.config, strings.ReplaceAll(askingCases, "PROTOCOL", tt.protocol))
			sum, out := run(t, dir, nil)
			if sum.Passed != 1 || sum.Failed != 3 {
				t.Fatalf("summary %+v\n%s", sum, out)
			}
			reports(t, out,
				"FAIL "+dir+"/tests/cases.yaml:17: expects another question",
				`asked[0].params.message: expected "What is your age?", got "What is your name?"`,
				"FAIL "+dir+"/tests/cases.yaml:29: answers in the wrong order",
				`the server asked elicitation/create ({"message":"What is your name?",`,
				"the next answer, client.answers[0] (line 34), answers sampling/createMessage",
				"FAIL "+dir+"/tests/cases.yaml:36: scripts more than is asked",
				"client.answers[3] (line 45): the server never asked sampling/createMessage")
		})
	}
}

// A case whose client declares a capability but scripts no answer fails naming the question and
// the case's line, and the call goes on with the error the client answered (no case waits for
// its timeout); one that expects a notification the server did not send names what it sent.
func TestAnUnscriptedQuestionFailsTheCase(t *testing.T) {
	dir := write(t, api+"  - name: mcp\n    source: { connector: api, settings: { path: /mcp } }"+askingMock, `cases:
  - name: declares elicitation and answers nothing
    timeout: 5s
    mcp: { tool: greet }
    client: { capabilities: { elicitation: {} } }
    expect: { isError: true }
  - name: expects a completion that is not sent
    mcp: { tool: greet }
    client:
      answers:
        - { elicit: accept, content: { name: Ada } }
        - sample: Hi
        - roots: []
    expect:
      notified: [ { method: notifications/elicitation/complete } ]
`)
	sum, out := run(t, dir, nil)
	if sum.Failed != 2 {
		t.Fatalf("summary %+v\n%s", sum, out)
	}
	reports(t, out,
		"FAIL "+dir+"/tests/cases.yaml:2: declares elicitation and answers nothing",
		"the server asked elicitation/create (",
		"the case ("+dir+"/tests/cases.yaml:2) has no client answer left for it: add one to client.answers",
		`notified[0]: expected a notification like {"method":"notifications/elicitation/complete"}, got []`)
	if strings.Contains(out, "timeout") {
		t.Fatalf("a case waited for its timeout:\n%s", out)
	}
}

// What a client key says that cannot work is reported at its line before any case runs.
func TestClientMistakesAreReportedAtTheirLine(t *testing.T) {
	dir := write(t, api+"  - name: mcp\n    source: { connector: api, settings: { path: /mcp } }"+askingMock, `cases:
  - name: two kinds in one answer
    mcp: { tool: greet }
    client:
      answers:
        - { elicit: accept, sample: Hi }
  - name: content of a declined form
    mcp: { tool: greet }
    client:
      answers:
        - { elicit: decline, content: { name: Ada } }
  - name: an unknown revision
    mcp: { tool: greet }
    client: { protocol: "2024-01-01" }
  - name: a client for an HTTP request
    request: { path: /mcp }
    client: { answers: [ { sample: Hi } ] }
  - name: capabilities that are not an object
    mcp: { tool: greet }
    client: { capabilities: [ sampling ] }
`)
	_, err := octotest.Run(context.Background(), dir, octotest.Options{})
	if err == nil {
		t.Fatal("the mistakes ran")
	}
	for _, want := range []string{
		`cases.yaml:6:11: cases[0].client.answers[0] (case "two kinds in one answer"): an answer needs exactly one of elicit, sample or roots`,
		`cases.yaml:11:39: cases[1].client.answers[0].content (case "content of a declined form"): content goes with an accepted form elicitation`,
		`cases.yaml:14:25: cases[2].client.protocol`,
		`cases[3] (case "a client for an HTTP request"): client, expect.asked and expect.notified are for mcp cases`,
		`cases[4].client.capabilities (case "capabilities that are not an object"): capabilities must be an object`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the report lacks %q:\n%v", want, err)
		}
	}
}

// On 2026-07-28 one input_required round may ask several questions (steps together): the
// client answers them in the order the server wrote them, from the same script, and sends the
// request again with the answers and the requestState.
func TestAStatelessRoundAsksSeveralQuestions(t *testing.T) {
	dir := write(t, api+`  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-mock
        name: m
        settings:
          tools:
            - name: greet
              steps:
                - elicit: Your name?
                  schema: { type: object, properties: { name: { type: string } } }
                  as: who
                - sample: A greeting
                  as: words
                  together: true
              result: "{{args.words.content.text}} {{args.who.content.name}}"
`, `cases:
  - name: answers a round of two
    mcp: { tool: greet }
    client:
      protocol: "2026-07-28"
      answers:
        - { elicit: accept, content: { name: Ada } }
        - sample: Hello
    expect:
      text: Hello Ada
      asked: [ { method: elicitation/create }, { method: sampling/createMessage } ]
`)
	if sum, out := run(t, dir, nil); sum.Passed != 1 {
		t.Fatalf("summary %+v\n%s", sum, out)
	}
}

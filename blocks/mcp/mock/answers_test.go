package mock_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const varying = `
seed: 7
tools:
  - name: weather
    inputSchema: '{"type":"object","properties":{"city":{"type":"string"}}}'
    result: 'sunny in {{args.city}}'
    answers:
      - when: args.city == "Paris"
        result: rain in Paris
      - when: headers["x-tenant"] == "blue"
        isError: true
        result: tenant blue has no weather
      - when: call > 3
        result: 'call {{args.city}} again later'
  - name: steps
    answerOrder: sequence
    answers: [ { result: first }, { result: second }, { result: third } ]
  - name: turns
    answerOrder: cycle
    answers: [ { result: even }, { result: odd } ]
  - name: flaky
    result: fine
    failureRate: 0.5
  - name: broken
    result: fine
    failureRate: 1
    failure: { protocolError: { code: -32000, message: the backend is down } }
`

// call calls a tool with arguments and returns its text and isError, or the error.
func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(testCtx(t), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "error: " + err.Error()
	}
	text := strings.Join(texts(res), "")
	if res.IsError {
		return "isError: " + text
	}
	return text
}

// headerTransport adds a header to every request a client sends.
type headerTransport struct{ key, value string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.key, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// A tool's answers are picked by when over the arguments, the headers and the call's count in
// its session, the first that holds winning, else the tool's own; the traffic log says which.
func TestAnswersPickedByWhen(t *testing.T) {
	s := serve(t, varying)
	cs := connect(t, s.url, nil)
	for i, tt := range []struct {
		city, want string
	}{
		{"Oslo", "sunny in Oslo"},
		{"Paris", "rain in Paris"},
		{"Rome", "sunny in Rome"},
		{"Oslo", "call Oslo again later"}, // the fourth call
		{"Paris", "rain in Paris"},        // the first answer still wins
	} {
		if got := call(t, cs, "weather", map[string]any{"city": tt.city}); got != tt.want {
			t.Fatalf("call %d (%s) = %q, want %q", i+1, tt.city, got, tt.want)
		}
	}
	waitForLog(t, s, `"kind":"note"`)
	waitForLog(t, s, `tools/call weather: answer 1 (when args.city == \"Paris\")`)
	waitForLog(t, s, `tools/call weather: the tool's own answer`)
	waitForLog(t, s, `tools/call weather: answer 3 (when call > 3)`)

	// Another session counts its own calls, and a header can pick an answer.
	blue := sdk.NewClient(&sdk.Implementation{Name: "blue", Version: "1"}, nil)
	bs, err := blue.Connect(testCtx(t), &sdk.StreamableClientTransport{Endpoint: s.url,
		HTTPClient: &http.Client{Transport: headerTransport{"X-Tenant", "blue"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bs.Close()
	if got := call(t, bs, "weather", map[string]any{"city": "Oslo"}); got != "isError: tenant blue has no weather" {
		t.Fatalf("with the header: %q", got)
	}
	other := connect(t, s.url, nil)
	if got := call(t, other, "weather", map[string]any{"city": "Oslo"}); got != "sunny in Oslo" {
		t.Fatalf("a new session's first call: %q", got)
	}
}

// sequence hands the session's calls the answers in turn and keeps the last; cycle starts over;
// each session has its own turn.
func TestAnswersInSequenceAndCycle(t *testing.T) {
	s := serve(t, varying)
	cs := connect(t, s.url, nil)
	var seq, cyc []string
	for range 4 {
		seq = append(seq, call(t, cs, "steps", nil))
		cyc = append(cyc, call(t, cs, "turns", nil))
	}
	if got := strings.Join(seq, ","); got != "first,second,third,third" {
		t.Fatalf("sequence: %s", got)
	}
	if got := strings.Join(cyc, ","); got != "even,odd,even,odd" {
		t.Fatalf("cycle: %s", got)
	}
	if got := call(t, connect(t, s.url, nil), "steps", nil); got != "first" {
		t.Fatalf("a new session's first call: %q", got)
	}
	waitForLog(t, s, `tools/call steps: answer 3`)
}

// A failure rate fails that share of the calls, drawn from the server's seed: the same seed
// gives the same calls failing, run after run; a failure answer can be a JSON-RPC error.
func TestAFailureRateRepeatsWithTheSeed(t *testing.T) {
	pattern := func(settings string) string {
		s := serve(t, settings)
		cs := connect(t, s.url, nil)
		var b strings.Builder
		for range 40 {
			if strings.HasPrefix(call(t, cs, "flaky", nil), "isError: Simulated failure of tool flaky (failureRate 0.5)") {
				b.WriteByte('x')
			} else {
				b.WriteByte('.')
			}
		}
		return b.String()
	}
	first, again := pattern(varying), pattern(varying)
	if first != again {
		t.Fatalf("seed 7 failed\n%s\nthen\n%s", first, again)
	}
	if n := strings.Count(first, "x"); n < 8 || n > 32 {
		t.Fatalf("%d of 40 calls failed at rate 0.5: %s", n, first)
	}
	if other := pattern(strings.Replace(varying, "seed: 7", "seed: 8", 1)); other == first {
		t.Fatalf("seeds 7 and 8 failed the same calls: %s", first)
	}
	s := serve(t, varying)
	cs := connect(t, s.url, nil)
	for i := range 3 {
		if got := call(t, cs, "broken", nil); !strings.Contains(got, "the backend is down") || !strings.HasPrefix(got, "error: ") {
			t.Fatalf("call %d of a tool failing always: %q", i, got)
		}
	}
	waitForLog(t, s, `tools/call broken: failure (failureRate 1)`)
}

// The answers' mistakes are found when the file is read, each at its line.
func TestAnswersThatCannotBeUsed(t *testing.T) {
	for _, tt := range []struct{ name, tool, want string }{
		{"a when in a sequence", `answerOrder: sequence
    answers: [ { when: call > 1, result: a } ]`, "when picks an answer in answerOrder match; sequence takes the answers in turn"},
		{"a sequence without answers", `result: a
    answerOrder: cycle`, "answerOrder cycle takes the tool's answers in turn, and it has none"},
		{"an answer with nothing to say", `result: a
    answers: [ { when: call > 1 } ]`, "an answer needs result, content or protocolError"},
		{"an answer saying two things", `result: a
    answers: [ { result: a, protocolError: { code: -1, message: b } } ]`, "an answer answers with one of result, content or protocolError"},
		{"a failure without a rate", `result: a
    failure: { result: down }`, "failure answers a share of the calls: set failureRate (0 to 1)"},
		{"a rate over 1", `result: a
    failureRate: 1.5`, "failureRate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := build(t, fmt.Sprintf("tools:\n  - name: t\n    %s\n", tt.tool))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant one containing %q", err, tt.want)
			}
		})
	}
}

// A when that is not an expression over the call is named at its line, with expr-lang's cause.
func TestABadWhenIsNamed(t *testing.T) {
	_, _, err := build(t, `
tools:
  - name: bad
    result: ok
    answers: [ { when: arg.city == "x", result: no } ]
`)
	if err == nil || !strings.Contains(err.Error(), `tools[0].answers[0].when (mcp-mock "test-mock"): when: unknown name arg`) {
		t.Fatalf("err = %v", err)
	}
}

// The example of REFERENCE.md's "Answers that vary" works as it says.
func TestReferenceAnswersExample(t *testing.T) {
	doc := readFile(t, "REFERENCE.md")
	_, section, _ := strings.Cut(doc, "\n### Answers that vary\n")
	_, example, _ := strings.Cut(section, "```yaml\n")
	example, _, _ = strings.Cut(example, "```")
	s := serve(t, "seed: 1\n"+example)
	cs := connect(t, s.url, nil)
	if got := call(t, cs, "get_weather", map[string]any{"city": "Paris"}); got != "rain in Paris" {
		t.Fatalf("Paris: %q", got)
	}
	var deploys []string
	for range 4 {
		deploys = append(deploys, call(t, cs, "deploy", nil))
	}
	if got := strings.Join(deploys, ","); got != "queued,running,done,done" {
		t.Fatalf("deploy: %s", got)
	}
	failed := 0
	for range 50 {
		if got := call(t, cs, "flaky_search", nil); got != "3 results" {
			if !strings.Contains(got, "the index is down") {
				t.Fatalf("flaky_search: %q", got)
			}
			failed++
		}
	}
	if failed == 0 || failed > 25 {
		t.Fatalf("%d of 50 calls failed at rate 0.2", failed)
	}
}

// An MCP answer cannot read an HTTP request's parts.
func TestAnMCPAnswerReadsNoQuery(t *testing.T) {
	_, _, err := build(t, "tools:\n  - name: t\n    result: '{{query.q}}'\n")
	if err == nil || !strings.Contains(err.Error(), "{{query…}} reads an HTTP request, in an HTTP mock") {
		t.Fatalf("err = %v", err)
	}
}

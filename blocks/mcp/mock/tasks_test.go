package mock_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// tasking is a server whose tools run as tasks on 2026-07-28.
const tasking = `
tools:
  - name: slow
    description: Works for the given seconds
    inputSchema: { type: object, properties: { seconds: {} }, required: [seconds] }
    task: optional
    steps:
      - sleep: "{{args.seconds}}s"
    result: "slept {{args.seconds}}s"
  - name: greet_later
    description: Asks a name in the call, then greets as a task
    task: required
    steps:
      - elicit: Your name?
        schema: { type: object, properties: { name: { type: string } } }
        as: who
        beforeTask: true
    result: "Hello, {{args.who.content.name}}!"
  - name: crash
    description: Ends in a protocol error
    task: optional
    protocolError: { code: -32001, message: the backend is down }
`

// taskCaps are the capabilities of a client that takes tasks and elicitation.
const taskCaps = `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`

// modern sends a 2026-07-28 request whose Mcp-Name is name and returns the decoded answer.
func modern(t *testing.T, url, method, name, params, caps string) map[string]any {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + meta + params + `}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header = http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {method}, "Mcp-Name": {name},
		"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %d %s", method, resp.StatusCode, b)
	}
	return out
}

func resultOf(t *testing.T, answer map[string]any) map[string]any {
	t.Helper()
	r, ok := answer["result"].(map[string]any)
	if !ok {
		t.Fatalf("no result: %v", answer)
	}
	return r
}

// finished polls tasks/get until the task leaves working.
func finished(t *testing.T, url, id string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if r := resultOf(t, modern(t, url, "tasks/get", id, `,"taskId":"`+id+`"`, taskCaps)); r["status"] != "working" {
			return r
		}
	}
	t.Fatalf("task %s still working", id)
	return nil
}

// From settings: a sleep step's duration comes from the arguments, beforeTask questions are
// asked in the call (input_required) and their answers reach the task, and a protocolError
// fails the task with that error.
func TestTaskToolsFromSettings(t *testing.T) {
	s := serve(t, tasking)
	slow := resultOf(t, modern(t, s.url, "tools/call", "slow", `,"name":"slow","arguments":{"seconds":0.05}`, taskCaps))
	if slow["resultType"] != "task" {
		t.Fatalf("slow: %v", slow)
	}
	if done := finished(t, s.url, slow["taskId"].(string)); done["status"] != "completed" || !strings.Contains(jsonOf(done["result"]), "slept 0.05s") {
		t.Fatalf("slow task: %v", done)
	}

	round1 := resultOf(t, modern(t, s.url, "tools/call", "greet_later", `,"name":"greet_later"`, taskCaps))
	if round1["resultType"] != "input_required" || round1["taskId"] != nil {
		t.Fatalf("round 1: %v", round1)
	}
	state, _ := json.Marshal(round1["requestState"])
	round2 := resultOf(t, modern(t, s.url, "tools/call", "greet_later",
		`,"name":"greet_later","inputResponses":{"who":{"action":"accept","content":{"name":"Alice"}}},"requestState":`+string(state), taskCaps))
	if round2["resultType"] != "task" || round2["requestState"] != nil {
		t.Fatalf("round 2: %v", round2)
	}
	if done := finished(t, s.url, round2["taskId"].(string)); !strings.Contains(jsonOf(done["result"]), "Hello, Alice!") {
		t.Fatalf("greet_later task: %v", done)
	}

	crash := resultOf(t, modern(t, s.url, "tools/call", "crash", `,"name":"crash"`, taskCaps))
	if done := finished(t, s.url, crash["taskId"].(string)); done["status"] != "failed" ||
		jsonOf(done["error"]) != `{"code":-32001,"message":"the backend is down"}` {
		t.Fatalf("crash task: %v", done)
	}
	if sync := modern(t, s.url, "tools/call", "crash", `,"name":"crash"`, `{}`); jsonOf(sync["error"]) != `{"code":-32001,"message":"the backend is down"}` {
		t.Fatalf("crash in the call: %v", sync)
	}
	bad := resultOf(t, modern(t, s.url, "tools/call", "slow", `,"name":"slow","arguments":{"seconds":"soon"}`, `{}`))
	if bad["isError"] != true || !strings.Contains(jsonOf(bad), `sleep \"soons\" is not a duration`) {
		t.Fatalf("a sleep that is no duration: %v", bad)
	}
}

// Older revisions answer task tools in the call, required ones included.
func TestTaskToolsAnswerSessionsInTheCall(t *testing.T) {
	s := serve(t, tasking)
	cs := connect(t, s.url, &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Bo"}}, nil
		},
	})
	res, err := cs.CallTool(testCtx(t), &sdk.CallToolParams{Name: "greet_later"})
	if err != nil || res.IsError || strings.Join(texts(res), "") != "Hello, Bo!" {
		t.Fatalf("greet_later over a session = %+v, %v", res, err)
	}
}

// Stopping the server stops its running tasks: the goroutine check of TestMain finds none left.
func TestRunningTasksEndWithStop(t *testing.T) {
	s := serve(t, tasking)
	for range 3 {
		if r := resultOf(t, modern(t, s.url, "tools/call", "slow", `,"name":"slow","arguments":{"seconds":3600}`, taskCaps)); r["resultType"] != "task" {
			t.Fatalf("slow: %v", r)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.svc.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}

// Task settings that cannot work are load errors.
func TestTaskSettingsAreChecked(t *testing.T) {
	tests := []struct{ name, settings, want string }{
		{"beforeTask without a task", "tools:\n  - name: a\n    steps: [{ log: x, beforeTask: true }]\n    result: ok",
			"beforeTask needs the tool's task: optional or required"},
		{"beforeTask after another step", "tools:\n  - name: a\n    task: optional\n    steps: [{ log: x }, { log: y, beforeTask: true }]\n    result: ok",
			"steps with beforeTask come before the others"},
		{"protocolError with isError", "tools:\n  - name: a\n    isError: true\n    protocolError: { message: no }",
			"not both"},
		{"protocolError code 0", "tools:\n  - name: a\n    protocolError: { code: 0, message: no }",
			"a JSON-RPC error code is not 0"},
		{"a task setting out of its enum", "tools:\n  - name: a\n    task: always\n    result: ok",
			"always"},
		{"beforeTask in a prompt", "prompts:\n  - name: p\n    steps: [{ elicit: x, beforeTask: true }]\n    messages: [{ text: hi }]",
			"a prompt is no task"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := build(t, tt.settings)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// The Tasks example of REFERENCE.md works as it says: a question in the call, one in the task
// answered by tasks/update, then the result; and a protocolError fails its task.
func TestReferenceTasksExample(t *testing.T) {
	doc := readFile(t, "REFERENCE.md")
	_, section, _ := strings.Cut(doc, "\n### Tasks\n")
	_, example, _ := strings.Cut(section, "```yaml\n")
	example, _, _ = strings.Cut(example, "```")
	s := serve(t, example)
	call := `,"name":"export_report","arguments":{"seconds":0.01}`
	round1 := resultOf(t, modern(t, s.url, "tools/call", "export_report", call, taskCaps))
	state, _ := json.Marshal(round1["requestState"])
	created := resultOf(t, modern(t, s.url, "tools/call", "export_report",
		call+`,"inputResponses":{"format":{"action":"accept","content":{"format":"pdf"}}},"requestState":`+string(state), taskCaps))
	id, _ := created["taskId"].(string)
	if round1["resultType"] != "input_required" || id == "" {
		t.Fatalf("round 1 %v, round 2 %v", round1, created)
	}
	parked := finished(t, s.url, id)
	if parked["status"] != "input_required" || !strings.Contains(jsonOf(parked["inputRequests"]), `"mail":{"method":"elicitation/create"`) {
		t.Fatalf("parked task: %v", parked)
	}
	modern(t, s.url, "tasks/update", id, `,"taskId":"`+id+`","inputResponses":{"mail":{"action":"accept","content":{"mail":false}}}`, taskCaps)
	var done map[string]any
	for done = finished(t, s.url, id); done["status"] == "input_required"; done = finished(t, s.url, id) {
		time.Sleep(10 * time.Millisecond)
	}
	if done["status"] != "completed" || !strings.Contains(jsonOf(done["result"]), "Report ready as pdf") {
		t.Fatalf("task: %v", done)
	}
	failed := resultOf(t, modern(t, s.url, "tools/call", "import_data", `,"name":"import_data"`, taskCaps))
	if got := finished(t, s.url, failed["taskId"].(string)); got["status"] != "failed" {
		t.Fatalf("import_data task: %v", got)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tasks extension on the built binary, served from YAML (samples/conformance).

// tasksMeta is the _meta of a 2026-07-28 request from a client that declares the extension.
const tasksMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// taskRPC sends one 2026-07-28 request naming name in Mcp-Name and returns its decoded answer.
func taskRPC(t *testing.T, url, method, name, params string) map[string]any {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + tasksMeta + `,` + params + `}}`
	a := do(t, "POST", url, "application/json", body, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method, "Mcp-Name", name)
	var out map[string]any
	if err := json.Unmarshal([]byte(a.body), &out); err != nil {
		t.Fatalf("%s: %d %s", method, a.status, a.body)
	}
	return out
}

// taskResult is the result of a task request, failing the test on an error.
func taskResult(t *testing.T, url, method, name, params string) map[string]any {
	t.Helper()
	out := taskRPC(t, url, method, name, params)
	r, ok := out["result"].(map[string]any)
	if !ok {
		t.Fatalf("%s %s: %v", method, name, out)
	}
	return r
}

// pollTask asks tasks/get until the task's status is no longer from (10 s at most).
func pollTask(t *testing.T, url, id, from string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if r := taskResult(t, url, "tasks/get", id, `"taskId":"`+id+`"`); r["status"] != from {
			return r
		}
	}
	t.Fatalf("task %s stayed %s", id, from)
	return nil
}

// The README's tasks transcript: each `curl -s localhost:3010` line is sent (with the task id
// the first answer gave) and answers what the README prints, ids and times aside.
func TestReadmeTasksTranscriptIsWhatTheMockAnswers(t *testing.T) {
	url := serveConformance(t)
	checkTaskTranscript(t, docSection(t, "MCP 2026-07-28 on the same URL"), map[string]string{"3010": strings.TrimSuffix(url, "/mcp")})
}

// checkTaskTranscript sends each `curl -s localhost:PORT` line of section whose PORT bases
// names to the server there, with the task id the first answer gave in place of <task id> (asking again while
// the task works), and compares its answer with the `# answer` line under it, ids and times
// aside. A section must send at least two.
func checkTaskTranscript(t *testing.T, section string, bases map[string]string) {
	t.Helper()
	const placeholder = "<task id>"
	times := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`)
	lines := strings.Split(section, "\n")
	id, sent := "", 0
	for i, line := range lines {
		rest, ok := strings.CutPrefix(line, "curl -s localhost:")
		if !ok {
			continue
		}
		port, rest, _ := strings.Cut(rest, "/")
		base, known := bases[port]
		if !known {
			continue // another server's, another test's
		}
		path, body, _ := strings.Cut("/"+rest, " -d '")
		path, header, ok := curlHeaders(path)
		if !ok || !strings.HasSuffix(body, "'") || i+1 == len(lines) || !strings.HasPrefix(lines[i+1], "# ") {
			t.Fatalf("line %q is not one curl with its `# answer`", line)
		}
		body = strings.ReplaceAll(strings.TrimSuffix(body, "'"), placeholder, id)
		for j := range header {
			header[j] = strings.ReplaceAll(header[j], placeholder, id)
		}
		var got string
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			got = do(t, "POST", base+path, "application/x-www-form-urlencoded", body, header...).body
			if !strings.Contains(got, `"method":"tasks/get"`) && !strings.Contains(got, `"status":"working"`) || id == "" || time.Now().After(deadline) {
				break
			}
		}
		if id == "" {
			var a struct{ Result struct{ TaskID string } }
			_ = json.Unmarshal([]byte(got), &a)
			id = a.Result.TaskID
		}
		got = times.ReplaceAllString(strings.ReplaceAll(got, id, placeholder), "2026-07-28T09:00:00.000Z")
		if want := strings.TrimPrefix(lines[i+1], "# "); got != want {
			t.Errorf("%s\ngot\n%s\nthe docs print\n%s", line, got, want)
		}
		sent++
	}
	if sent < 2 || id == "" {
		t.Fatalf("sent %d requests of the docs, task id %q", sent, id)
	}
}

// A task that asks the user parks in input_required; tasks/update answers it and the task
// completes with the answer. Cancelling a running task settles it as cancelled.
func TestTaskQuestionsAndCancelOverTheBinary(t *testing.T) {
	url := serveConformance(t)
	created := taskResult(t, url, "tools/call", "confirm_delete", `"name":"confirm_delete","arguments":{"filename":"a.txt"}`)
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || id == "" {
		t.Fatalf("confirm_delete: %v", created)
	}
	parked := pollTask(t, url, id, "working")
	if q, _ := parked["inputRequests"].(map[string]any)["confirm"].(map[string]any); parked["status"] != "input_required" || q["method"] != "elicitation/create" {
		t.Fatalf("parked task: %v", parked)
	}
	ack := taskResult(t, url, "tasks/update", id, `"taskId":"`+id+`","inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}`)
	if len(ack) != 1 || ack["resultType"] != "complete" {
		t.Fatalf("tasks/update ack: %v", ack)
	}
	done := pollTask(t, url, id, "input_required")
	if done["status"] == "working" {
		done = pollTask(t, url, id, "working")
	}
	if b, _ := json.Marshal(done["result"]); done["status"] != "completed" || !strings.Contains(string(b), "Deleted a.txt (accept)") {
		t.Fatalf("answered task: %v", done)
	}

	slow := taskResult(t, url, "tools/call", "slow_compute", `"name":"slow_compute","arguments":{"seconds":60}`)["taskId"].(string)
	taskResult(t, url, "tasks/cancel", slow, `"taskId":"`+slow+`"`)
	if got := pollTask(t, url, slow, "working"); got["status"] != "cancelled" {
		t.Fatalf("cancelled task: %v", got)
	}
	missing := taskRPC(t, url, "tasks/get", "nope", `"taskId":"nope"`)
	if e, _ := missing["error"].(map[string]any); e["code"] != -32602.0 {
		t.Fatalf("unknown task: %v", missing)
	}
}

// A task still running does not hold the server up: on SIGTERM octo serve stops its tasks
// with the server and exits 0 without waiting out the shutdown timeout.
func TestRunningTasksStopWithTheServer(t *testing.T) {
	url, p := serveConformanceProc(t, "--shutdown-timeout", "30s")
	for range 3 {
		taskResult(t, url, "tools/call", "slow_compute", `"name":"slow_compute","arguments":{"seconds":3600}`)
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("octo serve still runs 20 s after SIGTERM with tasks running\n%s", p.Log())
	}
	if p.err != nil {
		t.Fatalf("octo serve exited with %v\n%s", p.err, p.Log())
	}
}

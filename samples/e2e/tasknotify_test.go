package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// taskListen opens subscriptions/listen for the task ids on url with the given headers and
// returns its notifications, one decoded JSON-RPC message each; the stream closes with the test.
func taskListen(t *testing.T, url string, ids []string, header ...string) <-chan map[string]any {
	t.Helper()
	filter, _ := json.Marshal(ids)
	body := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{` + tasksMeta + `,"notifications":{"taskIds":` + string(filter) + `}}}`
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"subscriptions/listen"}}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("subscriptions/listen: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ch := make(chan map[string]any, 16)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				_ = json.Unmarshal([]byte(data), &m)
				ch <- m
			}
		}
	}()
	return ch
}

// nextNote returns the next notification's method and params (10 s at most).
func nextNote(t *testing.T, ch <-chan map[string]any) (string, map[string]any) {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatal("the listen stream ended")
		}
		method, _ := m["method"].(string)
		params, _ := m["params"].(map[string]any)
		return method, params
	case <-time.After(10 * time.Second):
		t.Fatal("no notification within 10 s")
	}
	return "", nil
}

// taskNote returns the next notifications/tasks, failing on anything else.
func taskNote(t *testing.T, ch <-chan map[string]any) map[string]any {
	t.Helper()
	method, params := nextNote(t, ch)
	if method != "notifications/tasks" {
		t.Fatalf("got %s %v, want notifications/tasks", method, params)
	}
	return params
}

// A client of the built mock listens to its task instead of polling: the listen stream acks
// the task id, tells its current state, then each change up to the result.
func TestTaskStatusNotificationsOverTheBinary(t *testing.T) {
	url := serveConformance(t)
	id, _ := taskResult(t, url, "tools/call", "confirm_delete", `"name":"confirm_delete","arguments":{"filename":"b.txt"}`)["taskId"].(string)
	ch := taskListen(t, url, []string{id, "not-a-task"})
	if method, params := nextNote(t, ch); method != "notifications/subscriptions/acknowledged" || jsonText(params["notifications"]) != `{"taskIds":["`+id+`"]}` {
		t.Fatalf("ack: %s %v", method, params)
	}
	n := taskNote(t, ch)
	if n["status"] == "working" {
		n = taskNote(t, ch)
	}
	if n["taskId"] != id || n["status"] != "input_required" || !strings.Contains(jsonText(n["inputRequests"]), `"confirm":{"method":"elicitation/create"`) {
		t.Fatalf("parked task: %v", n)
	}
	taskResult(t, url, "tasks/update", id, `"taskId":"`+id+`","inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}`)
	if n := taskNote(t, ch); n["status"] != "working" {
		t.Fatalf("after the answer: %v", n)
	}
	if n := taskNote(t, ch); n["status"] != "completed" || !strings.Contains(jsonText(n["result"]), "Deleted b.txt (accept)") {
		t.Fatalf("done: %v", n)
	}
}

// jwtTasks is a router behind jwt-validate whose tool runs as a task.
const jwtTasks = `service: { name: jwt-tasks }
connectors: [ { name: api, type: http, settings: { port: %d } } ]
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: jwt-validate
        settings: { jwksFile: %q, issuer: %q, audience: %q }
      - type: mcp-router
        tasks: { ttl: 1m }
        tools:
          - name: report
            description: builds a report
            task: optional
            process:
              - type: delay
                settings: { duration: 300ms }
              - type: set-payload
                settings: { value: '"report ready"' }
`

// Behind jwt-validate a task is its token subject's: a second token of the same subject polls
// and listens to it, another subject's token is answered as for a task that does not exist.
func TestATaskIsItsSubjectsBehindJWTValidate(t *testing.T) {
	port := freePort(t)
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	dir := t.TempDir()
	config := fmt.Sprintf(jwtTasks, port, filepath.Join(repoRoot(), "samples/mcp-oauth/dev-jwks.json"), oauthIssuer, url)
	if err := os.WriteFile(filepath.Join(dir, "octo.yaml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	startOcto(t, nil, "run", "--config", filepath.Join(dir, "octo.yaml"))
	token := func(sub string) []string {
		return []string{"Authorization", "Bearer " + mintToken(t, "--aud", url, "--iss", oauthIssuer, "--sub", sub)}
	}
	alice, aliceAgain, bob := token("alice"), token("alice"), token("bob")
	call := func(method, name, params string, header []string) map[string]any {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + tasksMeta + `,` + params + `}}`
		a := do(t, "POST", url, "application/json", body,
			append([]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method, "Mcp-Name", name}, header...)...)
		var out map[string]any
		if err := json.Unmarshal([]byte(a.body), &out); err != nil {
			t.Fatalf("%s: %d %s", method, a.status, a.body)
		}
		return out
	}
	created, _ := call("tools/call", "report", `"name":"report"`, alice)["result"].(map[string]any)
	id, _ := created["taskId"].(string)
	if id == "" {
		t.Fatalf("report: %v", created)
	}
	if got := call("tasks/get", id, `"taskId":"`+id+`"`, aliceAgain); got["result"] == nil {
		t.Fatalf("the same subject with another token: %v", got)
	}
	unknown := jsonText(call("tasks/get", "x", `"taskId":"x"`, alice)["error"])
	for _, method := range []string{"tasks/get", "tasks/cancel"} {
		got := jsonText(call(method, id, `"taskId":"`+id+`"`, bob)["error"])
		if want := strings.ReplaceAll(unknown, `\"x\"`, `\"`+id+`\"`); got != want {
			t.Fatalf("another subject's %s: %s, want %s", method, got, want)
		}
	}
	if _, params := nextNote(t, taskListen(t, url, []string{id}, bob...)); jsonText(params["notifications"]) != `{}` {
		t.Fatalf("another subject may listen to the task: %v", params)
	}
	ch := taskListen(t, url, []string{id}, aliceAgain...)
	nextNote(t, ch)
	n := taskNote(t, ch)
	if n["status"] == "working" {
		n = taskNote(t, ch)
	}
	if n["status"] != "completed" || !strings.Contains(jsonText(n["result"]), "report ready") {
		t.Fatalf("the subject's task: %v", n)
	}
}

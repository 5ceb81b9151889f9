package mock_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// taskPost sends one 2026-07-28 request from a client that takes tasks, with Mcp-Name name and
// the given Authorization ("" for none), and returns the response.
func taskPost(t *testing.T, ctx context.Context, url, method, name, params, auth string) *http.Response {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + taskCaps + `}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"`+method+`","params":{`+meta+params+`}}`))
	req.Header = http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {method}, "Content-Type": {"application/json"},
		"Accept": {"application/json, text/event-stream"}}
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// answerOf decodes a JSON answer.
func answerOf(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	return out
}

// The mock tells a listener of its task's changes, and only the caller that created the task
// (by its Authorization header) may see it: to another, it does not exist.
func TestMockTaskNotificationsAndOwner(t *testing.T) {
	s := serve(t, tasking)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	created := resultOf(t, answerOf(t, taskPost(t, ctx, s.url, "tools/call", "slow", `,"name":"slow","arguments":{"seconds":0.2}`, "Bearer one")))
	id, _ := created["taskId"].(string)
	if id == "" {
		t.Fatalf("slow: %v", created)
	}
	for _, other := range []string{"Bearer two", ""} {
		got := answerOf(t, taskPost(t, ctx, s.url, "tasks/get", id, `,"taskId":"`+id+`"`, other))
		if e, _ := got["error"].(map[string]any); e["code"] != -32602.0 || !strings.Contains(e["message"].(string), "no task") {
			t.Fatalf("tasks/get with %q: %v", other, got)
		}
	}
	resp := taskPost(t, ctx, s.url, "subscriptions/listen", "", `,"notifications":{"taskIds":["`+id+`"]}`, "Bearer one")
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("listen: %d %v", resp.StatusCode, answerOf(t, resp))
	}
	var seen []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var n struct {
			Method string
			Params map[string]any
		}
		_ = json.Unmarshal([]byte(data), &n)
		seen = append(seen, n.Method+" "+jsonOf(n.Params["status"]))
		if n.Params["status"] == "completed" {
			if !strings.Contains(jsonOf(n.Params["result"]), "slept 0.2s") {
				t.Fatalf("completed: %v", n.Params)
			}
			break
		}
	}
	// The task may have ended before the listen (a loaded machine): then its first state is the last.
	got := strings.Replace(strings.Join(seen, ","), `,notifications/tasks "working"`, "", 1)
	if want := `notifications/subscriptions/acknowledged null,notifications/tasks "completed"`; got != want {
		t.Fatalf("the listener saw %v, want the ack, working, completed", seen)
	}
}

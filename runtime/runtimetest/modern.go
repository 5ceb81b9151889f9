package runtimetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// WithTasks are 2026-07-28 client capabilities that declare the tasks extension.
const WithTasks = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`

// Modern is a test's 2026-07-28 MCP client over HTTP: each request on its own, its
// capabilities in _meta, Mcp-Method and Mcp-Name mirrored in headers. Header is sent with
// every request (an Authorization, say).
type Modern struct {
	URL    string
	Caps   string
	Header http.Header
}

// Answer is a JSON-RPC answer as a test reads it.
type Answer struct {
	Result map[string]any
	Error  *struct {
		Code    int
		Message string
	}
}

// Call sends method with params (a JSON object) and decodes the answer.
func (m Modern) Call(t testing.TB, method, params string) Answer {
	t.Helper()
	resp := m.post(t, method, params)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var a Answer
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("%s: %d %s", method, resp.StatusCode, b)
	}
	return a
}

// post sends method with params, its _meta holding the revision and m.Caps.
func (m Modern) post(t testing.TB, method, params string) *http.Response {
	t.Helper()
	caps := m.Caps
	if caps == "" {
		caps = "{}"
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(params), &p); err != nil {
		t.Fatalf("params %s: %v", params, err)
	}
	p["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": json.RawMessage(caps)}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": p})
	req, err := http.NewRequest(http.MethodPost, m.URL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range m.Header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	for _, k := range []string{"name", "uri", "taskId"} {
		if v, ok := p[k].(string); ok {
			req.Header.Set("Mcp-Name", v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// StartTask calls tool with args as a task and returns the task's id.
func (m Modern) StartTask(t testing.TB, tool, args string) string {
	t.Helper()
	a := m.Call(t, "tools/call", `{"name":"`+tool+`","arguments":`+args+`}`)
	id, _ := a.Result["taskId"].(string)
	if a.Result["resultType"] != "task" || id == "" {
		t.Fatalf("%s did not become a task: %+v %+v", tool, a.Result, a.Error)
	}
	return id
}

// Task is tasks/get's answer for id; ok is false when the server knows no such task.
func (m Modern) Task(t testing.TB, id string) (task map[string]any, ok bool) {
	t.Helper()
	a := m.Call(t, "tasks/get", `{"taskId":"`+id+`"}`)
	return a.Result, a.Error == nil
}

// WaitTask polls the task until its status is one of want, within 20 seconds.
func (m Modern) WaitTask(t testing.TB, id string, want ...string) map[string]any {
	t.Helper()
	var last map[string]any
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		task, ok := m.Task(t, id)
		if !ok {
			t.Fatalf("tasks/get %s: no such task", id)
		}
		last = task
		for _, w := range want {
			if task["status"] == w {
				return task
			}
		}
	}
	t.Fatalf("task %s never became %v: %+v", id, want, last)
	return nil
}

// Listen opens a subscriptions/listen stream for the tasks ids and returns each task
// notification's params as it comes, until the test ends.
func (m Modern) Listen(t testing.TB, ids ...string) <-chan map[string]any {
	t.Helper()
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = fmt.Sprintf("%q", id)
	}
	notes := m.Subscribe(t, `{"taskIds":[`+strings.Join(quoted, ",")+`]}`)
	out := make(chan map[string]any, 64)
	go func() {
		defer close(out)
		for n := range notes {
			if n.Method == "notifications/tasks" {
				out <- n.Params
			}
		}
	}()
	return out
}

// Note is a notification a listen stream carried.
type Note struct {
	Method string
	Params map[string]any
}

// Subscribe opens a subscriptions/listen stream asking for notifications (the filter's JSON
// object: taskIds, toolsListChanged, …), waits for its acknowledgement, and returns each
// notification after it as it comes, until the test ends.
func (m Modern) Subscribe(t testing.TB, notifications string) <-chan Note {
	t.Helper()
	resp := m.post(t, "subscriptions/listen", `{"notifications":`+notifications+`}`)
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("subscriptions/listen: %d %s", resp.StatusCode, b)
	}
	t.Cleanup(func() { resp.Body.Close() })
	out, acked := make(chan Note, 64), make(chan struct{})
	var ack sync.Once
	go func() {
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var n Note
			switch {
			case json.Unmarshal([]byte(data), &n) != nil || n.Method == "":
			case n.Method == "notifications/subscriptions/acknowledged":
				ack.Do(func() { close(acked) })
			default:
				out <- n
			}
		}
	}()
	select { // from then on the server tells the stream what it asked for
	case <-acked:
	case <-time.After(10 * time.Second):
		t.Fatal("subscriptions/listen was never acknowledged")
	}
	return out
}

// JSON is v as JSON, for a test's comparison or message.
func JSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

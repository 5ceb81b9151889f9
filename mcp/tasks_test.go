package mcp_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/mcptest"
	"github.com/octo-run/octo/mcp/tasks"

	"github.com/octo-run/octo/mcp/jsonrpc"
)

// A task's life over a socket: the call answers a flat CreateTaskResult at once, tasks/get
// finds it working, then completed with the result inlined; cancelling a finished task is
// the same empty ack and changes nothing.
func TestTaskLifecycle(t *testing.T) {
	_, tools, url := mcptest.TaskServer(t, tasks.Limits{TTL: time.Minute, PollInterval: 250 * time.Millisecond})
	disc := mcptest.Send(t, url, "server/discover", "", "{}")
	if ext, _ := disc.Result["capabilities"].(map[string]any)["extensions"].(map[string]any); ext[mcp.ExtensionTasks] == nil {
		t.Fatalf("server/discover does not declare the extension: %+v", disc.Result)
	}
	created := mcptest.Send(t, url, "tools/call", `{"name":"work"}`, mcptest.WithTasks).Result
	for key, want := range map[string]any{"resultType": "task", "status": tasks.Working, "ttlMs": 60000.0, "pollIntervalMs": 250.0} {
		if created[key] != want {
			t.Errorf("CreateTaskResult %s = %v, want %v", key, created[key], want)
		}
	}
	for _, key := range []string{"result", "error", "inputRequests", "requestState", "task", "ttl"} {
		if _, ok := created[key]; ok {
			t.Errorf("CreateTaskResult carries %s: %+v", key, created)
		}
	}
	id := created["taskId"].(string)
	if at, _ := created["createdAt"].(string); !strings.HasSuffix(at, "Z") || len(at) != len("2026-07-28T00:00:00.000Z") {
		t.Errorf("createdAt = %q", at)
	}
	if got := mcptest.Get(t, url, id); got["status"] != tasks.Working || got["resultType"] != "complete" || got["result"] != nil {
		t.Fatalf("working task: %+v", got)
	}
	tools.ReleaseAll()
	done := mcptest.WaitStatus(t, url, id, tasks.Completed)
	result, _ := done["result"].(map[string]any)
	if content, _ := result["content"].([]any); len(content) != 1 || content[0].(map[string]any)["text"] != "worked" {
		t.Fatalf("completed task: %+v", done)
	}
	ack := mcptest.Send(t, url, "tasks/cancel", `{"taskId":"`+id+`"}`, mcptest.WithTasks)
	if len(ack.Result) != 1 || ack.Result["resultType"] != "complete" {
		t.Fatalf("cancel of a finished task: %+v %v", ack.Result, ack.Error)
	}
	if mcptest.Get(t, url, id)["status"] != tasks.Completed {
		t.Fatal("cancelling a finished task changed it")
	}
}

// tasks/cancel stops the work: its context ends and the task is cancelled.
func TestTaskCancelStopsItsWork(t *testing.T) {
	_, tools, url := mcptest.TaskServer(t, tasks.Limits{})
	id := mcptest.Start(t, url, "work")
	<-tools.Started
	if ack := mcptest.Send(t, url, "tasks/cancel", `{"taskId":"`+id+`"}`, mcptest.WithTasks); ack.Result["resultType"] != "complete" {
		t.Fatalf("cancel: %+v %v", ack.Result, ack.Error)
	}
	if end := <-tools.Ended; end != "cancelled" {
		t.Fatalf("the work ended %s", end)
	}
	if got := mcptest.Get(t, url, id); got["status"] != tasks.Cancelled || got["result"] != nil {
		t.Fatalf("cancelled task: %+v", got)
	}
}

// A task that asks parks in input_required with the question; answers to other keys are
// acked and ignored, and the right answer lets the work run again and complete.
func TestTaskInputRounds(t *testing.T) {
	_, _, url := mcptest.TaskServer(t, tasks.Limits{})
	id := mcptest.Start(t, url, "ask")
	parked := mcptest.WaitStatus(t, url, id, tasks.InputRequired)
	q, _ := parked["inputRequests"].(map[string]any)["who"].(map[string]any)
	if q["method"] != "elicitation/create" {
		t.Fatalf("input_required task: %+v", parked)
	}
	if ack := mcptest.Send(t, url, "tasks/update", `{"taskId":"`+id+`","inputResponses":{"nobody":{}}}`, mcptest.WithTasks); ack.Result["resultType"] != "complete" {
		t.Fatalf("update with an unknown key: %+v %v", ack.Result, ack.Error)
	}
	if got := mcptest.Get(t, url, id); got["status"] != tasks.InputRequired {
		t.Fatalf("an answer to nothing moved the task on: %+v", got)
	}
	mcptest.Send(t, url, "tasks/update", `{"taskId":"`+id+`","inputResponses":{"who":{"action":"accept","content":{"name":"Ana"}}}}`, mcptest.WithTasks)
	done := mcptest.WaitStatus(t, url, id, tasks.Completed)
	if !strings.Contains(mcptest.ToJSON(t, done["result"]), `"text":"hello Ana"`) {
		t.Fatalf("completed task: %+v", done)
	}
}

// Protocol errors fail a task with the JSON-RPC error and no result: a panic, an error the
// work returns, and a result over maxResultBytes.
func TestTaskFailures(t *testing.T) {
	_, _, url := mcptest.TaskServer(t, tasks.Limits{MaxResultBytes: 1024})
	for tool, want := range map[string]string{
		"boom":   `{"code":-32603,"message":"Internal error: the task's work failed"}`,
		"broken": `{"code":-32000,"message":"the backend is down"}`,
		"big":    `"code":-32603,"message":"Internal error: the task's result of `,
	} {
		t.Run(tool, func(t *testing.T) {
			got := mcptest.WaitStatus(t, url, mcptest.Start(t, url, tool), tasks.Failed)
			if _, ok := got["result"]; ok || !strings.Contains(mcptest.ToJSON(t, got["error"]), want) || got["statusMessage"] == "" {
				t.Fatalf("failed task: %+v", got)
			}
		})
	}
}

// A task is kept for its TTL from creation: after it, tasks/get says it expired, and the work
// still running is stopped.
func TestTaskExpiry(t *testing.T) {
	s, tools, url := mcptest.TaskServer(t, tasks.Limits{TTL: time.Minute})
	clock := mcptest.NewFakeClock(time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC))
	s.Tasks.(*tasks.Memory).SetClock(clock.Now)
	id := mcptest.Start(t, url, "work")
	<-tools.Started // expiry stops work that runs
	clock.Add(59 * time.Second)
	if mcptest.Get(t, url, id)["status"] != tasks.Working {
		t.Fatal("the task ended before its TTL")
	}
	clock.Add(time.Second)
	r := mcptest.Send(t, url, "tasks/get", `{"taskId":"`+id+`"}`, mcptest.WithTasks)
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "expired") {
		t.Fatalf("expired task: %+v %v", r.Result, r.Error)
	}
	if end := <-tools.Ended; end != "cancelled" || s.Tasks.(*tasks.Memory).Len() != 0 {
		t.Fatalf("the expired task's work ended %s; %d tasks kept", end, s.Tasks.(*tasks.Memory).Len())
	}
}

// The store holds maxTasks: a finished task makes room for a new one, running ones do not,
// and a call past the limit gets a precise error.
func TestTaskLimit(t *testing.T) {
	s, _, url := mcptest.TaskServer(t, tasks.Limits{MaxTasks: 2, MaxTasksPerOwner: 2})
	first := mcptest.Start(t, url, "work")
	mcptest.StartAs(t, url, "work", "Authorization", "Bearer another")
	r := mcptest.Send(t, url, "tools/call", `{"name":"work"}`, mcptest.WithTasks, "Authorization", "Bearer a third")
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInternalError || !strings.Contains(r.Error.Message, "2 tasks, its limit (maxTasks)") {
		t.Fatalf("a third task: %+v %v", r.Result, r.Error)
	}
	mcptest.Send(t, url, "tasks/cancel", `{"taskId":"`+first+`"}`, mcptest.WithTasks)
	mcptest.StartAs(t, url, "work", "Authorization", "Bearer a third")
	if s.Tasks.(*tasks.Memory).Len() != 2 {
		t.Fatalf("%d tasks kept", s.Tasks.(*tasks.Memory).Len())
	}
	if r := mcptest.Send(t, url, "tasks/get", `{"taskId":"`+first+`"}`, mcptest.WithTasks); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("the dropped task: %+v %v", r.Result, r.Error)
	}
}

// One requester holds at most maxTasksPerOwner of the store's places: a client that starts
// task after task is refused for its own next one, while another requester still starts
// theirs; a finished task of its own makes room for it again.
func TestOneRequesterCannotTakeEveryTaskPlace(t *testing.T) {
	s, _, url := mcptest.TaskServer(t, tasks.Limits{MaxTasks: 10, MaxTasksPerOwner: 3})
	greedy := []string{"Authorization", "Bearer greedy"}
	first := mcptest.StartAs(t, url, "work", greedy...)
	for range 2 {
		mcptest.StartAs(t, url, "work", greedy...)
	}
	r := mcptest.Send(t, url, "tools/call", `{"name":"work"}`, mcptest.WithTasks, greedy...)
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInternalError || !strings.Contains(r.Error.Message, "you already run 3 tasks, the limit for one requester (maxTasksPerOwner)") {
		t.Fatalf("the greedy requester's fourth task: %+v %v", r.Result, r.Error)
	}
	mcptest.StartAs(t, url, "work", "Authorization", "Bearer patient")
	mcptest.Start(t, url, "work") // a requester without an identity is one more
	mcptest.Send(t, url, "tasks/cancel", `{"taskId":"`+first+`"}`, mcptest.WithTasks, greedy...)
	mcptest.StartAs(t, url, "work", greedy...)
	if s.Tasks.(*tasks.Memory).Len() != 5 {
		t.Fatalf("%d tasks kept, want 5 (greedy's cancelled one dropped for its new one)", s.Tasks.(*tasks.Memory).Len())
	}
}

// Requests about tasks that are not right get precise errors.
func TestTaskBadRequests(t *testing.T) {
	_, _, url := mcptest.TaskServer(t, tasks.Limits{})
	id := mcptest.Start(t, url, "work")
	tests := []struct {
		name, method, params, caps string
		header                     []string
		code                       int
	}{
		{"an unknown task", "tasks/get", `{"taskId":"nope"}`, mcptest.WithTasks, nil, jsonrpc.CodeInvalidParams},
		{"an unknown task to cancel", "tasks/cancel", `{"taskId":"nope"}`, mcptest.WithTasks, nil, jsonrpc.CodeInvalidParams},
		{"an unknown task to update", "tasks/update", `{"taskId":"nope","inputResponses":{}}`, mcptest.WithTasks, nil, jsonrpc.CodeInvalidParams},
		{"a task id that is a number", "tasks/get", `{"taskId":7}`, mcptest.WithTasks, []string{mcp.HeaderName, "7"}, mcp.CodeHeaderMismatch},
		{"no task id", "tasks/get", `{}`, mcptest.WithTasks, nil, jsonrpc.CodeInvalidParams},
		{"inputResponses null", "tasks/update", `{"taskId":"` + id + `","inputResponses":null}`, mcptest.WithTasks, nil, jsonrpc.CodeInvalidParams},
		{"Mcp-Name other than the task id", "tasks/get", `{"taskId":"` + id + `"}`, mcptest.WithTasks, []string{mcp.HeaderName, "other"}, mcp.CodeHeaderMismatch},
		{"no Mcp-Name", "tasks/get", `{"taskId":"` + id + `"}`, mcptest.WithTasks, []string{mcp.HeaderName, ""}, mcp.CodeHeaderMismatch},
		{"a client without the extension", "tasks/get", `{"taskId":"` + id + `"}`, `{}`, nil, mcp.CodeMissingCapability},
		{"a tool only a task runs, for a client without the extension", "tools/call", `{"name":"only"}`, `{}`, nil, mcp.CodeMissingCapability},
		{"tasks/result, gone in this extension", "tasks/result", `{"taskId":"` + id + `"}`, mcptest.WithTasks, nil, jsonrpc.CodeMethodNotFound},
		{"tasks/list, gone in this extension", "tasks/list", `{}`, mcptest.WithTasks, nil, jsonrpc.CodeMethodNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mcptest.Send(t, url, tt.method, tt.params, tt.caps, tt.header...)
			if r.Error == nil || r.Error.Code != tt.code {
				t.Fatalf("got %+v %+v, want error %d", r.Result, r.Error, tt.code)
			}
		})
	}
	r := mcptest.Send(t, url, "tools/call", `{"name":"only"}`, `{}`)
	if !strings.Contains(mcptest.ToJSON(t, r.Error.Data), `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`) {
		t.Fatalf("-32021 data: %+v", r.Error)
	}
}

// A client that did not declare the extension gets the call answered in the call, and a server
// without a store neither declares nor serves tasks, as before.
func TestNoTaskWithoutTheExtension(t *testing.T) {
	_, tools, url := mcptest.TaskServer(t, tasks.Limits{})
	tools.ReleaseAll()
	r := mcptest.Send(t, url, "tools/call", `{"name":"work"}`, `{}`)
	if r.Result["resultType"] != "complete" || r.Result["taskId"] != nil {
		t.Fatalf("call without the extension: %+v %v", r.Result, r.Error)
	}
	s := mcptest.RouterServer(t)
	disc := s.ServeStateless(t.Context(), mcptest.ModernPost("server/discover", "", mcptest.WithTasks))
	if strings.Contains(string(disc.Body), "extensions") {
		t.Fatalf("a server without tasks declares them: %s", disc.Body)
	}
	get := s.ServeStateless(t.Context(), mcptest.ModernPost("tasks/get", `{"taskId":"x"}`, mcptest.WithTasks, mcp.HeaderName, "x"))
	if get.Status != 404 || !strings.Contains(string(get.Body), `"code":-32601`) {
		t.Fatalf("tasks/get on a server without tasks: %d %s", get.Status, get.Body)
	}
}

// Close stops every task and waits for their work; a call after it starts none.
func TestTasksCloseStopsEveryTask(t *testing.T) {
	s, tools, url := mcptest.TaskServer(t, tasks.Limits{})
	for range 3 {
		mcptest.Start(t, url, "work")
		<-tools.Started
	}
	s.Tasks.Close()
	if n := len(tools.Ended); n != 3 {
		t.Fatalf("%d of 3 works ended when Close returned", n)
	}
	for range 3 {
		if end := <-tools.Ended; end != "cancelled" {
			t.Fatalf("a work ended %s", end)
		}
	}
	if r := mcptest.Send(t, url, "tools/call", `{"name":"work"}`, mcptest.WithTasks); r.Error == nil || !strings.Contains(r.Error.Message, "shutting down") {
		t.Fatalf("a call after Close: %+v %v", r.Result, r.Error)
	}
}

// maxTaskAllocs is what a task kept in this process costs, from the tools/call that creates it
// to its end (the record, its watch, its work and its result), measured when a cluster became
// another place to keep tasks (service.cluster): keeping them in memory must not pay for that.
const maxTaskAllocs = 52

func TestATaskInMemoryAllocationsDoNotGrow(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector adds allocations of its own")
	}
	tools := mcptest.NewTaskTools()
	s := &mcp.Server{Info: mcp.Implementation{Name: "tasks", Version: "1"}, Versions: mcp.RouterVersions, Tools: tools,
		Tasks: tasks.NewMemory(tasks.Limits{MaxTasks: 100000, MaxTasksPerOwner: 100000})}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	defer s.Tasks.Close()
	req := mcptest.ModernPost("tools/call", `{"name":"broken","arguments":{}}`, mcptest.WithTasks)
	ctx := context.Background()
	var ended int
	got := testing.AllocsPerRun(200, func() {
		if a := s.ServeStateless(ctx, req); !strings.Contains(string(a.Body), `"resultType":"task"`) {
			t.Fatalf("%s", a.Body)
		}
		// the work ends before the next call: its allocations are counted with it
		for s.Tasks.(*tasks.Memory).Running() > 0 {
			runtime.Gosched()
		}
		ended++
	})
	if got > maxTaskAllocs {
		t.Fatalf("a task in memory allocates %.0f times, want at most %d", got, maxTaskAllocs)
	}
	t.Logf("%.0f allocations per task (%d tasks)", got, ended)
}

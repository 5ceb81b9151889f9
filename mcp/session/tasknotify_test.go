package session

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/mcptest"
	"github.com/octo-run/octo/mcp/stream"
	"github.com/octo-run/octo/mcp/tasks"

	"github.com/octo-run/octo/mcp/jsonrpc"
)

// taskFront serves a Front server keeping tasks over a real socket, as mcp-mock and
// mcp-router do; it returns the tools and the endpoint's URL.
func taskFront(t *testing.T, l tasks.Limits, o Options) (*mcptest.TaskTools, string, *Front) {
	t.Helper()
	tools := mcptest.NewTaskTools()
	s := &mcp.Server{Info: mcp.Implementation{Name: "tasks", Version: "1"}, Versions: mcp.RouterVersions, Tools: tools, Tasks: tasks.NewMemory(l)}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	st := New(s, o)
	f := newFront(t, st)
	t.Cleanup(func() {
		tools.ReleaseAll()
		s.Tasks.Close()
	})
	return tools, f.srv.URL + "/mcp", st
}

// listenTo opens a subscriptions/listen stream over the socket for filter (a JSON object) and
// returns its HTTP status and its events; a refusal's body is the one event.
func listenTo(t *testing.T, url, filter, caps string, header ...string) (int, <-chan sseEvent) {
	t.Helper()
	in := mcptest.ModernPost("subscriptions/listen", `{"notifications":`+filter+`}`, caps, header...)
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(string(in.Body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = in.Header
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("Content-Type") != mcp.ContentTypeSSE {
		ch := make(chan sseEvent, 1)
		ch <- sseEvent{data: readAll(t, resp)}
		close(ch)
		return resp.StatusCode, ch
	}
	return resp.StatusCode, events(resp.Body)
}

// notice is one notification as a listener reads it.
type notice struct {
	Method string
	Params map[string]any
}

func next(t *testing.T, ch <-chan sseEvent) notice {
	t.Helper()
	var n notice
	if ev := within(t, ch); json.Unmarshal([]byte(ev.data), &n) != nil {
		t.Fatalf("not a notification: %q", ev.data)
	}
	return n
}

// nextTask reads the next notifications/tasks and checks it belongs to the listen request (id 9).
func nextTask(t *testing.T, ch <-chan sseEvent) map[string]any {
	t.Helper()
	n := next(t, ch)
	meta, _ := n.Params["_meta"].(map[string]any)
	if n.Method != "notifications/tasks" || meta[mcp.MetaSubscriptionID] != 9.0 {
		t.Fatalf("want notifications/tasks for subscription 9, got %+v", n)
	}
	return n.Params
}

// A listener that names a task hears each of its status changes, each a whole DetailedTask as
// tasks/get would answer it: working at once, input_required with the question, working
// again once answered, then completed with the result.
func TestTaskStatusNotifications(t *testing.T) {
	_, url, _ := taskFront(t, tasks.Limits{TTL: time.Minute, PollInterval: 250 * time.Millisecond}, Options{})
	id := mcptest.StartAs(t, url, "ask")
	status, ch := listenTo(t, url, `{"taskIds":["`+id+`","unknown"]}`, mcptest.WithTasks)
	if status != http.StatusOK {
		t.Fatalf("listen: %d %+v", status, within(t, ch))
	}
	ack := next(t, ch)
	if ack.Method != "notifications/subscriptions/acknowledged" || mcptest.ToJSON(t, ack.Params["notifications"]) != `{"taskIds":["`+id+`"]}` {
		t.Fatalf("ack = %+v, want only the known task", ack)
	}
	first := nextTask(t, ch) // the state at the time of listening
	for first["status"] == tasks.Working {
		first = nextTask(t, ch)
	}
	q, _ := first["inputRequests"].(map[string]any)["who"].(map[string]any)
	if first["taskId"] != id || first["status"] != tasks.InputRequired || q["method"] != "elicitation/create" ||
		first["ttlMs"] != 60000.0 || first["pollIntervalMs"] != 250.0 || first["resultType"] != nil {
		t.Fatalf("input_required notification: %+v", first)
	}
	mcptest.Send(t, url, "tasks/update", `{"taskId":"`+id+`","inputResponses":{"who":{"action":"accept","content":{"name":"Ana"}}}}`, mcptest.WithTasks)
	if n := nextTask(t, ch); n["status"] != tasks.Working || n["inputRequests"] != nil {
		t.Fatalf("after the answer: %+v", n)
	}
	done := nextTask(t, ch)
	if done["status"] != tasks.Completed || !strings.Contains(mcptest.ToJSON(t, done["result"]), `"text":"hello Ana"`) {
		t.Fatalf("completed notification: %+v", done)
	}
	got := mcptest.Get(t, url, id)
	delete(got, "resultType")
	delete(done, "_meta")
	if mcptest.ToJSON(t, got) != mcptest.ToJSON(t, done) {
		t.Fatalf("the notification differs from tasks/get:\n%s\n%s", mcptest.ToJSON(t, done), mcptest.ToJSON(t, got))
	}
	quiet(t, ch)
}

// Failed and cancelled tasks are told too, the failure with its JSON-RPC error; a task that
// ended before its client listened is told at once, ended.
func TestTaskStatusNotificationsOfEndedTasks(t *testing.T) {
	tools, url, _ := taskFront(t, tasks.Limits{}, Options{})
	broken := mcptest.StartAs(t, url, "broken")
	mcptest.WaitStatus(t, url, broken, tasks.Failed)
	work := mcptest.StartAs(t, url, "work")
	_, ch := listenTo(t, url, `{"taskIds":["`+broken+`","`+work+`"]}`, mcptest.WithTasks)
	next(t, ch)
	if n := nextTask(t, ch); n["taskId"] != broken || n["status"] != tasks.Failed ||
		mcptest.ToJSON(t, n["error"]) != `{"code":-32000,"message":"the backend is down"}` {
		t.Fatalf("the failed task: %+v", n)
	}
	if n := nextTask(t, ch); n["taskId"] != work || n["status"] != tasks.Working {
		t.Fatalf("the working task: %+v", n)
	}
	mcptest.Send(t, url, "tasks/cancel", `{"taskId":"`+work+`"}`, mcptest.WithTasks)
	if n := nextTask(t, ch); n["taskId"] != work || n["status"] != tasks.Cancelled {
		t.Fatalf("the cancelled task: %+v", n)
	}
	<-tools.Ended
	quiet(t, ch)
}

// A listener hears only of the tasks it named: another task's changes do not reach it, nor
// does a listener that asked for no tasks hear any.
func TestTaskNotificationsOnlyForTheTasksNamed(t *testing.T) {
	tools, url, _ := taskFront(t, tasks.Limits{}, Options{})
	mine, other := mcptest.StartAs(t, url, "work"), mcptest.StartAs(t, url, "work")
	_, named := listenTo(t, url, `{"taskIds":["`+mine+`"]}`, mcptest.WithTasks)
	_, none := listenTo(t, url, `{"toolsListChanged":true}`, mcptest.WithTasks)
	next(t, named)
	next(t, none)
	nextTask(t, named)
	mcptest.Send(t, url, "tasks/cancel", `{"taskId":"`+other+`"}`, mcptest.WithTasks)
	<-tools.Ended
	quiet(t, named)
	quiet(t, none)
}

// Asking for task notifications without declaring the tasks extension is -32021, the same
// error the extension's methods give; more task ids than a listen stream holds is -32602.
func TestListenForTasksRefusals(t *testing.T) {
	_, url, _ := taskFront(t, tasks.Limits{}, Options{})
	for _, tt := range []struct {
		name, filter, caps string
		status, code       int
	}{
		{"no extension", `{"taskIds":["a"]}`, `{}`, http.StatusBadRequest, mcp.CodeMissingCapability},
		{"too many ids", `{"taskIds":` + mcptest.ToJSON(t, make([]string, (stream.MaxEvents-1)+1)) + `}`, mcptest.WithTasks, http.StatusOK, jsonrpc.CodeInvalidParams},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, ch := listenTo(t, url, tt.filter, tt.caps)
			var r struct{ Error *jsonrpc.Error }
			ev := within(t, ch)
			if err := json.Unmarshal([]byte(ev.data), &r); err != nil || status != tt.status || r.Error == nil || r.Error.Code != tt.code {
				t.Fatalf("got %d %s, want %d and error %d", status, ev.data, tt.status, tt.code)
			}
		})
	}
	// Without task ids the extension is not needed.
	if status, ch := listenTo(t, url, `{"taskIds":[]}`, `{}`); status != http.StatusOK || next(t, ch).Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("an empty taskIds without the extension: %d", status)
	}
}

// A task is its creator's: a request with another Authorization header, or none, is answered
// for it exactly as for a task that does not exist, cannot cancel or answer it, and cannot
// listen to it; the creator still can.
func TestATaskIsBoundToItsCreator(t *testing.T) {
	tools, url, _ := taskFront(t, tasks.Limits{}, Options{})
	alice, bob := []string{"Authorization", "Bearer alice"}, []string{"Authorization", "Bearer bob"}
	id := mcptest.StartAs(t, url, "ask", alice...)
	unknown := mcptest.Send(t, url, "tasks/get", `{"taskId":"0123456789abcdef0123456789abcdef"}`, mcptest.WithTasks, alice...)
	if unknown.Error == nil {
		t.Fatal("an unknown task was found")
	}
	unknownMsg := strings.ReplaceAll(unknown.Error.Message, "0123456789abcdef0123456789abcdef", id)
	for who, header := range map[string][]string{"another token": bob, "no token": nil} {
		for method, params := range map[string]string{
			"tasks/get":    `{"taskId":"` + id + `"}`,
			"tasks/cancel": `{"taskId":"` + id + `"}`,
			"tasks/update": `{"taskId":"` + id + `","inputResponses":{"who":{"action":"accept","content":{"name":"Eve"}}}}`,
		} {
			r := mcptest.Send(t, url, method, params, mcptest.WithTasks, header...)
			if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || r.Error.Message != unknownMsg || r.Status != unknown.Status {
				t.Errorf("%s, %s: %d %+v %+v, want %d %q", who, method, r.Status, r.Result, r.Error, unknown.Status, unknownMsg)
			}
		}
		_, ch := listenTo(t, url, `{"taskIds":["`+id+`"]}`, mcptest.WithTasks, header...)
		if ack := next(t, ch); ack.Params["notifications"] != nil && mcptest.ToJSON(t, ack.Params["notifications"]) != "{}" {
			t.Errorf("%s may listen to the task: %+v", who, ack)
		}
		quiet(t, ch)
	}
	_, ch := listenTo(t, url, `{"taskIds":["`+id+`"]}`, mcptest.WithTasks, alice...)
	next(t, ch)
	if n := nextTask(t, ch); n["status"] != tasks.InputRequired && n["status"] != tasks.Working {
		t.Fatalf("the creator's listener: %+v", n)
	}
	mcptest.Send(t, url, "tasks/update", `{"taskId":"`+id+`","inputResponses":{"who":{"action":"accept","content":{"name":"Ana"}}}}`, mcptest.WithTasks, alice...)
	var done map[string]any
	for done == nil || done["status"] != tasks.Completed {
		done = nextTask(t, ch)
	}
	if !strings.Contains(mcptest.ToJSON(t, done["result"]), "hello Ana") {
		t.Fatalf("the creator's task: %+v", done)
	}
	tools.ReleaseAll()
}

// A listener that takes nothing while its tasks change more than its queue holds is dropped:
// its place is free at once, its stream ends after what it held, and the tasks go on.
func TestATaskListenerThatFallsBehindIsDropped(t *testing.T) {
	tools, url, st := taskFront(t, tasks.Limits{MaxTasksPerOwner: 200}, Options{MaxSessions: 1})
	ids := make([]string, 200)
	for i := range ids {
		ids[i] = mcptest.StartAs(t, url, "work")
	}
	filter := `{"notifications":{"taskIds":` + mcptest.ToJSON(t, ids) + `}}`
	stalled := st.ServeStreamable(context.Background(), mcptest.ModernPost("subscriptions/listen", filter, mcptest.WithTasks)).Stream
	if stalled == nil {
		t.Fatal("no listen stream")
	}
	defer stalled.Close()
	if status, _ := listenTo(t, url, `{}`, mcptest.WithTasks); status != http.StatusServiceUnavailable {
		t.Fatalf("past the cap: %d", status)
	}
	for _, id := range ids { // the ack and 200 states, then 200 changes: more than the queue's 256
		mcptest.Send(t, url, "tasks/cancel", `{"taskId":"`+id+`"}`, mcptest.WithTasks)
		<-tools.Ended
	}
	if status, ch := listenTo(t, url, `{}`, mcptest.WithTasks); status != http.StatusOK || next(t, ch).Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("a listen after one fell behind: %d", status)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	held := 0
	for ; ; held++ {
		if _, err := stalled.Next(ctx); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("the stream given up did not end after %d events: %v", held, err)
		}
	}
	if held != stream.MaxEvents {
		t.Fatalf("the stream given up held %d events, want %d", held, stream.MaxEvents)
	}
}

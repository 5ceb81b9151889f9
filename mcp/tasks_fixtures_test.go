package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/octo-run/octo/mcp/tasks"

	"github.com/octo-run/octo/mcp/jsonrpc"
)

// taskTools are the tools the task tests call, each running its work as a task when it may:
// work waits until released or cancelled, ask asks the user a name, boom panics, broken ends
// in a JSON-RPC error, big answers more than the result limit, only needs a task.
type taskTools struct {
	release chan struct{} // closed (releaseAll): every work finishes
	once    sync.Once
	started chan struct{} // each work's start
	ended   chan string   // each work's end: "done" or "cancelled"
}

func (tt *taskTools) releaseAll() { tt.once.Do(func() { close(tt.release) }) }

func newTaskTools() *taskTools {
	return &taskTools{release: make(chan struct{}), started: make(chan struct{}, 64), ended: make(chan string, 64)}
}

func (*taskTools) ListTools(context.Context, *RequestContext, string) ([]Tool, string, error) {
	return []Tool{{Name: "work"}, {Name: "ask"}, {Name: "boom"}, {Name: "broken"}, {Name: "big"}, {Name: "only"}}, "", nil
}

func (tt *taskTools) CallTool(ctx context.Context, rc *RequestContext, name string, _ json.RawMessage) (*CallToolResult, error) {
	var run TaskFunc
	switch name {
	case "work", "only":
		if name == "only" {
			if err := rc.RequireTask(); err != nil {
				return nil, err
			}
		}
		run = func(ctx context.Context, _ *RequestContext) (*CallToolResult, error) {
			select {
			case tt.started <- struct{}{}:
			default: // nobody counts this many
			}
			select {
			case <-tt.release:
				tt.ended <- "done"
				return &CallToolResult{Content: []Content{TextContent("worked")}}, nil
			case <-ctx.Done():
				tt.ended <- "cancelled"
				return nil, ctx.Err()
			}
		}
	case "ask":
		run = func(ctx context.Context, rc *RequestContext) (*CallToolResult, error) {
			a, err := rc.Ask(ctx, "who", "elicitation/create", map[string]any{"message": "Your name?"})
			if err != nil {
				return nil, err
			}
			var answer struct{ Content struct{ Name string } }
			_ = json.Unmarshal(a, &answer)
			return &CallToolResult{Content: []Content{TextContent("hello " + answer.Content.Name)}}, nil
		}
	case "boom":
		run = func(context.Context, *RequestContext) (*CallToolResult, error) { panic("boom") }
	case "broken":
		run = func(context.Context, *RequestContext) (*CallToolResult, error) {
			return nil, jsonrpc.NewError(-32000, "the backend is down")
		}
	case "big":
		run = func(context.Context, *RequestContext) (*CallToolResult, error) {
			return &CallToolResult{Content: []Content{TextContent(strings.Repeat("x", 4096))}}, nil
		}
	default:
		return nil, ErrUnknownTool
	}
	return rc.RunTask(ctx, run)
}

// taskServer serves a server keeping tasks with limits over a real socket; its tasks are
// closed when the test ends.
func taskServer(t *testing.T, l tasks.Limits) (*Server, *taskTools, string) {
	t.Helper()
	tools := newTaskTools()
	s := &Server{Info: Implementation{Name: "tasks", Version: "1"}, Versions: RouterVersions, Tools: tools, Tasks: tasks.NewMemory(l)}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(statelessHandler(s))
	t.Cleanup(func() {
		tools.releaseAll()
		s.Tasks.Close()
		srv.Close()
	})
	return s, tools, srv.URL
}

// withTasks are client capabilities declaring the tasks extension.
const withTasks = `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`

// reply is a decoded JSON-RPC answer.
type reply struct {
	status int
	Result map[string]any
	Error  *jsonrpc.Error
}

// send POSTs a 2026-07-28 request over the socket; Mcp-Name mirrors a taskId as it mirrors a
// tool's name, and header overrides as modernPost takes them.
func send(t *testing.T, url, method, params, caps string, header ...string) reply {
	t.Helper()
	in := modernPost(method, params, caps)
	var p struct{ TaskID any }
	if json.Unmarshal([]byte(params), &p) == nil {
		if id, ok := p.TaskID.(string); ok {
			in.Header.Set(HeaderName, id)
		}
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			in.Header.Del(header[i])
		} else {
			in.Header.Set(header[i], header[i+1])
		}
	}
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(string(in.Body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = in.Header
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %d %s", method, resp.StatusCode, b)
	}
	return r
}

// start calls tool as a task and returns its id.
func start(t *testing.T, url, tool string) string {
	t.Helper()
	r := send(t, url, "tools/call", `{"name":"`+tool+`"}`, withTasks)
	id, _ := r.Result["taskId"].(string)
	if r.Result["resultType"] != "task" || id == "" {
		t.Fatalf("%s did not become a task: %+v %+v", tool, r.Result, r.Error)
	}
	return id
}

// get returns the task's tasks/get answer.
func get(t *testing.T, url, id string) map[string]any {
	t.Helper()
	r := send(t, url, "tasks/get", `{"taskId":"`+id+`"}`, withTasks)
	if r.Error != nil {
		t.Fatalf("tasks/get %s: %v", id, r.Error)
	}
	return r.Result
}

// waitStatus polls the task until its status is want (or the test's deadline).
func waitStatus(t *testing.T, url, id, want string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		got := get(t, url, id)
		if got["status"] == want {
			return got
		}
		if got["status"] != tasks.Working && got["status"] != tasks.InputRequired {
			t.Fatalf("task %s ended %v, want %s: %+v", id, got["status"], want, got)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("task %s never became %s", id, want)
	return nil
}

// fakeClock is a clock a test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// toJSON encodes v for a test's comparison.
func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

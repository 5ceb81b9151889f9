package mcptest

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

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/tasks"
)

// TaskTools are the tools the task tests call, each running its work as a task when it may:
// work waits until released or cancelled, ask asks the user a name, boom panics, broken ends
// in a JSON-RPC error, big answers more than the result limit, only needs a task.
type TaskTools struct {
	release chan struct{} // closed (ReleaseAll): every work finishes
	once    sync.Once
	Started chan struct{} // each work's start
	Ended   chan string   // each work's end: "done" or "cancelled"
}

// ReleaseAll lets every work finish, now and from now on.
func (tt *TaskTools) ReleaseAll() { tt.once.Do(func() { close(tt.release) }) }

// NewTaskTools returns the task tools, their work held until ReleaseAll.
func NewTaskTools() *TaskTools {
	return &TaskTools{release: make(chan struct{}), Started: make(chan struct{}, 64), Ended: make(chan string, 64)}
}

func (*TaskTools) ListTools(context.Context, *mcp.RequestContext, string) ([]mcp.Tool, string, error) {
	return []mcp.Tool{{Name: "work"}, {Name: "ask"}, {Name: "boom"}, {Name: "broken"}, {Name: "big"}, {Name: "only"}}, "", nil
}

func (tt *TaskTools) CallTool(ctx context.Context, rc *mcp.RequestContext, name string, _ json.RawMessage) (*mcp.CallToolResult, error) {
	var run mcp.TaskFunc
	switch name {
	case "work", "only":
		if name == "only" {
			if err := rc.RequireTask(); err != nil {
				return nil, err
			}
		}
		run = func(ctx context.Context, _ *mcp.RequestContext) (*mcp.CallToolResult, error) {
			select {
			case tt.Started <- struct{}{}:
			default: // nobody counts this many
			}
			select {
			case <-tt.release:
				tt.Ended <- "done"
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("worked")}}, nil
			case <-ctx.Done():
				tt.Ended <- "cancelled"
				return nil, ctx.Err()
			}
		}
	case "ask":
		run = func(ctx context.Context, rc *mcp.RequestContext) (*mcp.CallToolResult, error) {
			a, err := rc.Ask(ctx, "who", "elicitation/create", map[string]any{"message": "Your name?"})
			if err != nil {
				return nil, err
			}
			var answer struct{ Content struct{ Name string } }
			_ = json.Unmarshal(a, &answer)
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("hello " + answer.Content.Name)}}, nil
		}
	case "boom":
		run = func(context.Context, *mcp.RequestContext) (*mcp.CallToolResult, error) { panic("boom") }
	case "broken":
		run = func(context.Context, *mcp.RequestContext) (*mcp.CallToolResult, error) {
			return nil, jsonrpc.NewError(-32000, "the backend is down")
		}
	case "big":
		run = func(context.Context, *mcp.RequestContext) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(strings.Repeat("x", 4096))}}, nil
		}
	default:
		return nil, mcp.ErrUnknownTool
	}
	return rc.RunTask(ctx, run)
}

// TaskServer serves a server keeping tasks with limits over a real socket; its tasks are
// closed when the test ends.
func TaskServer(t *testing.T, l tasks.Limits) (*mcp.Server, *TaskTools, string) {
	t.Helper()
	tools := NewTaskTools()
	s := &mcp.Server{Info: mcp.Implementation{Name: "tasks", Version: "1"}, Versions: mcp.RouterVersions, Tools: tools, Tasks: tasks.NewMemory(l)}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(StatelessHandler(s))
	t.Cleanup(func() {
		tools.ReleaseAll()
		s.Tasks.Close()
		srv.Close()
	})
	return s, tools, srv.URL
}

// WithTasks are client capabilities declaring the tasks extension.
const WithTasks = `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`

// Reply is a decoded JSON-RPC answer.
type Reply struct {
	Status int
	Result map[string]any
	Error  *jsonrpc.Error
}

// Send POSTs a 2026-07-28 request over the socket; Mcp-Name mirrors a taskId as it mirrors a
// tool's name, and header overrides as ModernPost takes them.
func Send(t *testing.T, url, method, params, caps string, header ...string) Reply {
	t.Helper()
	in := ModernPost(method, params, caps)
	var p struct{ TaskID any }
	if json.Unmarshal([]byte(params), &p) == nil {
		if id, ok := p.TaskID.(string); ok {
			in.Header.Set(mcp.HeaderName, id)
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
	r := Reply{Status: resp.StatusCode}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %d %s", method, resp.StatusCode, b)
	}
	return r
}

// Start calls tool as a task and returns its id.
func Start(t *testing.T, url, tool string) string {
	t.Helper()
	r := Send(t, url, "tools/call", `{"name":"`+tool+`"}`, WithTasks)
	id, _ := r.Result["taskId"].(string)
	if r.Result["resultType"] != "task" || id == "" {
		t.Fatalf("%s did not become a task: %+v %+v", tool, r.Result, r.Error)
	}
	return id
}

// Get returns the task's tasks/get answer.
func Get(t *testing.T, url, id string) map[string]any {
	t.Helper()
	r := Send(t, url, "tasks/get", `{"taskId":"`+id+`"}`, WithTasks)
	if r.Error != nil {
		t.Fatalf("tasks/get %s: %v", id, r.Error)
	}
	return r.Result
}

// WaitStatus polls the task until its status is want (or the test's deadline).
func WaitStatus(t *testing.T, url, id, want string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		got := Get(t, url, id)
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

// FakeClock is a clock a test moves by hand.
type FakeClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewFakeClock is a clock at t.
func NewFakeClock(t time.Time) *FakeClock { return &FakeClock{now: t} }

func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *FakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// ToJSON encodes v for a test's comparison.
func ToJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// StartAs calls tool as a task with the given headers and returns its id.
func StartAs(t *testing.T, url, tool string, header ...string) string {
	t.Helper()
	r := Send(t, url, "tools/call", `{"name":"`+tool+`"}`, WithTasks, header...)
	id, _ := r.Result["taskId"].(string)
	if r.Result["resultType"] != "task" || id == "" {
		t.Fatalf("%s did not become a task: %+v %+v", tool, r.Result, r.Error)
	}
	return id
}

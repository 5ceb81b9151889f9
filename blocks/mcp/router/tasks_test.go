package router_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// taskingRouter has a tool whose branch runs as a task for clients that take tasks.
const taskingRouter = `connectors: [ { name: api, type: http, settings: { port: %d } } ]
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        tasks: { ttl: 1m }
        tools:
          - name: report
            description: builds a report
            task: optional
            process:
              - type: delay
                settings: { duration: %s }
              - type: set-payload
                settings: { value: '"report ready"' }
`

// taskCall is a 2026-07-28 request from a client that declares the tasks extension (or not).
func taskCall(method, params string, tasks bool) string {
	caps := `{}`
	if tasks {
		caps = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	}
	return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":` + caps + `},` + params + `}}`
}

// taskHeaders are the headers of a 2026-07-28 request of method naming name.
func taskHeaders(method, name string) []string {
	return []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", method, "Mcp-Name", name}
}

// awaitTask reads the task a tools/call started (created, its answer) until it is no longer
// working, and returns the last tasks/get answer.
func awaitTask(t *testing.T, post func(string, ...string) (int, string), created string) string {
	t.Helper()
	var c struct {
		Result struct{ ResultType, TaskID string }
	}
	if json.Unmarshal([]byte(created), &c) != nil || c.Result.ResultType != "task" {
		t.Fatalf("the call did not start a task: %s", created)
	}
	id := c.Result.TaskID
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, body := post(taskCall("tasks/get", `"taskId":"`+id+`"`, true), taskHeaders("tasks/get", id)...)
		if !strings.Contains(body, `"status":"working"`) || time.Now().After(deadline) {
			return body
		}
	}
}

// A tool with task runs its branch as a task for a client that declares the extension, in the
// call for one that does not; server/discover declares tasks only on such a router.
func TestRouterToolRunsAsATask(t *testing.T) {
	post := startRouter(t, "")
	if _, body := post(taskCall("server/discover", `"x":1`, true), "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "server/discover"); strings.Contains(body, "extensions") {
		t.Fatalf("a router without task tools declares tasks: %s", body)
	}
	_, base := runtimetest.Serve(t, fmt.Sprintf(taskingRouter, 0, "50ms"), "api", &runtimetest.Buffer{})
	post = poster(t, base+"/mcp")
	if _, body := post(taskCall("tools/call", `"name":"report"`, false), taskHeaders("tools/call", "report")...); !strings.Contains(body, `"resultType":"complete","content":[{"type":"text","text":"report ready"}]`) {
		t.Fatalf("in the call: %s", body)
	}
	_, created := post(taskCall("tools/call", `"name":"report"`, true), taskHeaders("tools/call", "report")...)
	body := awaitTask(t, post, created)
	if !strings.Contains(body, `"status":"completed"`) || !strings.Contains(body, `"result":{"content":[{"type":"text","text":"report ready"}]}`) {
		t.Fatalf("the task: %s", body)
	}
}

// A router's tasks end when it stops: a branch waiting an hour does not hold Stop up.
func TestRouterTasksStopWithTheService(t *testing.T) {
	before := goleak.IgnoreCurrent()
	svc, base := runtimetest.Serve(t, fmt.Sprintf(taskingRouter, 0, "1h"), "api", &runtimetest.Buffer{})
	post := poster(t, base+"/mcp")
	_, body := post(taskCall("tools/call", `"name":"report"`, true), "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "report")
	if !strings.Contains(body, `"resultType":"task"`) {
		t.Fatalf("as a task: %s", body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := svc.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	http.DefaultClient.CloseIdleConnections()
	goleak.VerifyNone(t, before) // the task's branch has ended too
}

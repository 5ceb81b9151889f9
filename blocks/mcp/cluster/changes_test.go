package cluster_test

import (
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/blocks/mcp/mock"
	"github.com/octo-run/octo/connectors/nats/natstest"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// mockConfig is a mock server in the cluster at url, under prefix, with tools: the YAML that
// follows "tools:".
func mockConfig(url, prefix, tools string) string {
	return `service:
  name: mocks
  cluster: { url: '` + url + `', prefix: ` + prefix + ` }
connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-mock
        settings:
          tools:` + tools
}

// edit hands the mock of svc new settings, as a live edit does.
func edit(t *testing.T, svc *runtime.Service, settings string) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(settings), &doc); err != nil {
		t.Fatal(err)
	}
	d, ds := runtime.DecodeBlockSettings("mcp-mock", doc.Content[0], config.Where{File: "edit.yaml"})
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	if _, err := svc.Instance("flows.mcp.process[0]").(*mock.Block).Server().Update(d); err != nil {
		t.Fatal(err)
	}
}

// next is the next notification of notes within wait, or "" when none came.
func next(notes <-chan runtimetest.Note, wait time.Duration) string {
	select {
	case n := <-notes:
		return n.Method
	case <-time.After(wait):
		return ""
	}
}

func TestAnEditOnOneReplicaIsToldOnAnotherOnce(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	svcA, _ := runtimetest.Serve(t, mockConfig(ns.ClientURL(), "changes", " [ { name: first, result: one } ]\n"), "api", nil)
	svcB, base := runtimetest.Serve(t, mockConfig(ns.ClientURL(), "changes", " [ { name: first, result: one } ]\n"), "api", nil)
	notes := runtimetest.Modern{URL: base + "/mcp"}.Subscribe(t, `{"toolsListChanged":true}`)

	const two = "tools: [ { name: first, result: one }, { name: second, result: two } ]"
	edit(t, svcA, two) // on a only
	if got := next(notes, 5*time.Second); got != "notifications/tools/list_changed" {
		t.Fatalf("a listen stream on b heard %q of an edit on a", got)
	}
	edit(t, svcB, two) // b reloads the same edit: its clients know already
	if got := next(notes, 500*time.Millisecond); got != "" {
		t.Fatalf("the same edit was told twice: %q", got)
	}
	edit(t, svcB, "tools: [ { name: third, result: three } ]") // a new one, made on b
	if got := next(notes, 5*time.Second); got != "notifications/tools/list_changed" {
		t.Fatalf("an edit on b was not told on b: %q", got)
	}
}

// A task's question is answered on another replica than the one that works on it: tasks/update
// there, and the work goes on with the answer.
func TestATasksQuestionIsAnsweredOnAnotherReplica(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	cfg := mockConfig(ns.ClientURL(), "ask", `
            - name: greet
              task: optional
              steps:
                - elicit: Your name?
                  schema: { type: object, properties: { name: { type: string } } }
                  as: who
              result: "Hello, {{args.who.content.name}}!"
`)
	const caps = `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	_, base := runtimetest.Serve(t, cfg, "api", nil)
	a := runtimetest.Modern{URL: base + "/mcp", Caps: caps}
	id := a.StartTask(t, "greet", `{}`)
	a.WaitTask(t, id, "input_required") // a alone took the work, and waits for the answer
	_, base2 := runtimetest.Serve(t, cfg, "api", nil)
	b := runtimetest.Modern{URL: base2 + "/mcp", Caps: caps}
	asked := b.WaitTask(t, id, "input_required")
	var key string
	for k := range asked["inputRequests"].(map[string]any) {
		key = k
	}
	if r := b.Call(t, "tasks/update", `{"taskId":"`+id+`","inputResponses":{"`+key+`":{"action":"accept","content":{"name":"Ada"}}}}`); r.Error != nil {
		t.Fatalf("tasks/update: %+v", r.Error)
	}
	if done := a.WaitTask(t, id, "completed"); !strings.Contains(runtimetest.JSON(t, done["result"]), "Hello, Ada!") {
		t.Fatalf("%+v", done)
	}
}

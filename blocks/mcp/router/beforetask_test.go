package router_test

import (
	"strings"
	"testing"
)

// namingTools ask for a name before their task starts, then greet with it as the task.
const namingTools = `
        tools:
          - name: greet
            description: asks who, then greets as a task
            task: optional
            beforeTask:
              - type: ask
                settings:
                  elicit: { message: 'Who is {{ body.who }}?', schema: { type: object, properties: { name: { type: string } }, required: [name] } }
                  into: vars.user
            process:
              - type: set-payload
                settings: { value: '"Hello, " + vars.user.content.name + "!"' }
`

// A tool's beforeTask asks in the call (input_required, no task yet); the call sent again with
// the answer becomes the task, which greets with that answer without asking again. A client
// that takes no tasks is asked once, in the call.
func TestBeforeTaskAsksInTheCallAndTheTaskKeepsTheAnswer(t *testing.T) {
	base := serveRouter(t, namingTools)
	post := poster(t, base+"/mcp")
	call := func(tasks bool, answers string) string {
		caps := `{"elicitation":{}}`
		if tasks {
			caps = `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
		}
		_, body := post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"who":"there"},`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":`+caps+`}`+answers+`}}`,
			taskHeaders("tools/call", "greet")...)
		return body
	}
	body := call(true, "")
	if !strings.Contains(body, `"resultType":"input_required"`) || !strings.Contains(body, `"user":{"method":"elicitation/create"`) ||
		!strings.Contains(body, `Who is there?`) || strings.Contains(body, "taskId") {
		t.Fatalf("round 1 is not an input_required result asking for user, without a task: %s", body)
	}
	const answer = `,"inputResponses":{"user":{"action":"accept","content":{"name":"Alice"}}}`
	created := call(true, answer)
	if strings.Contains(created, "inputRequests") {
		t.Fatalf("round 2 asks again: %s", created)
	}
	body = awaitTask(t, post, created)
	if !strings.Contains(body, `"status":"completed"`) || !strings.Contains(body, `"text":"Hello, Alice!"`) {
		t.Fatalf("the task did not greet with the answer given before it: %s", body)
	}
	if body = call(false, answer); !strings.Contains(body, `"resultType":"complete"`) || !strings.Contains(body, `"text":"Hello, Alice!"`) {
		t.Fatalf("a client without tasks: %s", body)
	}
}

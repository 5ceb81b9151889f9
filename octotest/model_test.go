package octotest_test

import (
	"testing"
)

// agentFlow asks a model at ${API} with one tool, a set-payload branch.
const agentFlow = `
env:
  - { name: API, default: "http://127.0.0.1:1" }
connectors:
  - { name: api, type: http, settings: { port: 0 } }
flows:
  - name: ask
    source: { connector: api, settings: { path: /ask, methods: [POST] } }
    process:
      - type: ai-agent
        settings:
          baseUrl: ${API}/v1
          model: m1
          prompt: '{{ body.question }}'
          maxIterations: 3
          tools:
            - name: forecast
              description: The forecast.
              inputSchema: '{"type": "object", "properties": {"city": {"type": "string"}}}'
              process:
                - type: set-payload
                  settings: { value: '{"city": body.city, "sky": "clear"}' }
`

// toolCall is a chat completions answer that calls forecast.
const toolCall = `{ choices: [{ message: { role: assistant, tool_calls: [{ id: c1, type: function, function: { name: forecast, arguments: '{"city": "Oslo"}' } }] } }] }`

// An ai-agent's model is answered by the case's stubs, as http-request's backends are: a case
// scripts the model's answers in order with times, checks what the loop sent back, and never
// reaches the model's server. A model that asks more than the script holds fails the case
// naming the call; one stub without times answers every call.
func TestStubsScriptAnAgentsModel(t *testing.T) {
	url, hits := backend(t)
	dir := write(t, agentFlow, `cases:
  - name: a tool call, then the answer
    request: { flow: ask, body: { question: "Sky in Oslo?" } }
    stubs:
      - { method: POST, url: "`+url+`/v1/chat/completions", times: 1, body: `+toolCall+`,
          expect: { body: { model: m1, messages: [{ role: user, content: "Sky in Oslo?" }] } } }
      - method: POST
        url: "`+url+`/v1/chat/completions"
        expect:
          body: { messages: [{ role: user }, { role: assistant }, { role: tool, tool_call_id: c1, content: '{"city":"Oslo","sky":"clear"}' }] }
        body: { choices: [{ message: { role: assistant, content: "Clear." } }] }
    expect:
      body: Clear.
      vars: { agent: { iterations: 2 } }
  - name: a model that asks past the script fails the case
    request: { flow: ask, body: { question: "Sky?" } }
    stubs:
      - { urlPattern: '.*', times: 1, body: `+toolCall+` }
    expect: { status: 502 }
  - name: a stub without times answers every call
    request: { flow: ask, body: { question: "Sky?" } }
    stubs:
      - { urlPattern: '.*', body: `+toolCall+` }
    expect: { status: 502 }
`)
	sum, out := run(t, dir, map[string]string{"API": url})
	if sum.Passed != 2 || sum.Failed != 1 {
		t.Fatalf("summary %+v\n%s", sum, out)
	}
	reports(t, out, "FAIL", "a model that asks past the script fails the case",
		"no stub with calls left matches the call POST "+url+"/v1/chat/completions")
	if hits.Load() != 0 {
		t.Errorf("the model's server got %d requests", hits.Load())
	}
}

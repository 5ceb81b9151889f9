package octotest_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/octo-run/octo/octotest"
)

// routerOnStdio is a router served by a stdio connector, as `octo run` serves it to a client
// that starts it as a command; forecast logs a line (a notifications/message before its answer)
// and calls an API through http-request (stubbed by cases), and slow never answers within a
// case's time.
const routerOnStdio = `
env:
  - { name: API, default: "http://127.0.0.1:1" }
connectors:
  - { name: io, type: stdio }
flows:
  - name: mcp
    source: { connector: io }
    process:
      - type: mcp-router
        serverName: weather-stdio
        logging: { level: info }
        tools:
          - name: forecast
            inputSchema: '{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}'
            process:
              - { type: log, settings: { message: 'asking for {{ body.city }}' } }
              - type: http-request
                settings: { url: "${API}/forecast", query: { city: "{{ body.city }}" } }
              - type: set-payload
                settings: { value: '{"city": body.city, "sky": body.sky}' }
          - name: slow
            process:
              - type: delay
                settings: { duration: 1h }
`

// MCP cases reach a router on a stdio connector through the connector itself, over a pipe, one
// JSON-RPC message a line: the handshake, the request, the same expectations and stubs as over
// HTTP. A wrong expectation fails with the difference, and a tool that never answers fails at
// the case's timeout, saying so, with the service stopped and nothing left running.
func TestMCPCasesRunOverTheStdioConnector(t *testing.T) {
	dir := write(t, routerOnStdio, `cases:
  - name: forecast answers from the stubbed API
    mcp: { tool: forecast, arguments: { city: Oslo } }
    stubs:
      - { method: GET, url: "http://127.0.0.1:1/forecast?city=Oslo", body: { city: Oslo, sky: clear } }
    expect:
      text: '{"city":"Oslo","sky":"clear"}'
  - name: forecast needs a city
    mcp: { tool: forecast, arguments: {} }
    expect: { isError: true, textContains: [city] }
  - name: lists both tools
    mcp: { list: tools }
    expect: { paths: { tools.0.name: forecast, tools.1.name: slow } }
  - name: an unknown method is a JSON-RPC error
    mcp: { method: tools/destroy }
    expect: { error: { code: -32601 } }
  - name: ping answers
    mcp: { method: ping }
    expect: { body: {} }
  - name: expects a sky it does not get
    mcp: { tool: forecast, arguments: { city: Oslo } }
    stubs:
      - { urlPattern: "/forecast", body: { city: Oslo, sky: rain } }
    expect:
      paths: { structuredContent.sky: clear }
      textContains: [clear]
  - name: a tool that never answers
    timeout: 300ms
    mcp: { tool: slow }
`)
	sum, out := run(t, dir, nil)
	if sum.Passed != 5 || sum.Failed != 2 {
		t.Fatalf("summary %+v\n%s", sum, out)
	}
	reports(t, out,
		"ok   "+dir+"/tests/cases.yaml:2: forecast answers from the stubbed API",
		"ok   "+dir+"/tests/cases.yaml:17: ping answers",
		"FAIL "+dir+"/tests/cases.yaml:20: expects a sky it does not get",
		`paths.structuredContent.sky: expected "clear", got nothing (no such path)`,
		`textContains: expected the text to contain "clear", got "{\"city\":\"Oslo\",\"sky\":\"rain\"}"`,
		"FAIL "+dir+"/tests/cases.yaml:27: a tool that never answers",
		"mcp: tools/call: the flow wrote no answer in time",
		"the case took longer than its timeout, 300ms",
	)
}

// What a pipe cannot carry (HTTP's status, headers, path, method, and vars, which no stdio
// delivery holds for a call) fails the case by key before anything is sent.
func TestWhatStdioCannotCarryFailsTheCaseByKey(t *testing.T) {
	dir := write(t, routerOnStdio, `cases:
  - name: asks for HTTP over a pipe
    mcp: { list: tools, headers: { Authorization: Bearer x }, path: /mcp }
    expect: { status: 200, headers: { Content-Type: application/json }, vars: { jwt: { sub: a } } }
`)
	sum, out := run(t, dir, nil)
	if sum.Failed != 1 {
		t.Fatalf("summary %+v\n%s", sum, out)
	}
	on := `flow "mcp" is served over stdio (connector "io"), `
	reports(t, out,
		"mcp.headers: "+on+"whose messages carry no headers",
		"mcp.path: "+on+"which has no paths",
		"expect.status: "+on+"which has no HTTP status",
		"expect.headers: "+on+"whose answers carry no headers",
		"expect.vars: "+on+"where a call runs beside the session's lines",
	)
}

// onStdio starts a config whose flow is on a stdio connector.
const onStdio = `
connectors:
  - { name: io, type: stdio }
flows:
`

// lineFlow answers each line of its stdio connector with a JSON object, or waits for ever.
const lineFlow = onStdio + `
  - name: lines
    source: { connector: io }
    process:
      - type: switch
        cases:
          - when: 'body == "wait"'
            process:
              - { type: delay, settings: { duration: 1h } }
        default:
          - type: set-payload
            settings: { value: '{"got": body}' }
`

// A request case to a flow on stdio sends its body as one line and checks what the flow wrote
// for it; a flow that does not answer in time fails at the case's timeout.
func TestRequestCasesSendALineToAFlowOnStdio(t *testing.T) {
	dir := write(t, lineFlow, `cases:
  - name: a JSON body is one line
    request: { flow: lines, body: { name: Ada } }
    expect: { body: { got: { name: Ada } } }
  - name: text goes as written
    request: { flow: lines, text: '"hello"' }
    expect: { text: '{"got":"hello"}' }
  - name: a wrong expectation
    request: { flow: lines, text: '"hello"' }
    expect: { bodyContains: { got: bye } }
  - name: HTTP parts do not fit a line
    request: { flow: lines, method: POST, path: /x, text: "two\nlines" }
  - name: a line the flow never answers
    timeout: 200ms
    request: { flow: lines, body: wait }
`)
	sum, out := run(t, dir, nil)
	if sum.Passed != 2 || sum.Failed != 3 {
		t.Fatalf("summary %+v\n%s", sum, out)
	}
	on := `flow "lines" is served over stdio (connector "io"), `
	reports(t, out,
		`body.got: expected "bye", got "hello"`,
		"request.method: "+on+"which has no HTTP methods",
		"request.path: "+on+"which has no paths",
		"request.text: "+on+"where a message is one line",
		"request: the flow did not finish answering in time",
		"the case took longer than its timeout, 200ms",
	)
}

// An mcp case to a flow on stdio that does not speak JSON-RPC fails on the first line it
// writes, showing it.
func TestALineThatIsNotJSONRPCFailsTheCase(t *testing.T) {
	dir := write(t, lineFlow, `cases:
  - name: not a server
    mcp: { flow: lines, list: tools }
`)
	sum, out := run(t, dir, nil)
	if sum.Failed != 1 {
		t.Fatalf("summary %+v\n%s", sum, out)
	}
	reports(t, out, `mcp: initialize: the flow wrote a line that is not a JSON-RPC message: {"got":{"id":1,"jsonrpc":"2.0","method":"initialize"`)
}

// A flow on a connector that is neither http nor stdio is refused by name, and the connector
// is not started.
func TestAFlowOnAnotherConnectorIsRefusedByName(t *testing.T) {
	dir := write(t, `
connectors:
  - { name: agents, type: agent, settings: { dataDir: `+t.TempDir()+` } }
flows:
  - name: tools
    source: { connector: agents }
    process:
      - type: set-payload
        settings: { value: '{"ok": true}' }
`, `cases:
  - { name: over the agent connector, mcp: { flow: tools, list: tools } }
`)
	sum, out := run(t, dir, nil)
	if sum.Failed != 1 {
		t.Fatalf("summary %+v\n%s", sum, out)
	}
	reports(t, out, `flow "tools": its source, connector "agents", is neither an http nor a stdio connector`)
}

// scriptedServer is an MCP server written as a line flow, so a test can make it ask the client
// things: it pings the client before answering initialize (and answers it only when the pong is
// {}), sends a notification for notifications/initialized, and asks for roots/list before
// answering tools/list with the error code the client answered.
const scriptedServer = onStdio + `
  - name: scripted
    source: { connector: io }
    process:
      - type: switch
        cases:
          - when: body?.method == "initialize"
            process:
              - { type: set-payload, settings: { value: '{"jsonrpc": "2.0", "id": "s1", "method": "ping"}' } }
          - when: body?.id == "s1" && body.result == {}
            process:
              - type: set-payload
                settings: { value: '{"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18"}}' }
          - when: body?.method == "notifications/initialized"
            process:
              - { type: set-payload, settings: { value: '{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}}' } }
          - when: body?.method == "tools/list"
            process:
              - { type: set-payload, settings: { value: '{"jsonrpc": "2.0", "id": "s2", "method": "roots/list"}' } }
          - when: body?.id == "s2"
            process:
              - type: set-payload
                settings: { value: '{"jsonrpc": "2.0", "id": 2, "result": {"tools": [], "roots": body?.result?.roots, "rootsError": body?.error?.code}}' }
        default:
          - { type: set-payload, settings: { value: '{"jsonrpc": "2.0", "id": 99, "result": {}}' } }
`

// Over stdio the client answers the server's requests as the case scripts them (ping always
// with {}), keeps its notifications, fails a case whose server asks what it did not script
// (answering -32601, so the call goes on), and fails a case on an answer to an id it did not
// ask.
func TestTheStdioClientAnswersTheServersRequests(t *testing.T) {
	dir := write(t, scriptedServer, `cases:
  - name: answers ping and roots/list
    mcp: { flow: scripted, list: tools }
    client:
      answers:
        - roots: [ { uri: "file:///work", name: work } ]
    expect:
      bodyContains: { tools: [], roots: [ { uri: "file:///work", name: work } ] }
      asked: [ { method: roots/list } ]
      notified: [ { method: notifications/message, params: { data: hi } } ]
  - name: an answer to another id
    mcp: { flow: scripted, method: ping }
  - name: a question not scripted
    mcp: { flow: scripted, list: tools }
    expect: { bodyContains: { rootsError: -32601 } }
`)
	sum, out := run(t, dir, nil)
	if sum.Passed != 1 || sum.Failed != 2 {
		t.Fatalf("summary %+v\n%s", sum, out)
	}
	reports(t, out, `mcp: ping: the flow answered id 99, which was not asked (the request is id 2): {"id":99,"jsonrpc":"2.0","result":{}}`,
		`FAIL `+dir+`/tests/cases.yaml:13: a question not scripted`,
		`the server asked roots/list ({}): the case (`+dir+`/tests/cases.yaml:13) has no client answer left for it: add one to client.answers`)
}

// routerOnHTTP is a router on an http connector, beside an API flow on the same one.
const routerOnHTTP = api + `
  - name: ping-api
    source: { connector: api, settings: { path: /ping } }
    process:
      - { type: set-payload, settings: { value: '{"pong": true}' } }
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        tools:
          - name: echo
            process:
              - { type: set-payload, settings: { value: '{"said": body.text}' } }
`

// With Stdio (octo test --stdio) the config is served as octo run --stdio serves it: the same
// mcp cases go over a pipe (HTTP's status no longer fits them), and the other flows keep their
// http connector.
func TestStdioServesTheConfigAsRunStdioDoes(t *testing.T) {
	dir := write(t, routerOnHTTP, `cases:
  - name: echo answers
    mcp: { tool: echo, arguments: { text: hi } }
    expect: { text: '{"said":"hi"}' }
  - name: an HTTP status
    mcp: { tool: echo, arguments: { text: hi } }
    expect: { status: 200 }
  - name: the API stays on HTTP
    request: { flow: ping-api }
    expect: { status: 200, body: { pong: true } }
`)
	if sum, out := run(t, dir, nil); sum.Passed != 3 {
		t.Fatalf("over HTTP: summary %+v\n%s", sum, out)
	}
	var out bytes.Buffer
	sum, err := octotest.Run(context.Background(), dir, octotest.Options{Out: &out, Stdio: true})
	if err != nil || sum.Passed != 2 || sum.Failed != 1 {
		t.Fatalf("over stdio: summary %+v, %v\n%s", sum, err, out.String())
	}
	reports(t, out.String(), `FAIL `+dir+`/tests/cases.yaml:5: an HTTP status`,
		`expect.status: flow "mcp" is served over stdio (connector "stdio"), which has no HTTP status`)
}

// A config that cannot be served over stdio is refused with Stdio as octo validate --stdio
// refuses it, at its line, and no case runs.
func TestStdioRefusesAConfigThatCannotServeOnStdio(t *testing.T) {
	dir := write(t, api+`
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - { type: jwt-validate, settings: { issuer: https://issuer.example, audience: https://mcp.example/mcp, jwksUrl: https://issuer.example/jwks } }
      - { type: mcp-router, tools: [ { name: t, process: [ { type: set-payload, settings: { value: '1' } } ] } ] }
`, `cases:
  - { name: t, mcp: { tool: t } }
`)
	_, err := octotest.Run(context.Background(), dir, octotest.Options{Stdio: true})
	if err == nil || !strings.Contains(err.Error(), "flow.yaml:9:9: flows[0].process[0].type (jwt-validate): needs messages from a connector of type http") {
		t.Fatalf("err %v", err)
	}
}

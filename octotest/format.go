package octotest

import (
	"time"

	"gopkg.in/yaml.v3"
)

// Dir is the folder beside a config that holds its test files: DIR/tests/*.yaml. A folder of
// its own, rather than *.test.yaml among the config's files, because a config folder is every
// YAML file in it: test files there would be read as config. The config loader does not
// descend, so tests/ is never mistaken for config, and an editor maps one glob to the schema.
const Dir = "tests"

// File is one test file: a list of cases.
type File struct {
	Cases []Case `yaml:"cases" octo:"required" doc:"The test cases, run in the order written, each on a service built for it alone (so no state leaks from one to the next)."`
}

// Case is one test case: a request (HTTP or MCP), what http-request calls answer, and what is
// expected back.
type Case struct {
	Name    string            `yaml:"name" octo:"required" doc:"What the case checks, as a sentence; octo test --run matches it." example:"greets a caller by name"`
	Env     map[string]string `yaml:"env" doc:"Values for the config's env variables in this case; they win over the process environment and the defaults." example:"{ API_BASE: https://api.example.com }"`
	Timeout time.Duration     `yaml:"timeout" default:"10s" min:">0" max:"5m" doc:"How long the case may take, its stubs' delays included; then it fails."`
	Request *Request          `yaml:"request" doc:"An HTTP request to a flow, the way a client sends it: for plain HTTP flows. To a flow on a stdio connector, its body (or text) is sent as one line, and what the flow writes for it is the answer. Set request or mcp."`
	MCP     *MCPRequest       `yaml:"mcp" doc:"An MCP request to a flow that serves MCP (mcp-router, mcp-mock, mcp-proxy), after the initialize handshake: over Streamable HTTP, or one JSON-RPC message a line when the flow's source is a stdio connector. Set request or mcp."`
	Client  *Client           `yaml:"client" doc:"How the case's MCP client behaves: the protocol revision it speaks and its answers to what the server asks it (elicitation, sampling, roots). Default: 2025-06-18, declaring no capabilities: a question of the server's then fails the case (ping is always answered). For an mcp case."`
	Stubs   []Stub            `yaml:"stubs" doc:"What http-request calls, and ai-agent blocks' calls to their model, get in this case, by method and URL, in place of the network: a call that no stub matches fails the case, naming its URL."`
	Expect  Expect            `yaml:"expect" doc:"What the answer must hold; what is left out is not checked, except that an HTTP answer must be 2xx unless status says otherwise and an MCP answer must not be an error unless error or isError says so."`
}

// Request is an HTTP request a case sends.
type Request struct {
	Flow    string            `yaml:"flow" doc:"The flow the request is for: it is sent to that flow's connector, to the flow's path unless path is set. Optional when the config has one http connector and path is set." example:"greet"`
	Method  string            `yaml:"method" enum:"GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS" octo:"anycase" doc:"The HTTP method. Default: the flow's first allowed method, else POST with a body and GET without. Not for a flow on stdio."`
	Path    string            `yaml:"path" doc:"The request path, with a query if any. Default: the flow's path. Not for a flow on stdio." example:"/greet?lang=fr"`
	Headers map[string]string `yaml:"headers" doc:"Request headers. Not for a flow on stdio." example:"{ Authorization: Bearer dev-token }"`
	Body    *yaml.Node        `yaml:"body" doc:"A value sent as JSON (Content-Type application/json unless headers set it), written as YAML or JSON." example:"{ name: Ada }"`
	Text    *string           `yaml:"text" doc:"A body sent as written, for flows that do not take JSON; set its Content-Type in headers (to a flow on stdio: one line, without line breaks). Set body or text."`
}

// MCPRequest is an MCP request a case sends: one of tool, list, read, prompt or method.
type MCPRequest struct {
	Flow      string            `yaml:"flow" doc:"The flow serving MCP. Optional when only one flow runs mcp-router, mcp-mock or mcp-proxy." example:"mcp"`
	Server    string            `yaml:"server" doc:"In a workspace of saved mock servers: the server's name. Optional when it has one server." example:"Weather mock"`
	Path      string            `yaml:"path" doc:"The path to post to. Default: the flow's path. Not for a flow on stdio."`
	Headers   map[string]string `yaml:"headers" doc:"Headers sent with every request of the case (the handshake too). Not for a flow on stdio." example:"{ Authorization: Bearer dev-token }"`
	Session   string            `yaml:"session" doc:"Against --server: the cases of this file naming the same session share one MCP session, in the order written. The first opens it (its client's protocol and capabilities, its headers or env); the others send their request on it, each with its own client answers and checks; it ends with the run. Default: each case has a session of its own. For a server that keeps state between calls." example:"cart"`
	Tool      string            `yaml:"tool" doc:"Call this tool (tools/call) with arguments." example:"forecast"`
	Progress  bool              `yaml:"progress" doc:"Ask for progress: the tool call carries a progress token (params._meta.progressToken, \"octo-test\"), so the server reports how far it got as notifications/progress, which expect.notified checks (progress, total, message). Over HTTP the answer then comes as an event stream."`
	Arguments *yaml.Node        `yaml:"arguments" doc:"The arguments of tool or prompt, as an object." example:"{ city: Paris }"`
	List      string            `yaml:"list" enum:"tools,resources,resourceTemplates,prompts" doc:"List what the server offers (tools/list, resources/list, resources/templates/list, prompts/list)."`
	Read      string            `yaml:"read" doc:"Read the resource at this URI (resources/read)." example:"octo://guide"`
	Prompt    string            `yaml:"prompt" doc:"Get this prompt (prompts/get) with arguments." example:"assist"`
	Method    string            `yaml:"method" doc:"Any other JSON-RPC method, sent with params." example:"ping"`
	Params    *yaml.Node        `yaml:"params" doc:"The params of method."`
}

// Stub answers the http-request calls (and an ai-agent's calls to its model) that match its
// method and URL.
type Stub struct {
	Method     string            `yaml:"method" enum:"GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS" octo:"anycase" doc:"The method the call must use. Default: any."`
	URL        string            `yaml:"url" doc:"The URL the call must go to, exactly, query included (in the order the block sends it: its query keys sorted). Set url or urlPattern." example:"https://api.example.com/v1/forecast?city=Paris"`
	URLPattern string            `yaml:"urlPattern" doc:"A regular expression (Go syntax) the whole URL must match. Set url or urlPattern." example:"^https://api\\.example\\.com/v1/forecast\\?city=.*$"`
	Status     int               `yaml:"status" default:"200" min:"100" max:"599" doc:"The answer's status."`
	Headers    map[string]string `yaml:"headers" doc:"The answer's headers. Content-Type defaults to application/json with body, text/plain with text."`
	Body       *yaml.Node        `yaml:"body" doc:"The answer's body, a value sent as JSON." example:"{ temperature: 21 }"`
	Text       *string           `yaml:"text" doc:"The answer's body as written. Set body or text."`
	Times      int               `yaml:"times" min:"0" doc:"How many calls the stub answers at most; later calls go to the next stub that matches. Default (0): every call. Scripts a sequence on one URL, such as a model that first calls a tool and then answers: the first stub with times: 1, the next after it." example:"1"`
	Delay      time.Duration     `yaml:"delay" min:"0" max:"5m" doc:"How long the backend takes to answer: a call whose block times out first fails as it would."`
	Expect     *StubExpect       `yaml:"expect" doc:"What a call this stub answers must carry; a call that carries something else is still answered, and fails the case saying what differs."`
}

// StubExpect is what a stubbed call must carry.
type StubExpect struct {
	Headers map[string]string `yaml:"headers" doc:"Request headers, each with exactly this value; an empty value means the header is absent." example:"{ Authorization: Bearer dev-token }"`
	Body    *yaml.Node        `yaml:"body" doc:"A part of the request's JSON body, as expect.bodyContains." example:"{ city: Lisbon }"`
}

// Expect is what a case's answer must hold. For an MCP case, body, bodyContains and paths look
// at the JSON-RPC result, and text at the text of its content.
type Expect struct {
	Status       int                   `yaml:"status" min:"100" max:"599" doc:"The HTTP status. Default: any 2xx. Not for a flow on stdio."`
	Headers      map[string]string     `yaml:"headers" doc:"Answer headers, each with exactly this value (several values joined by \", \"); an empty value means the header is absent. Not for a flow on stdio." example:"{ Content-Type: application/json }"`
	Body         *yaml.Node            `yaml:"body" doc:"The body, exactly, as a JSON value: objects with the same keys, lists of the same length, numbers by value." example:"{ greeting: \"Hello, Ada!\" }"`
	BodyContains *yaml.Node            `yaml:"bodyContains" doc:"A part of the body: each key written must be there with a matching value, recursively; lists match item by item, and a list must have at least the items written." example:"{ city: Paris }"`
	Paths        map[string]*yaml.Node `yaml:"paths" doc:"Values at paths into the body, each exactly: keys joined by dots, list items by index (items.0.name, or items[0].name)." example:"{ structuredContent.city: Paris }"`
	Text         *string               `yaml:"text" doc:"The body as text, exactly; for an MCP case the text of the result's content (tool results, resource contents, prompt messages), joined by newlines."`
	TextContains []string              `yaml:"textContains" doc:"Pieces of text the body (or the MCP result's text) must contain." example:"[Sunny]"`
	Vars         *yaml.Node            `yaml:"vars" doc:"A part of the flow's vars at its end (as bodyContains): what blocks left, such as vars.http from http-request or vars.jwt from jwt-validate. Not for a flow on stdio." example:"{ http: { status: 200 } }"`
	IsError      *bool                 `yaml:"isError" doc:"For a tool call: whether the result is a tool error (isError). Default: false."`
	Error        *RPCError             `yaml:"error" doc:"For an MCP case: the JSON-RPC error expected instead of a result."`
	Asked        []Message             `yaml:"asked" doc:"For an MCP case: what the server asked the client during the call, in order, each as a method and a part of its params (as bodyContains). Questions past the ones written are not checked here (each must have had a scripted answer)."`
	Listed       map[string]*yaml.Node `yaml:"listed" doc:"For an mcp list case: what the list must hold, wherever it is in it, by name (a tool's or prompt's name, a resource's uri, a template's uriTemplate), each with a part of the item it must match (as bodyContains), or {} for being there at all." example:"{ forecast: { annotations: { readOnlyHint: true } }, assist: {} }"`
	Unlisted     []string              `yaml:"unlisted" doc:"For an mcp list case: names the list must not hold." example:"[admin_reset]"`
	Ignore       []string              `yaml:"ignore" doc:"Paths into the body (an MCP case: the result) whose values change from run to run, such as ids and times: body and bodyContains leave them out, and --update does not write them. Written as in paths, with * for any key or list item." example:"[structuredContent.requestId, content.*.annotations.lastModified]"`
	Within       time.Duration         `yaml:"within" min:">0" doc:"How long the answer may take at most, from sending the request (the MCP call, not the handshake) to its answer: a slower one fails the case, naming both." example:"500ms"`
	Notified     []Message             `yaml:"notified" doc:"For an MCP case: notifications the server must have sent the client while answering the call (on its stream over HTTP), each as a method and a part of its params, in any order: such as notifications/elicitation/complete after a URL elicitation."`
}

// Client is how a case's MCP client behaves: the revision it speaks, and what it answers when
// the server asks it something. The capabilities it declares follow from the answers.
type Client struct {
	Protocol     string     `yaml:"protocol" enum:"2025-06-18,2025-11-25,2026-07-28" default:"2025-06-18" doc:"The protocol revision the client speaks, asked for in initialize. On 2026-07-28, which has no initialize, each request carries it (params._meta, and headers over HTTP), and an input_required result is answered from answers and the request sent again with inputResponses and requestState. URL-mode elicitation needs 2025-11-25 or later. Quote it: unquoted, YAML reads a date." example:"2025-11-25"`
	Capabilities *yaml.Node `yaml:"capabilities" doc:"The capabilities the client declares, as written, instead of those its answers imply: for a server that must refuse a client without one, or answer a declared one with something other than a question (-32042)." example:"{ elicitation: { url: {} } }"`
	Answers      []Answer   `yaml:"answers" doc:"The client's answers to the server's questions, used in order, one per question (ping is answered without one). They declare the capabilities: elicitation (in the modes the answers name, or both), sampling, roots. A question with no answer left, or whose next answer is of another kind, fails the case."`
}

// Answer is the client's answer to one question of the server: set elicit, sample or roots.
type Answer struct {
	Elicit  string     `yaml:"elicit" enum:"accept,decline,cancel" doc:"Answer elicitation/create with this action (the user accepted, declined or dismissed)." example:"accept"`
	Mode    string     `yaml:"mode" enum:"form,url" doc:"The elicitation's mode this answer is for: the request must be in it. Default: either, and the client declares both."`
	Content *yaml.Node `yaml:"content" doc:"The form's values an accepted form elicitation returns, an object. Default: {} (none)." example:"{ username: ada }"`
	Sample  *string    `yaml:"sample" doc:"Answer sampling/createMessage as a model that writes this text (model octo-test, stopReason endTurn)." example:"Sunny, 21 °C."`
	Roots   []Root     `yaml:"roots" doc:"Answer roots/list with these roots ([] for none)."`
}

// Root is a root the client gives in answer to roots/list.
type Root struct {
	URI  string `yaml:"uri" octo:"required" doc:"The root's URI." example:"file:///home/ada/project"`
	Name string `yaml:"name" doc:"A name for it." example:"project"`
}

// Message is a message of the server's, as a case expects it: its method and a part of its
// params.
type Message struct {
	Method string     `yaml:"method" octo:"required" doc:"The JSON-RPC method: elicitation/create, sampling/createMessage, roots/list; notifications/elicitation/complete, notifications/progress, notifications/message."`
	Params *yaml.Node `yaml:"params" doc:"A part of its params, as bodyContains."`
}

// RPCError is an expected JSON-RPC error.
type RPCError struct {
	Code    int    `yaml:"code" doc:"The error code, when it matters." example:"-32602"`
	Message string `yaml:"message" doc:"Text the error message must contain." example:"unknown tool"`
}

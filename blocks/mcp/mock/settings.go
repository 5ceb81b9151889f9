package mock

import (
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/tasks"
)

// Settings are the mcp-mock block's settings: in a workspace, the `mcp:` section of a saved
// server file. REFERENCE.md explains them with examples.
type Settings struct {
	ServerName    string             `yaml:"serverName" doc:"serverInfo.name in the initialize answer; default: the block's name (a saved server's name), else octo-mock."`
	Version       string             `yaml:"version" default:"1.0.0" doc:"serverInfo.version in the initialize answer."`
	Instructions  string             `yaml:"instructions" doc:"Instructions for the model, sent in the initialize answer." example:"Use get_weather for the weather in a city."`
	Path          string             `yaml:"path" default:"/mcp" doc:"The Streamable HTTP endpoint; /sse and /messages, the legacy HTTP+SSE pair, are served beside it and cannot be it."`
	CORS          bool               `yaml:"cors" doc:"A saved server's: answer browsers on other origins (preflights, Mcp-Session-Id exposed). In a flow config this is the http connector's cors."`
	Seed          *int64             `yaml:"seed" doc:"Makes {{$…}} values and the calls failureRate fails reproducible: the same seed gives the same values."`
	Variables     map[string]string  `yaml:"variables" doc:"Values for {{name}} tags in answers, filled in at load; they win over a workspace's variables. A name starts with a letter or _, then letters, digits, _, - or ." example:"{units: metric}"`
	Tools         []toolConfig       `yaml:"tools" doc:"The tools, answered from settings: one result text or content items, after optional steps (log, progress, delay, elicit, sample, listRoots)."`
	Resources     []resourceConfig   `yaml:"resources" doc:"The resources: fixed URIs, and URI templates whose parts are {{params.x}}; each answers with text or base64 blob."`
	Prompts       []promptConfig     `yaml:"prompts" doc:"The prompts, each a list of messages with one content item each."`
	Cache         *mcp.CacheSettings `yaml:"cache" doc:"Cache hints (ttlMs, cacheScope) on 2026-07-28 lists, reads and server/discover; default: not to be reused, private."`
	Tasks         *tasks.Settings    `yaml:"tasks" doc:"Limits of the tasks that tools with task: optional or required run as on 2026-07-28 (the tasks extension): how many are kept, for how long, and how large a result may be."`
	limitSettings `yaml:",inline"`
}

// Paths of the legacy HTTP+SSE transport, served beside path.
const (
	DefaultPath  = "/mcp"
	SSEPath      = "/sse"
	MessagesPath = "/messages"
)

type toolConfig struct {
	mcp.ToolFields `yaml:",inline"`
	Result         *string         `yaml:"result" doc:"The answer text (JSON text is fine), a template over {{args.x}}, variables and {{$…}} values. With outputSchema it must render to JSON that matches." example:"{\"city\": \"{{args.city}}\", \"forecast\": \"sunny\"}"`
	Content        []contentConfig `yaml:"content" doc:"The answer as several content items instead of result."`
	IsError        bool            `yaml:"isError" doc:"Send the answer as a failed call (isError, no structuredContent)."`
	DelayMs        int64           `yaml:"delayMs" min:"0" max:"3600000" doc:"Milliseconds to wait before answering, at most 3600000 (an hour); a client that sent a progress token gets notifications/progress meanwhile. A cancellation or the session ending stops the wait."`
	Enabled        bool            `yaml:"enabled" default:"true" doc:"false: the tool is neither listed nor callable."`
	Steps          []stepConfig    `yaml:"steps" doc:"Things done during the call, in order, before the answer: each one of log, progress, delayMs, sleep, elicit, sample or listRoots. On 2026-07-28 an elicit, sample or listRoots step is an input request of an input_required result instead of a request to the client."`
	Task           string          `yaml:"task" default:"never" enum:"never,optional,required" doc:"On 2026-07-28, whether the call runs as a task (the tasks extension, SEP-2663): optional, a task for a client that declared io.modelcontextprotocol/tasks, else answered in the call; required, a client that did not declare it gets error -32021; never, always answered in the call. The steps marked beforeTask run first, in the call. Older revisions always answer in the call."`
	AtMostOnce     bool            `yaml:"atMostOnce" doc:"In a cluster (service.cluster), a task whose replica is lost while it works fails instead of running again on another replica."`
	ProtocolError  *protocolError  `yaml:"protocolError" doc:"Answer the call, after its steps and delay, with this JSON-RPC error instead of a result: a protocol error, not a failed call (as a task: status failed)."`
	Answers        []answerConfig  `yaml:"answers" doc:"Answers that vary with the call, picked as answerOrder says; when none applies, the tool's own (result or content, isError, delayMs, protocolError). The traffic log says which one answered."`
	AnswerOrder    string          `yaml:"answerOrder" default:"match" enum:"match,sequence,cycle" doc:"How a call's answer is picked from answers: match, the first whose when holds; sequence, the session's first call the first answer, its second the second, and the last one from then on; cycle, the same, starting over after the last."`
	FailureRate    float64         `yaml:"failureRate" min:"0" max:"1" doc:"The share of calls (0 to 1) answered with failure instead, drawn from the server's seed when it has one, so a run can be repeated."`
	Failure        *answerConfig   `yaml:"failure" doc:"What a call picked by failureRate answers; default: a failed call (isError) saying the failure was simulated."`
}

// answerConfig is one of a tool's answers: when it applies, and what it answers.
type answerConfig struct {
	When          string          `yaml:"when" doc:"An expression that picks this answer (answerOrder match): over args (the arguments), headers (lower-case names; none on stdio), session (its id, \"\" without one) and call (the tool's calls in the session so far, this one included). Empty: always." example:"args.city == \"Paris\" || call > 3"`
	Result        *string         `yaml:"result" doc:"The answer text, a template as the tool's result is."`
	Content       []contentConfig `yaml:"content" doc:"The answer as several content items instead of result."`
	IsError       bool            `yaml:"isError" doc:"Send the answer as a failed call."`
	DelayMs       *int64          `yaml:"delayMs" min:"0" max:"3600000" doc:"Milliseconds to wait before this answer; default: the tool's delayMs."`
	ProtocolError *protocolError  `yaml:"protocolError" doc:"Answer with this JSON-RPC error instead of a result."`
}

// protocolError is a JSON-RPC error a tool answers with.
type protocolError struct {
	Code    int    `yaml:"code" default:"-32603" doc:"The error code."`
	Message string `yaml:"message" octo:"required" doc:"The error message." example:"The backend is down"`
}

// contentConfig is one content item of a result or a prompt message: exactly
// one of text, image, audio, resource or resourceLink.
type contentConfig struct {
	Text         *string         `yaml:"text" doc:"A text item: a template."`
	Image        *string         `yaml:"image" doc:"An image item: base64 data (line breaks allowed), with mimeType."`
	Audio        *string         `yaml:"audio" doc:"An audio item: base64 data (line breaks allowed), with mimeType."`
	MimeType     string          `yaml:"mimeType" doc:"The MIME type of an image or audio item (image/png, audio/wav)."`
	Resource     *embeddedConfig `yaml:"resource" doc:"An embedded resource: its uri with text or blob."`
	ResourceLink *linkConfig     `yaml:"resourceLink" doc:"A link to a resource (2025-06-18 and later; older clients get it as text)."`
}

// embeddedConfig is an embedded resource: its uri with text or blob.
type embeddedConfig struct {
	URI      string  `yaml:"uri" octo:"required" doc:"The resource's URI: a template."`
	MimeType string  `yaml:"mimeType" doc:"The MIME type of its contents."`
	Text     *string `yaml:"text" doc:"Its text contents: a template. Set this or blob."`
	Blob     *string `yaml:"blob" doc:"Its binary contents, base64. Set this or text."`
}

// linkConfig is a resource_link content item.
type linkConfig struct {
	URI                string `yaml:"uri" octo:"required" doc:"The linked resource's URI: a template."`
	mcp.ResourceFields `yaml:",inline"`
}

// stepConfig is one thing a tool does during a call, before it answers:
// exactly one of log, progress, delayMs, elicit, sample or listRoots, with
// the keys that belong to it.
type stepConfig struct {
	Log    *string `yaml:"log" doc:"Send notifications/message with this text (a template), honouring the client's logging/setLevel."`
	Level  string  `yaml:"level" default:"info" enum:"debug,info,notice,warning,error,critical,alert,emergency" doc:"A log step's level, as MCP names them (RFC 5424)."`
	Logger string  `yaml:"logger" doc:"A log step's logger name."`

	Progress *float64 `yaml:"progress" doc:"Send notifications/progress with this value, when the client sent a progress token."`
	Total    float64  `yaml:"total" doc:"A progress step's total."`
	Message  string   `yaml:"message" doc:"A progress step's message: a template."`

	DelayMs *int64  `yaml:"delayMs" min:"0" max:"3600000" doc:"Wait this many milliseconds (at most an hour), without progress."`
	Sleep   *string `yaml:"sleep" doc:"Wait for as long as this template renders to: a duration (500ms, 2s, 1.5m) or a number of milliseconds, at most an hour; anything else makes the call a failed one." example:"{{args.seconds}}s"`

	Elicit        *string           `yaml:"elicit" doc:"Ask the user through elicitation/create with this message, a template: for values (mode form) or to open a link (mode url)."`
	Schema        mcp.SchemaSetting `yaml:"schema" doc:"A form elicit step's requestedSchema, as JSON text or a YAML mapping; default: no fields."`
	urlStepConfig `yaml:",inline"`

	Sample       *string `yaml:"sample" doc:"Ask the client's model through sampling/createMessage with this prompt, a template, as one user message."`
	MaxTokens    int     `yaml:"maxTokens" doc:"A sample step's maxTokens; default 1000."`
	SystemPrompt string  `yaml:"systemPrompt" doc:"A sample step's system prompt: a template."`

	ListRoots bool `yaml:"listRoots" doc:"Ask the client for its roots through roots/list."`

	TimeoutMs int64 `yaml:"timeoutMs" default:"300000" min:"1" max:"3600000" doc:"How long an elicit, sample or listRoots step waits for the client's answer over a session, in milliseconds (at most an hour); then the call fails saying the client did not answer."`

	As       string `yaml:"as" doc:"Keep an elicit, sample or listRoots step's answer as {{args.<as>}} for later templates; not one of the tool's arguments. On 2026-07-28 it is also the key of the step's input request (default: step<N>, N counting from 1)."`
	Together bool   `yaml:"together" doc:"On 2026-07-28, ask this elicit, sample or listRoots step in the same round as the one before it (one input_required result naming both); else each is a round of its own."`
	Optional bool   `yaml:"optional" doc:"On 2026-07-28, skip this elicit, sample or listRoots step when the client did not declare the capability it needs; else such a call is error -32021."`

	BeforeTask bool `yaml:"beforeTask" doc:"For a tool with task set: run this step in the call, before the task starts (an elicit, sample or listRoots step is then an input request of an input_required result, its answer kept for the task). Such steps come first."`
}

type resourceConfig struct {
	URI                string `yaml:"uri" octo:"required" doc:"The resource's URI: fixed (listed under resources/list), or with {parts} a URI template (under resources/templates/list) whose parts are {{params.x}}." example:"docs://readme"`
	mcp.ResourceFields `yaml:",inline"`
	Text               *string `yaml:"text" doc:"Its text contents: a template. Set this or blob; mimeType defaults to text/plain."`
	Blob               *string `yaml:"blob" doc:"Its binary contents, base64. Set this or text; mimeType defaults to application/octet-stream."`
	Enabled            bool    `yaml:"enabled" default:"true" doc:"false: the resource is neither listed nor readable."`

	Completions map[string][]string `yaml:"completions" doc:"For a URI template: suggestions completion/complete offers for a {part}, by part name: the ones starting with what the user typed, in order, at most 100." example:"{city: [Lisbon, London, Lyon]}"`
}

type promptConfig struct {
	mcp.PromptFields `yaml:",inline"`
	Messages         []messageConfig     `yaml:"messages" doc:"The prompt's messages, each a role and one content item; templates see {{args.name}}."`
	Completions      map[string][]string `yaml:"completions" doc:"Suggestions completion/complete offers for an argument, by argument name: the ones starting with what the user typed, in order, at most 100." example:"{city: [Lisbon, London, Lyon]}"`
	Steps            []stepConfig        `yaml:"steps" doc:"Questions for the client before the messages render, in order: each one of elicit, sample or listRoots, its answer kept as {{args.<as>}}. Over a session they are requests to the client; on 2026-07-28, input requests of an input_required result."`
	Enabled          bool                `yaml:"enabled" default:"true" doc:"false: the prompt is neither listed nor available."`
}

// messageConfig is one prompt message: a role and one content item.
type messageConfig struct {
	Role          string `yaml:"role" default:"user" enum:"user,assistant" doc:"Who the message is from."`
	contentConfig `yaml:",inline"`
}

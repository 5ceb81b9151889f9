package router

import (
	"slices"

	"github.com/octo-run/octo/blocks/mcp/access"
	"github.com/octo-run/octo/blocks/mcp/mcpmsg"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/tasks"
	"github.com/octo-run/octo/mcp/uritemplate"
	"github.com/octo-run/octo/runtime"
)

// Settings are the router's keys, written at the block's top level (it is a composite block).
type Settings struct {
	ServerName string             `yaml:"serverName" doc:"serverInfo.name in the initialize answer; default: the block's name, else octo-mcp."`
	Tools      []toolSettings     `yaml:"tools" doc:"The tools, each a branch of blocks run with the call's arguments as the body; its final body is the result."`
	Resources  []resourceSettings `yaml:"resources" doc:"The resources, each a template resource rendered when read."`
	Prompts    []promptSettings   `yaml:"prompts" doc:"The prompts, each a template resource rendered with the arguments as the body."`
	// Versions the initialize handshake may agree on; 2026-07-28 requests need none.
	InitializeUpTo string             `yaml:"initializeUpTo" default:"2025-06-18" enum:"2025-06-18,2025-11-25" doc:"The newest revision initialize agrees on: 2025-06-18 (a client naming none gets 2024-11-05, an unknown one 2025-06-18), or 2025-11-25 as well. Requests of the stateless 2026-07-28 need no initialize and are served either way."`
	Cache          *mcp.CacheSettings `yaml:"cache" doc:"Cache hints (ttlMs, cacheScope) on 2026-07-28 lists, reads and server/discover; default: not to be reused, private."`
	Tasks          *tasks.Settings    `yaml:"tasks" doc:"Limits of the tasks the tools with task: optional or required run as on 2026-07-28 (the tasks extension): how many are kept, for how long, and how large a result may be. A task belongs to the caller that created it: the token subject a jwt-validate before the router accepted, else the Authorization header."`
	Logging        *loggingSettings   `yaml:"logging" doc:"Send the client the lines the tools' log blocks log, as notifications/message, and declare the logging capability; without it the router declares none and logging/setLevel is -32601."`
	// Limits on one POST (mcp.Server.MaxBatch, MaxResponseBytes); nil means the default.
	MaxBatch         *int   `yaml:"maxBatch" min:"1" doc:"Messages one JSON-RPC batch may hold; a longer batch gets one error and none of it runs. Default 100."`
	MaxResponseBytes *int64 `yaml:"maxResponseBytes" min:"1" doc:"Bytes of answers one POST may produce, or twice its body if that is more; an answer past it is error -32603. Default 16777216."`
	PageSize         *int   `yaml:"pageSize" min:"1" doc:"The most tools, resources, templates or prompts one page of a list holds; a longer list has pages, the next one named by nextCursor (a cursor the router did not give is -32602). Default 1000."`
}

// loggingSettings opt a router into MCP logging (mcp-router.md, Logs from tools).
type loggingSettings struct {
	Level string `yaml:"level" default:"info" enum:"debug,info,notice,warning,error,critical,alert,emergency" doc:"The least severe line sent; a log block's warn is warning. Over HTTP a tools/call from a client whose Accept names text/event-stream is answered as a stream that carries them (a progress token or not); over stdio every call does, and logging/setLevel can raise it for the session."`
}

type toolSettings struct {
	mcp.ToolFields `yaml:",inline"`
	BeforeTask     runtime.Branch       `yaml:"beforeTask" answers:"the tool's result" doc:"For a tool with task: blocks run in the call before its task starts, then again as the task begins, ahead of process (which reads the vars they set). Their asks are asked in the call (an input_required result on 2026-07-28), and the task gets the client's answers without asking again: for what a task cannot start without. Blocks with effects run twice; put those in process."`
	Process        runtime.Branch       `yaml:"process" octo:"required" answers:"the tool's result" follows:"beforeTask" doc:"The blocks that answer a call, run with the arguments as the body; a string body is the result's text, anything else its JSON."`
	Result         string               `yaml:"result" default:"text" enum:"text,content" doc:"How the branch's body becomes the result: text, a string as the text and anything else as its JSON (with outputSchema, also the structured content); content, a list of content items as MCP writes them (text, image and audio with base64 data and mimeType, resource_link, resource) or an object of content, and optionally isError and structuredContent."`
	Task           string               `yaml:"task" default:"never" enum:"never,optional,required" doc:"On 2026-07-28, whether the branch runs as a task (the tasks extension, SEP-2663): optional, a task for a client that declared io.modelcontextprotocol/tasks, else answered in the call; required, a client that did not declare it gets error -32021; never, always in the call. A task's branch gets no progress or log notifications. Older revisions always answer in the call."`
	Access         *access.Settings     `yaml:"access" doc:"Who may see and call the tool: scopes the caller's token must grant, an expression over the request, or both. A caller it refuses does not see the tool in tools/list, and a call gets HTTP 403 (a scope challenge for missing scopes) or, where the answer is not its own HTTP response (stdio, a stream, a batch), JSON-RPC error -32003."`
	RateLimit      *access.RateSettings `yaml:"rateLimit" doc:"How often each caller may call the tool: calls per interval, by the token's subject unless by says otherwise. A call past it gets HTTP 429 with Retry-After or, where the answer is not its own HTTP response, JSON-RPC error -32029; both say when to retry."`
	AtMostOnce     bool                 `yaml:"atMostOnce" doc:"In a cluster (service.cluster), a task whose replica is lost while its branch runs fails instead of running again on another replica: for branches whose effects must not happen twice. Without it the task is taken over and completes, its branch maybe run twice."`
}

type resourceSettings struct {
	URI                string `yaml:"uri" doc:"The resource's fixed URI, listed under resources/list; set this or uriTemplate." example:"octo://guide"`
	URITemplate        string `yaml:"uriTemplate" doc:"An RFC 6570 level-1 URI template (octo://cities/{name}) listed under resources/templates/list; its parts are the body when rendered."`
	mcp.ResourceFields `yaml:",inline"`
	Resource           runtime.TemplateResource `yaml:"resource" doc:"The alias of the template resource (resources.templates[].as) rendered as its text; set this or process."`
	Process            runtime.Branch           `yaml:"process" answers:"the resource's text" doc:"Blocks that make the text when the resource is read, run with the URI template's parts as the body ({} for a fixed uri): a string body is the text, anything else its JSON. A failure of kind not found is the protocol's resource not found. Set this or resource."`
	Binary             bool                     `yaml:"binary" doc:"The text the template or blocks make is base64 data, sent as the resource's blob (an image, a PDF): give its mimeType."`
	Completions        map[string][]string      `yaml:"completions" doc:"For a uriTemplate: suggestions completion/complete offers for a {part}, by part name: those starting with what the user typed, in order, at most 100." example:"{city: [Lisbon, London, Lyon]}"`
	Complete           *completeSettings        `yaml:"complete" doc:"For a uriTemplate: blocks that make the suggestions for the parts completions does not list."`
}

type promptSettings struct {
	mcp.PromptFields `yaml:",inline"`
	Resource         runtime.TemplateResource `yaml:"resource" doc:"The alias of the template resource rendered, with the arguments as the body, as the prompt's one user message; set this or process."`
	Process          runtime.Branch           `yaml:"process" answers:"the prompt's messages" doc:"Blocks that make the messages when the prompt is got, run with the arguments as the body: a string body is one user message, a list of {role, text} or {role, content} (one content item as MCP writes it: an image, an embedded resource) its messages. Set this or resource."`
	Completions      map[string][]string      `yaml:"completions" doc:"Suggestions completion/complete offers for an argument, by argument name: those starting with what the user typed, in order, at most 100." example:"{city: [Lisbon, London, Lyon]}"`
	Complete         *completeSettings        `yaml:"complete" doc:"Blocks that make the suggestions for the arguments completions does not list."`
}

// BranchName labels the tool's blocks with its name in metrics and traces.
func (c *toolSettings) BranchName() (string, string) { return "tool", c.Name }

// Body is a call's arguments: the properties the inputSchema declares, when it lists them all.
func (c *toolSettings) Body() *runtime.BodyKeys { return mcpmsg.Arguments(&c.ToolFields) }

// Body is the prompt's arguments.
func (c *promptSettings) Body() *runtime.BodyKeys {
	names := make([]string, 0, len(c.Arguments))
	for _, a := range c.Arguments {
		if !slices.Contains(names, a.Name) {
			names = append(names, a.Name)
		}
	}
	return &runtime.BodyKeys{Names: names, What: "an argument of the prompt",
		Fix: "declare it under arguments, or correct the name"}
}

// Body is the URI template's parameters; a fixed URI has none.
func (c *resourceSettings) Body() *runtime.BodyKeys {
	switch {
	case (c.URI == "") == (c.URITemplate == ""):
		return nil // reported: a resource needs exactly one of them
	case c.URI != "":
		return &runtime.BodyKeys{What: "a parameter of the resource",
			Fix: "a fixed uri has none: use a uriTemplate with {name} in it"}
	}
	keys := &runtime.BodyKeys{What: "a parameter of the uriTemplate", Fix: "add {name} to the uriTemplate, or correct the name"}
	t, err := uritemplate.Parse(c.URITemplate)
	if err != nil {
		return nil // reported at the uriTemplate
	}
	keys.Names = t.Names()
	return keys
}

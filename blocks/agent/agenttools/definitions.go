package agenttools

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/schema"
	"github.com/octo-run/octo/runtime/reference"
)

// The tools' names.
const (
	GetWorkspace = "get_workspace"
	ListServers  = "list_servers"
	GetServer    = "get_server"
	SaveServer   = "save_server"
	DeleteServer = "delete_server"
	StartServer  = "start_server"
	StopServer   = "stop_server"
	GetTraffic   = "get_traffic"
	CallServer   = "call_server"
)

// Instructions are what agents are told on initialize.
const Instructions = `Octo serves mock MCP servers made from settings, in a workspace folder the user has open. ` +
	`Start with get_workspace: it shows the folder, the saved servers and their state, and the names of the workspace's variables. ` +
	`The user watches what you do in Octo and may have to approve each change (save, delete, start, stop); ` +
	`when an action is refused, tell the user instead of working around it. ` +
	`Hosts, URLs, tokens and other credentials belong in the workspace's {{variables}}: write {{name}} in a server's settings, never the value inline. ` +
	`Build a server with save_server, start it with start_server, try it with call_server and read what passed with get_traffic.`

// Definitions returns the tools as tools/list lists them, in a fixed order.
func Definitions() []mcp.Tool {
	d := definitions()
	out := make([]mcp.Tool, len(d))
	for i, t := range d {
		out[i] = t.Tool
	}
	return out
}

// definition is a tool's listing, whether it changes things, and its compiled input schema.
type definition struct {
	mcp.Tool
	changes bool
	schema  *schema.Schema // the arguments checked before the tool runs
}

// definitions builds the tools once: save_server's schema is generated from the registered
// settings of a saved server file, so it says what the workspace checks.
var definitions = sync.OnceValue(func() []definition {
	defs, err := buildDefinitions()
	if err != nil {
		panic("agenttools: " + err.Error()) // the definitions are ours; a test compiles them
	}
	return defs
})

func buildDefinitions() ([]definition, error) {
	save, saveArgs, err := saveServerSchemas()
	if err != nil {
		return nil, err
	}
	list := []struct {
		name, title, doc string
		schema, args     string
		effect           effect
	}{
		{GetWorkspace, "Get the workspace", getWorkspaceDoc, noArgs, "", reads},
		{ListServers, "List the servers", listServersDoc, noArgs, "", reads},
		{GetServer, "Get a server", getServerDoc, nameArgs(getServerName), "", reads},
		{SaveServer, "Save a server", saveServerDoc, save, saveArgs, overwrites},
		{DeleteServer, "Delete a server", deleteServerDoc, nameArgs(deleteServerName), "", overwrites},
		{StartServer, "Start a server", startServerDoc, nameArgs(startServerName), "", changes},
		{StopServer, "Stop a server", stopServerDoc, nameArgs(stopServerName), "", changes},
		{GetTraffic, "Get the traffic", getTrafficDoc, getTrafficArgs, "", reads},
		{CallServer, "Call a server", callServerDoc, callServerArgs, "", calls},
	}
	out := make([]definition, 0, len(list))
	for _, l := range list {
		check := l.args
		if check == "" {
			check = l.schema
		}
		compiled, err := schema.Compile([]byte(check))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l.name, err)
		}
		if _, err := schema.Compile([]byte(l.schema)); err != nil {
			return nil, fmt.Errorf("%s: %w", l.name, err)
		}
		out = append(out, definition{
			Tool: mcp.Tool{Name: l.name, Title: l.title, Description: l.doc, InputSchema: json.RawMessage(l.schema),
				Annotations: l.effect.annotations(l.title)},
			changes: l.effect == changes || l.effect == overwrites,
			schema:  compiled,
		})
	}
	return out, nil
}

// effect is what a tool does to the workspace, for the host's approval and the agent's hints.
type effect uint8

const (
	reads      effect = iota // reads only
	changes                  // starts or stops a server: the user may have to approve it
	overwrites               // writes or removes a file: approval, and destructive
	calls                    // calls a mock: no change beyond its traffic
)

// annotations are the hints clients show and decide on: every tool acts on the local
// workspace only, and doing one again with the same arguments changes nothing more, except a
// call, whose tool may answer differently.
func (e effect) annotations(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: ptr(e == reads), DestructiveHint: ptr(e == overwrites),
		IdempotentHint: ptr(e != calls), OpenWorldHint: ptr(false)}
}

func ptr[T any](v T) *T { return &v }

const (
	getWorkspaceDoc = "Start here. Describes the octo workspace the user has open: its folder; every saved mock server (an MCP server, or an HTTP API of kind http) with its state " +
		"(running or not, the URL to give MCP clients, the problem that keeps it from serving); the names of the workspace's " +
		"{{variables}} (not their values, which may be secrets), its environments and the active one."
	listServersDoc = "Lists the saved mock servers (MCP servers and HTTP APIs): name, kind, file, whether each runs, its URL when it does, and the problem that keeps it " +
		"from serving (a broken file, a port in use), if any."
	getServerDoc = "Reads one saved mock server: its state and URL, its file as YAML text with the problems serving it would find " +
		"(file:line:col), and its fields (name, kind, port, mcp or http) in the form save_server takes — read it, change what you need and " +
		"save it back whole."
	saveServerDoc = "Creates or replaces a saved mock server, servers/<name>.yaml in the workspace, answered from settings, no code: " +
		"kind mcp, an MCP server (tools, resources and prompts under mcp), or kind http, an HTTP API (routes under http: method, " +
		"path with {name} parameters, status, headers and a body template over {{params.x}}, {{query.x}}, {{headers.x}}, {{body.x}}). The server is checked before anything is written, with the errors octo gives for the saved " +
		"file (their line:column point into the YAML shown with them); while there are any, nothing is written. A running server " +
		"takes the change at once. Without port, a new server gets 3004 or the next port no saved server uses. Put hosts, URLs, " +
		"tokens and other credentials in the workspace's {{variables}} and write {{name}} here, never the values. " +
		"The user sees this and may have to approve it."
	deleteServerDoc = "Deletes a saved MCP mock server: stops it if it runs, then removes its file. The user sees this and may have to approve it."
	startServerDoc  = "Starts serving a saved MCP mock server on 127.0.0.1 and returns its URL (Streamable HTTP; the legacy HTTP+SSE " +
		"transport is at /sse). It stays started, also across restarts of Octo, until stop_server. The user sees this and may have to approve it."
	stopServerDoc = "Stops a running MCP mock server; its file stays. The user sees this and may have to approve it."
	getTrafficDoc = "Reads the traffic of the workspace's mock servers, oldest first: sessions opening and ending, each request and answer " +
		"with its JSON, and HTTP requests refused before they reached MCP. Filter by server, session, method and time; ask for a " +
		"later since to read on."
	callServerDoc = "Calls a running saved MCP mock server as an MCP client would (Streamable HTTP, a session of its own), to try what " +
		"you built: a tool with arguments, a resource by URI, or a prompt with arguments — exactly one of tool, resource and prompt. " +
		"Returns what the server answered: its result, or its JSON-RPC error. A tool's progress is passed on; an answer is waited " +
		"for at most 5 minutes."
)

const (
	getServerName    = "The saved server's name, as get_workspace lists it."
	deleteServerName = "The name of the saved server to delete."
	startServerName  = "The name of the saved server to start."
	stopServerName   = "The name of the running server to stop."
)

// noArgs is the schema of a tool without arguments.
const noArgs = `{"type":"object","properties":{},"additionalProperties":false}`

// nameArgs is the schema of a tool whose one argument is a saved server's name.
func nameArgs(doc string) string {
	return `{"type":"object","properties":{"name":` + nameSchema(doc) + `},"required":["name"],"additionalProperties":false}`
}

// nameSchema is a server name's schema, the limits octo new mcp-mock keeps.
func nameSchema(doc string) string {
	b, _ := json.Marshal(doc)
	return `{"type":"string","minLength":1,"maxLength":100,"description":` + string(b) + `}`
}

const getTrafficArgs = `{"type":"object","properties":{` +
	`"server":{"type":"string","description":"Only this saved server's traffic."},` +
	`"session":{"type":"string","description":"Only this MCP session (the Mcp-Session-Id, or the stdio session's id)."},` +
	`"method":{"type":"string","description":"Only messages of this JSON-RPC method, such as tools/call."},` +
	`"since":{"type":"string","format":"date-time","description":"Only entries at or after this time, RFC 3339 (2026-01-02T15:04:05Z)."},` +
	`"limit":{"type":"integer","minimum":1,"maximum":1000,"default":100,"description":"The most entries to return: default 100, at most 1000."}` +
	`},"additionalProperties":false}`

const callServerArgs = `{"type":"object","properties":{` +
	`"server":{"type":"string","minLength":1,"description":"The running saved server to call, by name."},` +
	`"tool":{"type":"string","minLength":1,"description":"Call this tool (tools/call) with arguments."},` +
	`"resource":{"type":"string","minLength":1,"description":"Read the resource at this URI (resources/read)."},` +
	`"prompt":{"type":"string","minLength":1,"description":"Get this prompt (prompts/get) with arguments."},` +
	`"arguments":{"type":"object","description":"The tool's arguments, or the prompt's (each a string)."}` +
	`},"required":["server"],"additionalProperties":false}`

// saveServerSchemas returns save_server's listed schema — a saved server file's, generated
// from the registered settings (the mcp section is the mcp-mock block's) — and the schema its
// arguments are checked with before the workspace's own checks, which leaves mcp to them so the
// agent gets the messages the saved file gives.
func saveServerSchemas() (listed, args string, err error) {
	text, err := reference.Schema(workspace.ServerSchema)
	if err != nil {
		return "", "", err
	}
	var file struct {
		Properties struct {
			Kind json.RawMessage `json:"kind"`
			Port json.RawMessage `json:"port"`
			MCP  json.RawMessage `json:"mcp"`
			HTTP json.RawMessage `json:"http"`
		} `json:"properties"`
		Defs json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(text, &file); err != nil {
		return "", "", err
	}
	p := file.Properties
	if p.Kind == nil || p.Port == nil || p.MCP == nil || p.HTTP == nil || file.Defs == nil {
		return "", "", fmt.Errorf("the %s schema lacks kind, port, mcp, http or $defs", workspace.ServerSchema)
	}
	props := func(mcpSchema, httpSchema json.RawMessage) string {
		return `{"name":` + nameSchema(saveServerName) + `,"kind":` + string(p.Kind) + `,"port":` + string(p.Port) +
			`,"mcp":` + string(mcpSchema) + `,"http":` + string(httpSchema) + `}`
	}
	// kind http takes its settings under http, kind mcp under mcp.
	const tail = `,"required":["name","kind"],"additionalProperties":false,` +
		`"if":{"properties":{"kind":{"const":"http"}}},"then":{"required":["http"]},"else":{"required":["mcp"]}`
	listed = `{"type":"object","properties":` + props(p.MCP, p.HTTP) + tail + `,"$defs":` + string(file.Defs) + `}`
	object := json.RawMessage(`{"type":"object"}`)
	args = `{"type":"object","properties":` + props(object, object) + tail + `}`
	return listed, args, nil
}

const saveServerName = "The server's name: its file is servers/<name>.yaml, and it is serverInfo.name unless mcp.serverName says " +
	"otherwise. Not empty, no slashes, not starting with a dot, no {{ or line breaks."

// definitionOf returns the definition of the tool name, nil for none.
func definitionOf(name string) *definition {
	defs := definitions()
	for i := range defs {
		if defs[i].Name == name {
			return &defs[i]
		}
	}
	return nil
}

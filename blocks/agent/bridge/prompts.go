package bridge

import (
	"context"
	"strings"

	"github.com/octo-run/octo/mcp"
)

// prompts are the bridge's two prompts: jobs an agent can be asked to do with octo's tools,
// written out step by step so that any agent does them the same careful way.
type prompts struct{}

// promptList is what prompts/list answers.
var promptList = []mcp.Prompt{
	{
		Name:  "map_apis",
		Title: "Map this codebase's APIs into mock servers",
		Description: "Find the MCP servers and HTTP APIs this codebase calls and build an octo mock server for each, " +
			"with the tools, resources, prompts and routes the code relies on.",
		Arguments: []mcp.PromptArgument{{Name: "focus",
			Description: "Optional: a folder, service or server name to limit the search to"}},
	},
	{
		Name:  "test_apis",
		Title: "Exercise the workspace's mock servers and report",
		Description: "Start the workspace's mock servers, call each tool, resource and prompt, read the " +
			"traffic, and report what works and what does not.",
		Arguments: []mcp.PromptArgument{{Name: "server",
			Description: "Optional: the name of the one saved server to test"}},
	},
}

// ListPrompts implements mcp.PromptProvider.
func (prompts) ListPrompts(context.Context, *mcp.RequestContext, string) ([]mcp.Prompt, string, error) {
	return promptList, "", nil
}

// GetPrompt implements mcp.PromptProvider.
func (prompts) GetPrompt(_ context.Context, _ *mcp.RequestContext, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	var text string
	switch name {
	case "map_apis":
		text = mapAPIsText(strings.TrimSpace(args["focus"]))
	case "test_apis":
		text = testAPIsText(strings.TrimSpace(args["server"]))
	default:
		return nil, mcp.ErrUnknownPrompt
	}
	return &mcp.GetPromptResult{
		Description: descriptionOf(name),
		Messages:    []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent(text)}},
	}, nil
}

func descriptionOf(name string) string {
	for _, p := range promptList {
		if p.Name == name {
			return p.Description
		}
	}
	return ""
}

func mapAPIsText(focus string) string {
	scope := "this codebase"
	if focus != "" {
		scope = "this codebase, limited to " + focus + ","
	}
	return "Map the MCP servers and HTTP APIs that " + scope + ` calls into octo mock servers, so the code can be developed and tested without the real ones.

1. Call get_workspace to learn where the mocks are saved, then list_servers to see which exist already; update those rather than making duplicates.
2. Search the code for every MCP server it talks to: client setups (Streamable HTTP or SSE URLs, stdio commands), MCP settings files (.mcp.json, mcp.json, settings of editors and agents), and the calls made through them: tools/call with tool names and arguments, resources/read with URIs, prompts/get with names. Note where each call is made (file and line) and what the code does with the answer: which fields of structuredContent or text it reads, which errors it handles.
3. For each MCP server, call save_server with kind "mcp": its name, and under mcp the tools (name, description, an inputSchema matching the arguments the code sends, and an answer with the shape the code reads), resources and prompts the code uses. Give the answers realistic values, and add a failing case wherever the code handles an error (an answer with a when, or a failureRate).
   Also look for the HTTP APIs the code calls (base URLs in settings, HTTP clients such as fetch, axios, requests or net/http, generated API clients): for each, call save_server with kind "http" and under http the routes the code uses (method, path with {name} parameters, status, headers, and a body with the shape the code reads; {{params.x}}, {{query.x}} and {{body.x}} echo the request), with an error answer wherever the code handles one.
4. Never write a real host name, URL, token, key or password into a mock: give each a variable (the server's mcp.variables, with a harmless placeholder value), write {{name}} where it is used, and tell me which variables to set. The mocks live in my workspace, which others may read.
5. If save_server answers with problems (file:line: what is wrong), fix them and save again.
6. Start each server with start_server, check it with call_server (one call per tool at least), and read get_traffic if an answer looks wrong.
7. Finish with a short table: each real server, the mock that stands in for it, its URL, what it covers and what it leaves out, and the variables to set. Say how to point the code at the mocks (the setting or environment variable the code reads), without changing the code unless I ask.

I watch what you do in Octo and approve the changes you make; if a change is refused, say what you wanted to do and wait for me.`
}

func testAPIsText(server string) string {
	scope := "every saved mock server in the workspace"
	if server != "" {
		scope = "the saved mock server " + server
	}
	return "Exercise " + scope + ` and report what works.

1. Call get_workspace, then list_servers; call get_server for each server you test to read its tools, resources and prompts.
2. Start each server that is not running with start_server, and note its URL.
3. With call_server, call every tool: once with arguments its inputSchema accepts, once with arguments it should refuse (a missing required one, a wrong type). Read every resource and get every prompt, with their required arguments.
4. Check each answer: does it match the tool's outputSchema and description, are errors reported as errors (isError) with a useful text, is anything slow?
5. Read get_traffic for each server (since the time you started) to confirm what was received and answered, including requests refused before reaching a tool.
6. Stop only the servers you started, with stop_server, unless I ask you to leave them running.
7. Report in a table: server, kind (tool, resource, prompt), name, what you sent, what came back, and whether it is right; then list the problems, most serious first, with the change to the saved server that would fix each. Do not change the servers yourself unless I ask.

I watch what you do in Octo and approve the changes you make; if a call is refused, say what you wanted to do and wait for me.`
}

var _ mcp.PromptProvider = prompts{}

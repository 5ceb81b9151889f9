package agenttools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/octo-run/octo/blocks/mcp"
)

// Tools runs the agent tools over a host; share one between every caller of the host (each
// agent, the console's user), since its lock is what keeps their saves apart.
type Tools struct {
	host Host
	// writing makes each save or delete check and change the servers folder alone, so two
	// saves cannot both take the same free port or name.
	writing sync.Mutex
}

// New returns the tools acting on host.
func New(host Host) *Tools { return &Tools{host: host} }

// Writing runs write with the servers folder to itself, as a save or a delete has it: for a
// caller that writes server files itself (the console), so that a name or port it picks is not
// picked by a save at the same time. write must not call the tools.
func (t *Tools) Writing(write func()) {
	t.writing.Lock()
	defer t.writing.Unlock()
	write()
}

// Call is one tool call.
type Call struct {
	Agent string // the agent's clientInfo name, for the user
	Name  string
	Args  json.RawMessage // the arguments object; empty means {}
	// Progress reports how far a long call has come; nil when the agent asked for none.
	Progress func(progress, total float64, message string)
	// ByUser marks the user's own call (the console): the host is not asked to authorize it.
	// Calls that come from agents never set it.
	ByUser bool
}

// op is a tool call ready to run: what the user is told, and the run itself. Preparing one
// checks the arguments and changes nothing, so nothing happens before the host authorizes it.
type op struct {
	summary string
	run     func(ctx context.Context) *mcp.CallToolResult
}

// prepare turns a call's checked arguments into an op; an error is the agent's mistake, told
// as a failed call.
type prepare func(t *Tools, c Call) (op, error)

// dispatch holds the tools that run; a listed tool missing here is answered as unknown.
var dispatch = map[string]prepare{
	GetWorkspace: (*Tools).getWorkspace,
	ListServers:  (*Tools).listServers,
	GetServer:    (*Tools).getServer,
	SaveServer:   (*Tools).saveServer,
	DeleteServer: (*Tools).deleteServer,
	StartServer:  (*Tools).startServer,
	StopServer:   (*Tools).stopServer,
	GetTraffic:   (*Tools).getTraffic,
	CallServer:   (*Tools).callServer,
}

// Call runs a tool: it checks the arguments against the tool's schema and its own rules, asks
// the host to authorize the call, then runs it. Mistakes in the arguments, refusals and
// failures are results with isError, which the agent reads; an unknown tool is
// mcp.ErrUnknownTool.
func (t *Tools) Call(ctx context.Context, c Call) (*mcp.CallToolResult, error) {
	def, prep := definitionOf(c.Name), dispatch[c.Name]
	if def == nil || prep == nil {
		return nil, fmt.Errorf("%w: %s", mcp.ErrUnknownTool, c.Name)
	}
	if len(c.Args) == 0 {
		c.Args = json.RawMessage("{}")
	}
	if err := def.schema.Validate(c.Args); err != nil {
		return mcp.ToolError(err.Error()), nil
	}
	o, err := prep(t, c)
	if err != nil {
		return mcp.ToolError(err.Error()), nil
	}
	if !c.ByUser {
		if err := t.host.Authorize(ctx, Action{Agent: c.Agent, Tool: c.Name, Changes: def.changes, Summary: o.summary}); err != nil {
			return mcp.ToolError(err.Error()), nil
		}
	}
	return o.run(ctx), nil
}

// argError is a mistake in the argument name, worded as the schema checks word theirs.
func argError(name, format string, args ...any) error {
	return fmt.Errorf("argument %q: %s", name, fmt.Sprintf(format, args...))
}

// decode reads checked arguments into v.
func decode(args json.RawMessage, v any) error {
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("arguments: %w", err)
	}
	return nil
}

// jsonResult answers v as indented JSON text.
func jsonResult(v any) *mcp.CallToolResult {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return mcp.ToolError("cannot encode the answer: " + err.Error())
	}
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(string(b))}}
}

// textResult answers sentences.
func textResult(lines ...string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(strings.Join(lines, "\n"))}}
}

// errResult answers a failure the agent should read.
func errResult(err error) *mcp.CallToolResult { return mcp.ToolError(err.Error()) }

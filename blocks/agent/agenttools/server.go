package agenttools

import (
	"context"
	"encoding/json"

	"github.com/octo-run/octo/mcp"
)

// ServerInfo is how octo names itself to agents: serverInfo in the initialize answer.
func ServerInfo(version string) mcp.Implementation {
	return mcp.Implementation{Name: "octo", Title: "Octo", Version: version}
}

// Server returns the MCP server of the agent tools over host: what the app serves each agent
// connection and what the bridge runs headless. version is the binary's. Serve it with a
// stateful front (session.New), whose sessions tell which agent calls. Its saves take no
// file lock: for a host whose tools are not shared with other processes.
func Server(host Host, version string) *mcp.Server { return New(host, Options{}).Server(version) }

// Server returns the MCP server of these tools (see Server), for a host whose tools are shared
// with other callers.
func (t *Tools) Server(version string) *mcp.Server {
	return &mcp.Server{
		Info:         ServerInfo(version),
		Instructions: Instructions,
		Versions:     sessionVersions,
		Tools:        provider{t},
		CacheLists:   true,
	}
}

// sessionVersions are the revisions the app serves an agent connection: those with sessions,
// since the app knows an agent by its session (shown once it initializes, disconnected by
// ending it). An agent of 2026-07-28 reaches the app through octo mcp, which speaks it.
var sessionVersions = mcp.Versions{Supported: mcp.MockVersions.Supported, Absent: mcp.MockVersions.Absent, Unknown: mcp.MockVersions.Unknown}

// provider serves the tools as an MCP tool provider.
type provider struct{ tools *Tools }

func (p provider) ListTools(_ context.Context, _ *mcp.RequestContext, cursor string) ([]mcp.Tool, string, error) {
	if cursor != "" {
		return nil, "", mcp.ErrInvalidCursor
	}
	return Definitions(), "", nil
}

func (p provider) CallTool(ctx context.Context, rc *mcp.RequestContext, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	c := Call{Name: name, Args: args, Agent: AgentName(rc)}
	if rc != nil && len(rc.ProgressToken) > 0 {
		c.Progress = func(progress, total float64, message string) { _ = rc.Progress(ctx, progress, total, message) }
	}
	return p.tools.Call(ctx, c)
}

// AgentName is the name the calling agent gave in its clientInfo, "" when unknown.
func AgentName(rc *mcp.RequestContext) string { return rc.ClientInfo().Name }

var _ mcp.ToolProvider = provider{}

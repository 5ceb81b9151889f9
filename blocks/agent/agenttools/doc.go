// Package agenttools is the set of tools AI agents get from octo: reading the workspace of
// saved MCP mock servers, saving, deleting, starting and stopping them, reading their traffic
// and calling them. Definitions and Instructions are what an agent is told (the bridge answers
// tools/list and initialize with them without the app); Tools runs a call over a Host — the
// app, or the bridge's headless copy of it — which authorizes every call first.
//
// It owns the tools' names, arguments, checks and answers. It must not know how the host runs
// servers, keeps traffic or asks the user: that is the Host's. It writes saved server files in
// the workspace format and checks them with the workspace's own checks (blocks/mcp/mock/workspace),
// never its own copy of them.
package agenttools

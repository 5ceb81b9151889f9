package bridge

import (
	"fmt"
	"strings"

	"github.com/octo-run/octo/mcp"
)

// What the agent is told when a call cannot reach the app, word for word as the product's
// documentation lists them (agents and users search for these texts). Each comes back as an
// isError result, which agents show the model, rather than a JSON-RPC error, which some only log.
const (
	msgNotStarted    = "Octo is not running and could not be started (%s). Ask the user to open Octo."
	msgStartTimeout  = "Octo did not start within 30 seconds. Ask the user to open it."
	msgClosedBetween = "Octo closed the connection; try again."
	msgClosedDuring  = "Octo closed before the call finished."
	msgDisconnected  = "The user disconnected this agent in Octo. Stop using Octo unless the user asks you to reconnect (restart this MCP server)."
)

// What the agent is told when the app runs but did not take its connection: the truth, since
// starting another app or working without it beside the open one would only make it worse.
const (
	msgBusy        = "Octo refused the connection: %s. Try again shortly; if it goes on, ask the user to look at Octo (another program may be holding its connections)."
	msgUnreachable = "Octo is running but did not accept this agent's connection (%s). Try again shortly; if it goes on, ask the user to restart Octo."
)

// What the agent is told when working without the app cannot begin.
const (
	msgNoWorkspace    = "Octo works without the app on the workspace it had open last, and none was opened yet. Ask the user to open Octo and choose a workspace."
	msgHeadlessFailed = "Octo could not work without the app (%v). Ask the user to open Octo."
)

// notStarted is the result for an app that could not be started, with why in parentheses.
func notStarted(why error) *mcp.CallToolResult {
	reason := strings.TrimRight(why.Error(), ".")
	return mcp.ToolError(fmt.Sprintf(msgNotStarted, reason))
}

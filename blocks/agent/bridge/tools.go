package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/octo-run/octo/mcp"
)

// tools lists agenttools' definitions itself and hands every call of a listed tool to the app
// (or the in-process tools) through the forwarder.
type tools struct {
	list []mcp.Tool
	fwd  *forwarder
}

// ListTools implements mcp.ToolProvider: the tools the app serves, known without it.
func (t *tools) ListTools(context.Context, *mcp.RequestContext, string) ([]mcp.Tool, string, error) {
	return t.list, "", nil
}

// CallTool implements mcp.ToolProvider.
func (t *tools) CallTool(ctx context.Context, rc *mcp.RequestContext, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	if !t.has(name) {
		return nil, fmt.Errorf("%w: %s", mcp.ErrUnknownTool, name)
	}
	return t.fwd.Call(ctx, callOf(rc, name, args))
}

func (t *tools) has(name string) bool {
	for _, tl := range t.list {
		if tl.Name == name {
			return true
		}
	}
	return false
}

// call is one tool call as the forwarder needs it: what to send, who sends it, and the request
// it came in, through which the agent hears progress.
type call struct {
	name  string
	args  json.RawMessage
	agent mcp.Implementation // the agent's clientInfo, which the app shows the user
	rc    *mcp.RequestContext
	began time.Time
	sent  int // the last progress sent while waiting, in whole seconds since began
}

func callOf(rc *mcp.RequestContext, name string, args json.RawMessage) call {
	return call{name: name, args: args, rc: rc, began: time.Now(), agent: rc.ClientInfo()}
}

// token is the agent's progress token, verbatim; nil when it asked for no progress.
func (c *call) token() json.RawMessage { return c.rc.ProgressToken }

// passOn tells the agent the app's progress on the call. When the bridge reported progress of
// its own while the app started, the app's counts follow on from it: progress only grows.
func (c *call) passOn(progress, total float64, message string) {
	if base := float64(c.sent); base > 0 {
		progress += base
		if total > 0 {
			total += base
		}
	}
	_ = c.rc.Progress(context.Background(), progress, total, message)
}

// waiting tells the agent, when it asked for progress, what the call waits for: at most once a
// second, counting the seconds since the call began, so that progress only grows.
func (c *call) waiting(ctx context.Context, message string) {
	if s := int(time.Since(c.began) / time.Second); s > c.sent {
		c.sent = s
		_ = c.rc.Progress(ctx, float64(s), 0, message)
	}
}

var _ mcp.ToolProvider = (*tools)(nil)

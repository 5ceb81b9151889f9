package bridge

import (
	"context"
	"fmt"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/blocks/agent/app"
	"github.com/octo-run/octo/mcp"
)

// headless runs the tools in this process, on the workspace the app had open last, while the
// app is closed and the user let agents work without it. The app's own state (its workspace
// runner, traffic) is opened headless: nobody can approve anything, so it refuses whatever
// would ask the user.
type headless struct{ app *app.App }

// headless opens (or returns) the in-process tools while settings.yaml has agents.withoutApp
// and agents.allow on, read again on every call that finds no app, since the user may have
// changed them; nil, nil when the app must be used. A result is what the agent is told instead.
func (f *forwarder) headless(ctx context.Context, dir string) (*headless, *mcp.CallToolResult) {
	s, err := appdata.LoadSettings(dir)
	if err != nil || !s.Agents.WithoutApp || !s.Agents.Allow {
		f.dropHeadless(ctx) // unreadable settings are the app's to report: start it
		return nil, nil
	}
	if f.head != nil {
		return f.head, nil
	}
	if s.Workspace == "" {
		return nil, mcp.ToolError(msgNoWorkspace)
	}
	a, err := app.Open(ctx, app.Options{DataDir: dir, Workspace: s.Workspace, Headless: true, Logger: f.log})
	if err != nil {
		return nil, mcp.ToolError(fmt.Sprintf(msgHeadlessFailed, err))
	}
	f.head = &headless{app: a}
	return f.head, nil
}

// dropHeadless closes the in-process tools, if open: the app, or nothing, serves from now on.
func (f *forwarder) dropHeadless(ctx context.Context) {
	if f.head == nil {
		return
	}
	if err := f.head.close(ctx); err != nil {
		f.log.Warn("closing the tools run without the app", "err", err)
	}
	f.head = nil
}

// call runs one tool call in-process.
func (h *headless) call(ctx context.Context, c *call) (*mcp.CallToolResult, error) {
	tc := agenttools.Call{Agent: c.agent.Name, Name: c.name, Args: c.args}
	if c.token() != nil {
		tc.Progress = func(progress, total float64, message string) { _ = c.rc.Progress(ctx, progress, total, message) }
	}
	return h.app.Tools().Call(ctx, tc)
}

func (h *headless) close(ctx context.Context) error { return h.app.Close(ctx) }

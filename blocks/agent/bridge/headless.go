package bridge

import (
	"context"

	"github.com/octo-run/octo/blocks/mcp"
)

// headless will run the tools in this process while the app is closed and the user let agents
// work without it; it comes with the app's headless state (blocks/agent/app). Until then the
// app is always started.
type headless struct{}

func (f *forwarder) headless(context.Context, string) (*headless, *mcp.CallToolResult) {
	return nil, nil
}

func (h *headless) call(context.Context, *call) (*mcp.CallToolResult, error) { return nil, nil }

func (h *headless) close(context.Context) error { return nil }

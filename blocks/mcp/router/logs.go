package router

import (
	"context"
	"log/slog"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime"
)

// clientLog sends the lines a tool's log blocks log (runtime.ClientLogger) to the client as
// notifications/message, logger the tool's name. It is installed only on a router with logging
// and only when something can carry them (a streamed call, stdio); the stdio session's own level
// (logging/setLevel) filters further in the notifier.
type clientLog struct {
	rc    *mcp.RequestContext
	tool  string
	floor int // the least severe level sent (mcp.LogLevel)
}

// severity is the MCP level of a log block's slog level: debug, info, warning (warn), error.
func severity(l slog.Level) int {
	switch {
	case l < slog.LevelInfo:
		return 0
	case l < slog.LevelWarn:
		return 1
	case l < slog.LevelError:
		return 3
	}
	return 4
}

// ClientLogs implements runtime.ClientLogger.
func (c *clientLog) ClientLogs(level slog.Level) bool { return severity(level) >= c.floor }

// ClientLog implements runtime.ClientLogger.
func (c *clientLog) ClientLog(ctx context.Context, level slog.Level, line string) {
	i := severity(level)
	if i < c.floor {
		return
	}
	// A failure means the client went or stopped reading: its call is cancelled by that, not here.
	_ = c.rc.Log(ctx, mcp.LogLevelName(i), c.tool, line)
}

var _ runtime.ClientLogger = (*clientLog)(nil)

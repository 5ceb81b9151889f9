package runtime

import (
	"context"
	"log/slog"
)

// ClientLogger hears the lines a run of a flow logs (log blocks) for the caller that asked to
// see them: an MCP client of a router that declares logging gets them as notifications/message
// before the answer. The source of the run installs it (WithClientLogger); it filters by its own
// level and must be safe for concurrent use and not block for long.
type ClientLogger interface {
	// ClientLog tells the caller one rendered line logged at level.
	ClientLog(ctx context.Context, level slog.Level, line string)
	// ClientLogs reports whether a line at level would reach the caller, so a block renders
	// it only then.
	ClientLogs(level slog.Level) bool
}

type clientLoggerKey struct{}

// WithClientLogger returns ctx carrying l, heard by the log blocks run with it.
func WithClientLogger(ctx context.Context, l ClientLogger) context.Context {
	return context.WithValue(ctx, clientLoggerKey{}, l)
}

// ClientLoggerOf is the ClientLogger installed in ctx, nil when no caller listens (a context
// lookup, no allocation).
func ClientLoggerOf(ctx context.Context) ClientLogger {
	l, _ := ctx.Value(clientLoggerKey{}).(ClientLogger)
	return l
}

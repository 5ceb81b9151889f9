// Package log is the log block: it writes a templated line at a level and
// passes the message on unchanged.
package log

import (
	"context"
	"log/slog"

	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "log",
		Summary: "logs a templated line (settings.message) at a level and passes the message on",
		Doc: "Renders a template against the message and writes it to the service's log at a " +
			"level, naming the flow and block; the message goes on unchanged.",
		Example:   "type: log\nsettings:\n  message: 'forecast asked for {{ body.city }}'\n  level: debug\n",
		KeepsBody: true,
		Build:     runtime.BlockFunc(build),
	})
}

// Settings are the log block's settings.
type Settings struct {
	Message runtime.Template `yaml:"message" octo:"required" doc:"The line to log: text with {{ expression }} tags over body, vars, headers and env."`
	Level   string           `yaml:"level" default:"info" enum:"debug,info,warn,error" doc:"The level to log at; a line below the service's log level is not rendered. In a tool of an mcp-router with logging, the client also hears it (warn as warning) when at or above the router's logging level."`
}

var levels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

// Block logs one line per message.
type Block struct {
	message *runtime.Template
	level   slog.Level
	logger  *slog.Logger
}

func build(b *runtime.Build, s *Settings) (runtime.Block, error) {
	return &Block{message: &s.Message, level: levels[s.Level], logger: b.Logger()}, nil
}

// Process logs the rendered line, and tells it to the caller that listens (runtime.ClientLogger:
// an MCP client of a router with logging) when its level lets it through.
func (l *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	logged := l.logger.Enabled(ctx, l.level)
	client := runtime.ClientLoggerOf(ctx)
	if client != nil && !client.ClientLogs(l.level) {
		client = nil
	}
	if !logged && client == nil {
		return m, nil
	}
	line, err := l.message.Render(m)
	if err != nil {
		return nil, err
	}
	if logged {
		l.logger.Log(ctx, l.level, line)
	}
	if client != nil {
		client.ClientLog(ctx, l.level, line)
	}
	return m, nil
}

var _ runtime.Block = (*Block)(nil)

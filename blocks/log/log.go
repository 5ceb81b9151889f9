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
		Build:   build,
	})
}

type settings struct {
	Message string `yaml:"message" octo:"required"`
	Level   string `yaml:"level"`
}

var levels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

// Block logs one line per message.
type Block struct {
	message *runtime.Template
	level   slog.Level
	logger  *slog.Logger
}

func build(b *runtime.Build) (runtime.Block, error) {
	s := settings{Level: "info"}
	if !b.Decode(&s) {
		return nil, nil
	}
	level, ok := levels[s.Level]
	if !ok {
		b.Errorf(b.Setting("level"), b.At.Field("settings").Field("level"), "unknown level %q (use debug, info, warn or error)", s.Level)
	}
	t := b.Template(b.Setting("message"), b.At.Field("settings").Field("message"))
	if t == nil || !ok {
		return nil, nil
	}
	return &Block{message: t, level: level, logger: b.Logger()}, nil
}

// Process logs the rendered line.
func (l *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	if !l.logger.Enabled(ctx, l.level) {
		return m, nil
	}
	line, err := l.message.Render(m)
	if err != nil {
		return nil, err
	}
	l.logger.Log(ctx, l.level, line)
	return m, nil
}

var _ runtime.Block = (*Block)(nil)

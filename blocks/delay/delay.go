// Package delay is the delay block: it waits, and gives up when the request
// is cancelled.
package delay

import (
	"context"
	"time"

	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "delay",
		Summary: "waits for settings.duration (e.g. 500ms, 2s) before passing the message on",
		Build:   build,
	})
}

// maxDelay keeps a typo from holding a request for days.
const maxDelay = time.Hour

type settings struct {
	Duration time.Duration `yaml:"duration" octo:"required"`
}

// Block waits a fixed duration.
type Block struct{ d time.Duration }

func build(b *runtime.Build) (runtime.Block, error) {
	var s settings
	if !b.Decode(&s) {
		return nil, nil
	}
	if s.Duration <= 0 || s.Duration > maxDelay {
		b.Errorf(b.Setting("duration"), b.At.Field("settings").Field("duration"), "duration %s must be more than 0 and at most %s", s.Duration, maxDelay)
		return nil, nil
	}
	return &Block{d: s.Duration}, nil
}

// Process waits, or returns the context's error when cancelled first.
func (d *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	t := time.NewTimer(d.d)
	defer t.Stop()
	select {
	case <-t.C:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

var _ runtime.Block = (*Block)(nil)

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
		Doc: "Holds the message for a fixed time, then passes it on; a request cancelled meanwhile ends the wait. " +
			"A wait of a second or more tells a caller that asked for progress (an MCP client calling an " +
			"mcp-router tool with a progress token) how long it has waited, every second.",
		Example:   "type: delay\nsettings:\n  duration: 250ms\n",
		KeepsBody: true,
		Build:     runtime.BlockFunc(build),
	})
}

// Settings are the delay block's settings.
type Settings struct {
	// At most an hour, so a typo cannot hold a request for days.
	Duration time.Duration `yaml:"duration" octo:"required" min:">0" max:"1h" doc:"How long to wait, as Go duration text (250ms, 2s); more than 0 and at most an hour." example:"500ms"`
}

// Block waits a fixed duration.
type Block struct{ d time.Duration }

func build(_ *runtime.Build, s *Settings) (runtime.Block, error) {
	return &Block{d: s.Duration}, nil
}

// reportEvery is how often a long wait tells a caller that asked how long it has waited; a
// shorter wait says nothing.
const reportEvery = time.Second

// Process waits, or returns the context's error when cancelled first.
func (d *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	t := time.NewTimer(d.d)
	defer t.Stop()
	var tick <-chan time.Time
	if d.d >= reportEvery && runtime.ProgressWanted(ctx) {
		tk := time.NewTicker(reportEvery)
		defer tk.Stop()
		tick = tk.C
	}
	start := time.Now()
	for {
		select {
		case <-t.C:
			return m, nil
		case <-tick:
			waited := time.Since(start).Round(time.Second)
			runtime.ReportProgress(ctx, runtime.Progress{Within: true, Progress: waited.Seconds(), Total: d.d.Seconds(),
				Message: "waited " + waited.String() + " of " + d.d.String()})
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

var _ runtime.Block = (*Block)(nil)

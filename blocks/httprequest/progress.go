package httprequest

import (
	"context"
	"strconv"
	"time"

	"github.com/octo-run/octo/runtime"
)

// reportEvery is how often a call that is still waiting tells a caller that asked for progress
// (an MCP client of a router tool) how long it has waited; a quicker call says nothing.
const reportEvery = time.Second

// progress is the call's part in the caller's progress: seconds since the call began, of its
// timeout, so the waits and the retries report on one scale that only grows.
type progress struct {
	blk   *Block
	start time.Time
}

// report tells the caller, if it asked, how far the call has got.
func (p progress) report(ctx context.Context, message string) {
	runtime.ReportProgress(ctx, runtime.Progress{Within: true, Progress: p.blk.clock.now().Sub(p.start).Seconds(),
		Total: p.blk.timeout.Seconds(), Message: message})
}

// retrying reports that attempt failed with err and the call tries again after wait. The
// message says only what the caller may see: the error's safe text, never the URL.
func (p progress) retrying(ctx context.Context, attempt int, err error, wait time.Duration) {
	p.report(ctx, "attempt "+strconv.Itoa(attempt)+" failed ("+runtime.ErrorOf(err).Msg+"); trying again in "+
		wait.Round(time.Millisecond).String())
}

// waiting reports every reportEvery while the call runs, when the caller asked; stop ends the
// reports and returns once no more can come.
func (p progress) waiting(ctx context.Context) (stop func()) {
	if !runtime.ProgressWanted(ctx) {
		return func() {}
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(reportEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				waited := p.blk.clock.now().Sub(p.start).Round(time.Second)
				p.report(ctx, "waiting for the answer: "+waited.String()+" of "+p.blk.timeout.String())
			case <-done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() { close(done); <-finished }
}

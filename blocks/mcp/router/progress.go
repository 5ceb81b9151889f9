package router

import (
	"context"
	"sync"

	"github.com/octo-run/octo/blocks/mcp"
	"github.com/octo-run/octo/runtime"
)

// reporter sends what a tool's branch reports (runtime.ReportProgress: progress blocks, long
// delays) to the client as notifications/progress for the call's token. It is installed only
// when the client asked (a progress token) and something can carry it (a stream or stdio).
type reporter struct {
	rc   *mcp.RequestContext
	mu   sync.Mutex // one notification at a time, in the order reported
	last float64
	sent bool
}

// ReportProgress implements runtime.ProgressReporter. Progress must grow from one notification
// to the next (mcp-protocol.md, progress): a report that does not, as when a delay's seconds
// follow a progress block's steps, is dropped rather than sent out of order.
func (r *reporter) ReportProgress(ctx context.Context, p runtime.Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sent && p.Progress <= r.last {
		return
	}
	r.last, r.sent = p.Progress, true
	// A failure means the client went or stopped reading: its call is cancelled by that, not here.
	_ = r.rc.Progress(ctx, p.Progress, p.Total, p.Message)
}

var _ runtime.ProgressReporter = (*reporter)(nil)

package router

import (
	"context"
	"math"
	"sync"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime"
)

// reporter sends what a tool's branch reports (runtime.ReportProgress: progress blocks, long
// delays) to the client as notifications/progress for the call's token. It is installed only
// when the client asked (a progress token) and something can carry it (a stream or stdio).
//
// Progress must grow from one notification to the next (mcp-protocol.md, progress), and a
// client shows one bar: so where the tool reports its steps (it holds a progress block), what
// a block reports of its own work (Progress.Within: an http-request's seconds of its timeout)
// is placed between the last step and the next, and every notification carries the steps'
// total once one is known. A tool without steps sends its blocks' reports as they come.
type reporter struct {
	rc    *mcp.RequestContext
	steps bool       // the tool reports its own steps
	mu    sync.Mutex // one notification at a time, in the order reported
	last  float64    // the last progress sent
	sent  bool
	step  float64 // the last step reported, where the tool has steps
	total float64 // the steps' total, once one is known
}

// ReportProgress implements runtime.ProgressReporter. A report that would not grow the
// progress is dropped rather than sent out of order.
func (r *reporter) ReportProgress(ctx context.Context, p runtime.Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.steps {
		p = r.onSteps(p)
	}
	if r.sent && p.Progress <= r.last {
		return
	}
	r.last, r.sent = p.Progress, true
	// A failure means the client went or stopped reading: its call is cancelled by that, not here.
	_ = r.rc.Progress(ctx, p.Progress, p.Total, p.Message)
}

// withinStep is how much of the way to the next step a block's own work may take up: a step
// reported after it (the next whole one) is still more.
const withinStep = 0.9

// onSteps places p on the scale of the tool's steps.
func (r *reporter) onSteps(p runtime.Progress) runtime.Progress {
	if !p.Within {
		r.step = p.Progress
		if p.Total > 0 {
			r.total = p.Total
		}
		return runtime.Progress{Progress: p.Progress, Total: r.total, Message: p.Message}
	}
	done := 1 - 1/(1+p.Progress) // of an unknown total: ever closer to done
	if p.Total > 0 {
		done = min(p.Progress/p.Total, 1)
	}
	// Rounded: the client shows 1.6, not 1.6000000000000001.
	placed := math.Round((r.step+done*withinStep)*1000) / 1000
	return runtime.Progress{Progress: placed, Total: r.total, Message: p.Message}
}

var _ runtime.ProgressReporter = (*reporter)(nil)

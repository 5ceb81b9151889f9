package runtime

import "context"

// Progress is how far a long step of a flow has got: Progress of Total (0: unknown), with an
// optional Message. A caller that asked to hear it (an MCP client that sent a progress token)
// gets it as it happens, before the flow's answer.
type Progress struct {
	Progress, Total float64
	Message         string
	// Within says a block reports how far its own work has got (an http-request's seconds of
	// its timeout, a delay's, an agent's turns), not a step of the flow: where the flow reports
	// its steps itself (progress blocks), the listener places it between the last step and the
	// next, so the caller hears one sequence on one scale.
	Within bool
}

// ProgressReporter hears the progress of one run of a flow. The source of the run installs it
// (WithProgress) when its caller asked for progress; blocks report through ReportProgress and
// never learn who listens. It must be safe for concurrent use. It may hold the flow back while
// its caller reads slowly (the router's waits for room in the call's bounded stream), but only
// for as long as the caller keeps reading: one that stops is cut off, and the run cancelled.
type ProgressReporter interface {
	ReportProgress(ctx context.Context, p Progress)
}

type progressKey struct{}

// WithProgress returns ctx carrying r, heard by ReportProgress in the blocks run with it.
func WithProgress(ctx context.Context, r ProgressReporter) context.Context {
	return context.WithValue(ctx, progressKey{}, r)
}

// ProgressWanted reports whether someone listens to the progress reported under ctx, so a block
// works out what it would report only then.
func ProgressWanted(ctx context.Context) bool {
	_, ok := ctx.Value(progressKey{}).(ProgressReporter)
	return ok
}

// ReportProgress tells the listener installed by WithProgress, if any, how far the step has
// got; without one it does nothing (a context lookup, no allocation).
func ReportProgress(ctx context.Context, p Progress) {
	if r, ok := ctx.Value(progressKey{}).(ProgressReporter); ok {
		r.ReportProgress(ctx, p)
	}
}

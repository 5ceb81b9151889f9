package cli

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// TracingFunc starts tracing for the process, as the environment (lookup) asks: a stop that
// flushes and ends it, or nil when traces are not asked for. The package that exports traces
// registers it (RegisterTracing), as the admin listener registers itself: the commands know
// tracing only by this.
type TracingFunc func(ctx context.Context, lookup func(string) (string, bool), version string, logger *slog.Logger) (stop func(context.Context) error, err error)

var tracings struct {
	sync.Mutex
	start TracingFunc
}

// RegisterTracing sets what starts tracing; registering twice is a programming error and panics.
func RegisterTracing(start TracingFunc) {
	tracings.Lock()
	defer tracings.Unlock()
	if tracings.start != nil || start == nil {
		panic("cli: tracing registered twice or as nil")
	}
	tracings.start = start
}

// StartTracing starts tracing when the environment asks for it (the serving commands call it
// before they build anything); the stop it returns is never nil.
func StartTracing(ctx context.Context, env *Env, logger *slog.Logger) (func(), error) {
	tracings.Lock()
	start := tracings.start
	tracings.Unlock()
	if start == nil {
		return func() {}, nil
	}
	stop, err := start(ctx, env.LookupEnv, Version(), logger)
	if err != nil || stop == nil {
		return func() {}, err
	}
	return func() {
		// What is still buffered is sent, for a while: a collector that is gone does not
		// hold the process.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := stop(ctx); err != nil {
			logger.Warn("tracing: the last spans were not all sent", "err", err)
		}
	}, nil
}

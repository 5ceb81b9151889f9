package cli

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/octo-run/octo/runtime/config"
)

// TracingSetup is what tracing starts from: the environment and the config's service section.
type TracingSetup struct {
	Lookup  func(string) (string, bool)
	Version string
	Logger  *slog.Logger
	// Service is the config's service name ("" for none), the traces' service.name unless
	// OTEL_SERVICE_NAME says otherwise.
	Service string
	// Settings is the config's service.tracing, nil when it has none: the OTEL_* variables
	// alone decide.
	Settings *config.TracingKeys
}

// TracingFunc starts tracing for the process as setup asks: a stop that flushes and ends it, or
// nil when traces are not asked for. The package that exports traces registers it
// (RegisterTracing), as the admin listener registers itself: the commands know tracing only by
// this.
type TracingFunc func(ctx context.Context, setup TracingSetup) (stop func(context.Context) error, err error)

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

// StartTracing starts tracing when the environment asks for it (the serving commands whose
// configs have no service section call it before they build anything); the stop it returns is
// never nil.
func StartTracing(ctx context.Context, env *Env, logger *slog.Logger) (func(), error) {
	t := &Tracing{env: env, log: logger}
	if err := t.Apply(ctx, config.Service{}); err != nil {
		return func() {}, err
	}
	return t.Stop, nil
}

// Tracing is the process's tracing as the config last read asks for it: started with the first
// config and started again when a reload changes service.tracing or the service's name, before
// the new config is built (a flow built with a tracer has its blocks traced).
type Tracing struct {
	env  *Env
	log  *slog.Logger
	key  string // what the running tracing was started from; "" before the first Apply
	stop func(context.Context) error
}

// Apply starts, starts again or stops tracing as svc asks, when that differs from what runs.
func (t *Tracing) Apply(ctx context.Context, svc config.Service) error {
	tracings.Lock()
	start := tracings.start
	tracings.Unlock()
	if start == nil {
		return nil
	}
	text, _ := json.Marshal(struct {
		Name     string
		Settings *config.TracingKeys
	}{svc.Name, svc.Tracing})
	key := string(text)
	if key == t.key {
		return nil
	}
	t.Stop()
	stop, err := start(ctx, TracingSetup{Lookup: t.env.LookupEnv, Version: Version(), Logger: t.log, Service: svc.Name, Settings: svc.Tracing})
	if err != nil {
		return err
	}
	t.key, t.stop = key, stop
	return nil
}

// Stop flushes and ends the running tracing, if any.
func (t *Tracing) Stop() {
	stop := t.stop
	t.key, t.stop = "", nil
	if stop == nil {
		return
	}
	// What is still buffered is sent, for a while: a collector that is gone does not hold the
	// process.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := stop(ctx); err != nil {
		t.log.Warn("tracing: the last spans were not all sent", "err", err)
	}
}

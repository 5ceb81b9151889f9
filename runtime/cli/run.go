package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/printable"
	"github.com/octo-run/octo/runtime/reload"
	"github.com/octo-run/octo/runtime/supervisor"
)

// load reads and builds a config without starting it, with stdio as `run --stdio` serves it;
// every problem comes back in one error. A config with problems still has its sound part
// built, so the build's problems are reported with the config's.
func load(path string, env *Env, logger *slog.Logger, stdio bool) (*runtime.Service, *config.Config, error) {
	cfg, err := config.LoadPartial(path, env.LookupEnv)
	if cfg == nil {
		return nil, nil, err
	}
	if stdio && err == nil {
		if _, err := ServeOnStdio(cfg); err != nil {
			return nil, nil, err
		}
	}
	svc, berr := runtime.NewService(cfg, runtime.Options{Logger: logger, LookupEnv: env.LookupEnv})
	if err != nil {
		var ds config.Diags
		errors.As(berr, &ds)
		return nil, nil, append(err.(config.Diags), ds...).Err()
	}
	return svc, cfg, berr
}

func configFlag(fs *flag.FlagSet) *string {
	return fs.String("config", "", "a config folder (all its YAML files) or a single YAML file; it may be given as the argument instead")
}

// errStdioFolder refuses --stdio on an adapter's folder (a workspace), which serves its own way.
var errStdioFolder = &usageError{"--stdio serves a flow config; a workspace serves a saved server over stdio with octo serve FOLDER NAME --stdio"}

func stdioFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("stdio", false, "serve the flow with the mcp-router (or mcp-mock) on standard input and output, one JSON-RPC message per line, for MCP clients that start octo as a command; other flows keep their connectors, logs go to standard error")
}

func cmdRun(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags("run", env)
	path := configFlag(fs)
	var lf logFlags
	lf.register(fs)
	grace := fs.Duration("shutdown-timeout", 10*time.Second, "how long to let in-flight requests finish on SIGINT/SIGTERM, and on the replaced config after a reload")
	watchFiles := fs.Bool("watch", false, "reload the config when its files change (SIGHUP reloads it too); a workspace's files are always followed")
	stdio := stdioFlag(fs)
	adminAddr := fs.String("admin", "", "serve /healthz, /readyz and Prometheus /metrics on this address (host:port, or a port on 127.0.0.1); off when empty")
	drainDelay := fs.Duration("drain-delay", 0, "on SIGTERM or SIGINT, keep serving this long with /readyz reporting stopping and every answer closing its connection, so a balancer takes this replica out before it stops (a rolling restart without a retrying balancer); 0: stop at once")
	if err := ParseConfig(fs, args, path); err != nil {
		return err
	}
	if *drainDelay < 0 {
		return Usagef("--drain-delay must not be negative")
	}
	logger, err := lf.logger(env.Stderr)
	if err != nil {
		return err
	}
	tracing := &Tracing{env: env, log: logger}
	defer tracing.Stop()
	adm, err := startAdmin(*adminAddr, logger)
	if err != nil {
		return err
	}
	defer adm.close()
	r := &run{path: *path, log: logger, adm: adm, grace: *grace, watch: *watchFiles, drainDelay: *drainDelay,
		sup: supervisor.New(supervisor.Options{Logger: logger, LookupEnv: env.LookupEnv, StopTimeout: *grace, Observer: adm.observer()})}
	if spec, ok := runtime.AdapterOf(*path); ok {
		if *stdio {
			return errStdioFolder
		}
		if err := tracing.Apply(ctx, config.Service{}); err != nil { // a folder's servers have no service section: the OTEL_* variables decide
			return err
		}
		src, err := spec.Open(*path, runtime.AdapterOptions{Logger: logger})
		if err != nil {
			return lf.plain(err)
		}
		r.src, r.watch = teller(src, logger), true
	} else {
		r.flow = &flowSource{path: *path, lookup: env.LookupEnv, log: logger, stdio: *stdio, tracing: tracing}
		r.src = r.flow
	}
	return lf.plain(UntilSignalled(ctx, logger, r.serve))
}

// How often --watch looks at the config's files, and how long an edit must stay the same
// before it is applied (a file an editor is still writing is never loaded half written).
const (
	pollEvery  = reload.DefaultPoll
	settleTime = reload.DefaultSettle
)

// run is `octo run` serving a config: a flow config (flow set) or an adapter's folder, its
// units on the one supervisor, reloaded by the one reload loop.
type run struct {
	path  string
	log   *slog.Logger
	adm   *admin
	grace time.Duration
	watch bool
	// drainDelay is how long the service goes on serving after the signal, announced as
	// stopping (--drain-delay).
	drainDelay time.Duration
	sup        *supervisor.Supervisor
	src        reload.Source
	flow       *flowSource // nil for an adapter's folder
}

// serve serves the config until ctx ends, reload asking for reloads (SIGHUP).
func (r *run) serve(ctx context.Context, reloads <-chan struct{}) error {
	poll := pollEvery
	if !r.watch {
		poll = -1
	}
	f := reload.New(r.sup, r.src, reload.Options{Group: r.path, Poll: poll, Settle: settleTime, Reload: reloads, Reloaded: r.adm.reloaded})
	first := f.Start(ctx)
	if err := r.firstErr(first); err != nil {
		_ = r.sup.Close(context.Background()) // what started, if anything, stops at once
		return err
	}
	defer r.stop()
	r.adm.serving() // before the line that says so: a probe then finds it ready
	var ended <-chan struct{}
	if r.flow != nil {
		svc := r.sup.Service(r.path)
		r.log.Info("service started", "service", svc.Name)
		ended = inputEnded(ctx, svc, r.connectors(first.Outcomes[0].Unit.Config))
	}
	if r.watch {
		r.log.Info("watching the config files for edits", "config", r.path)
	}
	f.Run(ctx, ended)
	if ended != nil && ctx.Err() == nil {
		r.log.Info("nothing left to serve: the input ended or the output stalled")
		r.adm.stopping()
		return nil
	}
	r.adm.stopping()
	r.leave()
	return nil
}

// leave keeps serving for the drain delay with /readyz reporting stopping and every answer
// closing its connection: a balancer that polls readiness takes the replica out, and its
// kept-alive connections end after an answer, before the port closes. A second signal stops
// at once (UntilSignalled).
func (r *run) leave() {
	if r.drainDelay <= 0 {
		return
	}
	r.sup.Leave()
	r.log.Info("draining: serving on while balancers take this replica out", "delay", r.drainDelay.String())
	time.Sleep(r.drainDelay)
}

// firstErr is why the first reading serves nothing: a flow config's problems, or its build's
// failure; for a folder, whose problems are logged, that nothing could start.
func (r *run) firstErr(first reload.Report) error {
	if slices.ContainsFunc(first.Outcomes, func(o supervisor.Outcome) bool { return o.Serving }) {
		return nil
	}
	if r.flow == nil {
		return errors.New("nothing could be started; the problems are listed above")
	}
	if err := first.Err(); err != nil {
		return err
	}
	return errors.New("nothing to serve")
}

// connectors are those whose end ends the process: the stdio connector that serves the session
// (a client ends it by closing its end; flows on other connectors end with it), else all.
func (r *run) connectors(cfg *config.Config) []string {
	if r.flow.stdioName != "" {
		return []string{r.flow.stdioName}
	}
	out := make([]string, len(cfg.Connectors))
	for i, c := range cfg.Connectors {
		out[i] = c.Name
	}
	return out
}

// stop stops every unit, letting requests finish within the grace time.
func (r *run) stop() {
	r.log.Info("shutting down", "grace", r.grace.String())
	sctx, cancel := context.WithTimeout(context.Background(), r.grace)
	defer cancel()
	if err := r.sup.Close(sctx); err != nil {
		r.log.Warn("shutdown was not clean", "err", err)
	}
	r.log.Info("stopped")
}

// teller gives a source that says nothing of its units the plain words of a unit's life.
func teller(src runtime.UnitSource, log *slog.Logger) reload.Source {
	if s, ok := src.(reload.Source); ok {
		return s
	}
	return plainTeller{src, log}
}

// plainTeller says what became of each unit of a source that has no words of its own.
type plainTeller struct {
	runtime.UnitSource
	log *slog.Logger
}

func (t plainTeller) Tell(r reload.Report) {
	for _, d := range r.Problems {
		t.log.Error(d.String())
	}
	for _, o := range r.Outcomes {
		switch {
		case o.Action == supervisor.Failed:
			t.log.Error("unit not served: "+o.Err.Error(), "unit", o.Unit.Title())
		case o.Action != supervisor.Kept:
			t.log.Info("unit "+o.Action.String(), "unit", o.Unit.Title())
		}
	}
}

// errStoppedAtOnce ends a command whose graceful stop a second signal cut short.
var errStoppedAtOnce = errors.New("stopped at once: requests still running were cut off")

// UntilSignalled runs serve until it returns. The first SIGINT or SIGTERM ends serve's context,
// so it stops gracefully, letting requests finish; a second one during that stop returns
// errStoppedAtOnce without waiting for serve, and the process exits, cutting off whatever was
// still running. A user pressing Ctrl-C twice means "now", as with most servers. SIGHUP asks
// serve to reload (a receive on reload) and never ends the process.
func UntilSignalled(ctx context.Context, logger *slog.Logger, serve func(ctx context.Context, reload <-chan struct{}) error) error {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	hups := make(chan os.Signal, 1)
	signal.Notify(hups, syscall.SIGHUP)
	defer signal.Stop(hups)
	reload := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- serve(ctx, reload) }()
	for stopping := false; !stopping; {
		select {
		case err := <-done:
			return err
		case <-hups:
			logger.Info("SIGHUP: reloading")
			select {
			case reload <- struct{}{}:
			default: // a reload is pending already
			}
		case s := <-sigs:
			logger.Info("stopping gracefully; send the signal again to stop at once", "signal", s.String())
			cancel()
			stopping = true
		}
	}
	select {
	case err := <-done:
		return err
	case s := <-sigs:
		logger.Warn("second signal: stopping at once", "signal", s.String())
		return errStoppedAtOnce
	}
}

// inputEnded is closed when every one of the service's connectors named has
// finished by itself, as a stdio connector does when its input ends: nothing
// is left to serve. It stays open while one serves until it is stopped.
func inputEnded(ctx context.Context, svc *runtime.Service, connectors []string) <-chan struct{} {
	var dones []<-chan struct{}
	for _, name := range connectors {
		d, ok := svc.Connector(name).(interface{ Done() <-chan struct{} })
		if !ok {
			return nil
		}
		dones = append(dones, d.Done())
	}
	if len(dones) == 0 {
		return nil
	}
	ended := make(chan struct{})
	go func() {
		for _, d := range dones {
			select {
			case <-d:
			case <-ctx.Done():
				return
			}
		}
		close(ended)
	}()
	return ended
}

func cmdValidate(_ context.Context, env *Env, args []string) error {
	fs := NewFlags("validate", env)
	path := configFlag(fs)
	stdio := stdioFlag(fs)
	if err := ParseConfig(fs, args, path); err != nil {
		return err
	}
	if spec, ok := runtime.AdapterOf(*path); ok {
		if *stdio {
			return errStdioFolder
		}
		names, ds := spec.Validate(*path)
		if len(ds) > 0 {
			return ds.Err()
		}
		for _, n := range names {
			fmt.Fprintf(env.Stdout, "%s: %s: ok\n", printable.Escape(*path), printable.Escape(n))
		}
		return nil
	}
	logger := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if _, _, err := load(*path, env, logger, *stdio); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s: ok\n", *path)
	return nil
}

package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/supervisor"
	"github.com/octo-run/octo/runtime/watch"
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
	watchFiles := fs.Bool("watch", false, "reload the config when its files change (SIGHUP reloads it too)")
	stdio := stdioFlag(fs)
	adminAddr := fs.String("admin", "", "serve /healthz, /readyz and Prometheus /metrics on this address (host:port, or a port on 127.0.0.1); off when empty")
	if err := ParseConfig(fs, args, path); err != nil {
		return err
	}
	logger, err := lf.logger(env.Stderr)
	if err != nil {
		return err
	}
	adm, err := startAdmin(*adminAddr, logger)
	if err != nil {
		return err
	}
	defer adm.close()
	if f, ok := folderOf(*path); ok {
		if *stdio {
			return errStdioFolder
		}
		return f.Run(ctx, *path, FolderRun{Logger: logger, Grace: *grace, Observer: adm.observer(), Reloaded: adm.reloaded,
			Serving: adm.serving, Stopping: adm.stopping})
	}
	sup := supervisor.New(supervisor.Options{Logger: logger, LookupEnv: env.LookupEnv, StopTimeout: *grace, Observer: adm.observer()})
	r := &reloader{path: *path, lookup: env.LookupEnv, sup: sup, log: logger, files: &watch.Settler{Settle: settleTime}, stdio: *stdio, reloaded: adm.reloaded}
	cfg, err := r.load()
	if err != nil {
		return lf.plain(err)
	}
	return lf.plain(UntilSignalled(ctx, logger, func(ctx context.Context, reload <-chan struct{}) error {
		if err := sup.Start(ctx, *path, cfg); err != nil {
			return err
		}
		svc := sup.Service(*path)
		adm.serving() // before the line that says so: a probe then finds it ready
		logger.Info("service started", "service", svc.Name)
		connectors := make([]string, len(cfg.Connectors))
		for i, c := range cfg.Connectors {
			connectors[i] = c.Name
		}
		if r.stdioName != "" {
			// The client ends the session by closing its end of the pipe; flows on other
			// connectors (an API the tools call) end with it.
			connectors = []string{r.stdioName}
		}
		r.serve(ctx, reload, *watchFiles, inputEnded(ctx, svc, connectors))
		adm.stopping()
		logger.Info("shutting down", "grace", grace.String())
		sctx, cancel := context.WithTimeout(context.Background(), *grace)
		defer cancel()
		if err := sup.Close(sctx); err != nil {
			logger.Warn("shutdown was not clean", "err", err)
		}
		logger.Info("stopped")
		return nil
	}))
}

// How often --watch looks at the config's files, and how long an edit must stay the same
// before it is applied (a file an editor is still writing is never loaded half written).
const (
	pollEvery  = 300 * time.Millisecond
	settleTime = 500 * time.Millisecond
)

// reloader applies edits of a running config through the supervisor.
type reloader struct {
	path      string // the config, also the name of its unit
	lookup    func(string) (string, bool)
	sup       *supervisor.Supervisor
	log       *slog.Logger
	files     *watch.Settler
	templates []string        // template files of the config last loaded
	stdio     bool            // --stdio: serve the router's flow on standard input and output
	stdioName string          // the connector that does
	reloaded  func(err error) // hears each reload's outcome (the admin listener)
}

// serve reloads the config on each receive from reload and, with watchFiles, on each settled
// edit, until ctx ends or ended is closed.
func (r *reloader) serve(ctx context.Context, reload <-chan struct{}, watchFiles bool, ended <-chan struct{}) {
	var tick <-chan time.Time
	if watchFiles {
		t := time.NewTicker(pollEvery)
		defer t.Stop()
		tick = t.C
		r.log.Info("watching the config files for edits", "config", r.path)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-ended:
			r.log.Info("nothing left to serve: the input ended or the output stalled")
			return
		case <-reload:
			r.reload(ctx, "SIGHUP")
		case <-tick:
			r.poll(ctx)
		}
	}
}

// watched lists the files the config is made of now: its YAML files, and the template
// resources of the version last loaded.
func (r *reloader) watched() []string {
	files, _ := config.Files(r.path)
	return append(files, r.templates...)
}

// poll reloads once an edit of the config's files has settled.
func (r *reloader) poll(ctx context.Context) {
	if _, _, changed := r.files.Next(watch.Stat(r.watched())); changed {
		r.reload(ctx, "edit")
	}
}

// load reads the config, and takes its files as they were read as the version applied: the
// YAML files are stamped before they are read, so an edit made meanwhile is seen by the next
// poll.
func (r *reloader) load() (*config.Config, error) {
	files, _ := config.Files(r.path)
	yamls := watch.Stat(files)
	cfg, err := config.Load(r.path, r.lookup)
	if err == nil && r.stdio {
		r.stdioName, err = ServeOnStdio(cfg)
	} else if err == nil {
		r.stdioName = ownStdio(cfg)
	}
	if err == nil {
		r.templates = templateFiles(cfg)
	}
	stamps := watch.Stat(r.templates)
	maps.Copy(stamps, yamls)
	r.files.Reset(stamps)
	return cfg, err
}

// reload loads the config again and has it replace the running build. Problems are logged, one
// per line at their file:line:col, and the running build keeps serving.
func (r *reloader) reload(ctx context.Context, trigger string) {
	cfg, err := r.load()
	inPlace := false
	if err == nil {
		inPlace, err = r.sup.Replace(ctx, r.path, cfg)
	}
	if err != nil {
		var ds config.Diags
		if errors.As(err, &ds) {
			for _, d := range ds {
				r.log.Error(d.String())
			}
		} else {
			r.log.Error(err.Error())
		}
		r.reloaded(err) // before the line that says so: a probe that follows the log finds it
		r.log.Error("not reloaded: the running config keeps serving", "trigger", trigger)
		return
	}
	r.reloaded(nil)
	if inPlace { // only blocks' settings changed, and the blocks took them: sessions stay open
		r.log.Info("reloaded in place", "service", cfg.Service.Name, "trigger", trigger)
		return
	}
	r.log.Info("reloaded", "service", cfg.Service.Name, "trigger", trigger)
}

// templateFiles lists the template resources cfg reads.
func templateFiles(cfg *config.Config) []string {
	out := make([]string, 0, len(cfg.Templates))
	for _, t := range cfg.Templates {
		out = append(out, t.File)
	}
	slices.Sort(out)
	return out
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
	if f, ok := folderOf(*path); ok {
		if *stdio {
			return errStdioFolder
		}
		return f.Validate(env, *path)
	}
	logger := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if _, _, err := load(*path, env, logger, *stdio); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s: ok\n", *path)
	return nil
}

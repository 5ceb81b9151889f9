package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// load reads and builds a config; every problem comes back in one error.
func load(path string, env *Env, logger *slog.Logger) (*runtime.Service, *config.Config, error) {
	cfg, err := config.Load(path, env.LookupEnv)
	if err != nil {
		return nil, nil, err
	}
	svc, err := runtime.NewService(cfg, runtime.Options{Logger: logger, LookupEnv: env.LookupEnv})
	return svc, cfg, err
}

func configFlag(fs *flag.FlagSet) *string {
	return fs.String("config", "", "a config folder (all its YAML files) or a single YAML file")
}

func cmdRun(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("run", env)
	path := configFlag(fs)
	var lf logFlags
	lf.register(fs)
	grace := fs.Duration("shutdown-timeout", 10*time.Second, "how long to let in-flight requests finish on SIGINT/SIGTERM")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *path == "" {
		return &usageError{"--config is required"}
	}
	logger, err := lf.logger(env.Stderr)
	if err != nil {
		return err
	}
	if workspace.Is(*path) {
		return runWorkspace(ctx, *path, logger, *grace)
	}
	svc, cfg, err := load(*path, env, logger)
	if err != nil {
		return err
	}
	return untilSignalled(ctx, logger, func(ctx context.Context) error {
		if err := svc.Start(ctx); err != nil {
			return err
		}
		logger.Info("service started", "service", svc.Name)
		select {
		case <-ctx.Done():
		case <-inputEnded(ctx, svc, cfg):
			logger.Info("nothing left to serve: the input ended or the output stalled")
		}
		logger.Info("shutting down", "grace", grace.String())
		sctx, cancel := context.WithTimeout(context.Background(), *grace)
		defer cancel()
		if err := svc.Stop(sctx); err != nil {
			logger.Warn("shutdown was not clean", "err", err)
		}
		logger.Info("stopped")
		return nil
	})
}

// errStoppedAtOnce ends a command whose graceful stop a second signal cut short.
var errStoppedAtOnce = errors.New("stopped at once: requests still running were cut off")

// untilSignalled runs serve until it returns. The first SIGINT or SIGTERM ends serve's context,
// so it stops gracefully, letting requests finish; a second one during that stop returns
// errStoppedAtOnce without waiting for serve, and the process exits, cutting off whatever was
// still running. A user pressing Ctrl-C twice means "now", as with most servers.
func untilSignalled(ctx context.Context, logger *slog.Logger, serve func(context.Context) error) error {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- serve(ctx) }()
	select {
	case err := <-done:
		return err
	case s := <-sigs:
		logger.Info("stopping gracefully; send the signal again to stop at once", "signal", s.String())
		cancel()
	}
	select {
	case err := <-done:
		return err
	case s := <-sigs:
		logger.Warn("second signal: stopping at once", "signal", s.String())
		return errStoppedAtOnce
	}
}

// inputEnded is closed when every connector of the service has finished by
// itself, as a stdio connector does when its input ends: nothing is left to
// serve. It stays open while a connector serves until it is stopped.
func inputEnded(ctx context.Context, svc *runtime.Service, cfg *config.Config) <-chan struct{} {
	var dones []<-chan struct{}
	for _, c := range cfg.Connectors {
		d, ok := svc.Connector(c.Name).(interface{ Done() <-chan struct{} })
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
	fs := newFlags("validate", env)
	path := configFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *path == "" {
		return &usageError{"--config is required"}
	}
	if workspace.Is(*path) {
		return validateWorkspace(env, *path)
	}
	logger := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if _, _, err := load(*path, env, logger); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s: ok\n", *path)
	return nil
}

func cmdBlocks(_ context.Context, env *Env, args []string) error {
	fs := newFlags("blocks", env)
	if err := parse(fs, args); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "Blocks:")
	for _, b := range runtime.BlockTypes() {
		fmt.Fprintf(env.Stdout, "  %-16s %s\n", b.Type, b.Summary)
	}
	fmt.Fprintln(env.Stdout, "\nConnectors:")
	for _, c := range runtime.ConnectorTypes() {
		fmt.Fprintf(env.Stdout, "  %-16s %s\n", c.Type, c.Summary)
	}
	return nil
}

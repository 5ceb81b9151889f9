// Package supervisor runs units: named service configs (a flow config, one saved server of a
// workspace), each served by one build of it at a time. Units start and stop on their own, and
// every reload of a unit (octo run --watch, SIGHUP, a workspace edit) is one call, Replace,
// which serves the new config without closing the unit's ports:
//
//  1. the new config is built; a broken one is reported (file:line:col, every problem) and the
//     running build keeps serving;
//  2. when the new build differs from the running one only in the settings of blocks that take
//     edits in place (runtime.Updater: a mock keeps its MCP sessions and tells them what
//     changed), those blocks are handed their new settings and nothing else changes
//     (runtime.Service.UpdateFrom); otherwise
//  3. the new build starts on what the unit holds in the supervisor's runtime.Shared table: an
//     http connector takes its port over, so the port stays bound and every request from then
//     on, kept-alive connections included, goes to the new routes; a JWKS cache is not fetched
//     again. A build that fails to start gives everything back and the old one keeps serving;
//  4. the old build stops in the background: requests it began finish on it, its event streams
//     end, delivering first what they owe (runtime.Drainer), within Options.StopTimeout; then it
//     lets go of what it shared.
//
// A unit served over stdio keeps its build: its session lives on standard input, which a new
// build cannot take over (an edit taken in place applies; any other replace fails and the
// running build keeps serving).
//
// The commands (octo run, octo serve) and the app and console drive units through this API;
// the supervisor knows nothing of files, signals or protocols.
package supervisor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// Options tune a Supervisor.
type Options struct {
	// Logger is handed to every build; nil means slog.Default().
	Logger *slog.Logger
	// LookupEnv reads the environment for ${VAR}; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// StopTimeout bounds how long a replaced build lets its requests finish; 0 means 10s.
	StopTimeout time.Duration
	// Observer is handed to every build: metrics of the process, across units and reloads
	// (ops.Metrics); nil observes nothing.
	Observer runtime.Observer
}

// Supervisor runs units. Its methods are safe to call from several goroutines; the operations
// on one unit happen one at a time.
type Supervisor struct {
	opts   Options
	shared *runtime.Shared

	mu     sync.Mutex
	units  map[string]*unit
	failed map[string]failure // by unit name: the version Sync last failed to serve, and why
	closed bool               // Close began: no unit starts any more
}

// unit is one named config and the build that serves it.
type unit struct {
	name  string
	label string
	group string     // the Sync that declares it; "" for units started by hand
	mu    sync.Mutex // held by Start, Replace and Stop of the unit

	version string // of the config serving, as Sync was told

	// under the supervisor's mu, for Units
	svc     *runtime.Service
	builds  int
	since   time.Time
	retired int // replaced builds still stopping

	stopping sync.WaitGroup // replaced builds still stopping
}

// Status is what Units says of a unit.
type Status struct {
	// Name is the unit's name.
	Name string
	// Service is the name the serving build's config gives its service.
	Service string
	// Builds counts the builds that have served the unit: 1 until it is first replaced.
	Builds int
	// Since is when the serving build started.
	Since time.Time
	// Stopping counts replaced builds still finishing what they began.
	Stopping int
}

// Errors of the unit operations.
var (
	ErrNoUnit     = errors.New("no such unit")
	ErrUnitExists = errors.New("a unit of that name runs already")
	ErrClosed     = errors.New("the supervisor is closing")
)

// New returns a supervisor with no units.
func New(opts Options) *Supervisor {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.StopTimeout <= 0 {
		opts.StopTimeout = 10 * time.Second
	}
	return &Supervisor{opts: opts, shared: runtime.NewShared(), units: map[string]*unit{}, failed: map[string]failure{}}
}

// Start builds cfg and starts it as the unit name. ctx reaches the connectors' Start (stdio
// streams, for instance). A config that does not build comes back as config.Diags.
func (s *Supervisor) Start(ctx context.Context, name string, cfg *config.Config) error {
	return s.startUnit(ctx, &unit{name: name}, cfg)
}

// startUnit starts cfg as the new unit u.
func (s *Supervisor) startUnit(ctx context.Context, u *unit, cfg *config.Config) error {
	name := u.name
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("unit %q: %w", name, ErrClosed)
	}
	if _, ok := s.units[name]; ok {
		s.mu.Unlock()
		return fmt.Errorf("unit %q: %w", name, ErrUnitExists)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	s.units[name] = u
	s.mu.Unlock()

	svc, err := s.start(ctx, u, cfg)
	if err != nil {
		s.mu.Lock()
		delete(s.units, name)
		s.mu.Unlock()
		return err
	}
	s.serve(u, svc)
	return nil
}

// Replace builds cfg and has it serve the unit name: the running build takes it in place when
// it can (inPlace), or the new build serves and the running one stops in the background (see
// the package documentation). On any error the running build keeps serving: a config that
// does not build, or whose settings a block refuses, comes back as config.Diags.
func (s *Supervisor) Replace(ctx context.Context, name string, cfg *config.Config) (inPlace bool, err error) {
	u, err := s.lock(name)
	if err != nil {
		return false, err
	}
	defer u.mu.Unlock()
	return s.replace(ctx, u, cfg)
}

// replace is Replace on the unit u, whose lock the caller holds.
func (s *Supervisor) replace(ctx context.Context, u *unit, cfg *config.Config) (inPlace bool, err error) {
	svc, err := s.build(u, cfg)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	running := u.svc
	s.mu.Unlock()
	if inPlace, err := running.UpdateFrom(svc); inPlace || err != nil {
		if inPlace {
			s.opts.Logger.Debug("the running build took the edit in place", "unit", u.name)
		}
		return inPlace, err
	}
	if err := svc.Start(ctx); err != nil {
		return false, err
	}
	s.mu.Lock()
	old := u.svc
	u.retired++
	s.mu.Unlock()
	s.serve(u, svc)
	u.stopping.Add(1)
	go func() {
		defer u.stopping.Done()
		s.stopBuild(u, old)
		s.mu.Lock()
		u.retired--
		s.mu.Unlock()
	}()
	return false, nil
}

// Stop stops the unit name, letting its requests finish while ctx lasts, and waits for its
// replaced builds to stop as well: when it returns, the unit holds nothing. Until then the name
// stays taken.
func (s *Supervisor) Stop(ctx context.Context, name string) error {
	u, err := s.lock(name)
	if err != nil {
		return err
	}
	defer u.mu.Unlock()
	err = u.svc.Stop(ctx)
	u.stopping.Wait()
	s.mu.Lock() // only now may a unit of the name start again: the ports are let go
	delete(s.units, name)
	s.mu.Unlock()
	return err
}

// Close stops every unit, as Stop does, at once; no unit starts after it began.
func (s *Supervisor) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	names := make([]string, 0, len(s.units))
	for name := range s.units {
		names = append(names, name)
	}
	s.mu.Unlock()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, name := range names {
		wg.Go(func() {
			if err := s.Stop(ctx, name); err != nil && !errors.Is(err, ErrNoUnit) {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Leave tells every unit's build that the process is about to stop (runtime.Service.Leave):
// they keep serving, and tell their clients to go elsewhere.
func (s *Supervisor) Leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.units {
		if u.svc != nil {
			u.svc.Leave()
		}
	}
}

// Units reports every running unit, by name.
func (s *Supervisor) Units() []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Status, 0, len(s.units))
	for _, u := range s.units {
		if u.svc != nil {
			out = append(out, Status{Name: u.name, Service: u.svc.Name, Builds: u.builds, Since: u.since, Stopping: u.retired})
		}
	}
	slices.SortFunc(out, func(a, b Status) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Service returns the build serving the unit name (its connectors and instances), or nil.
func (s *Supervisor) Service(name string) *runtime.Service {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u, ok := s.units[name]; ok {
		return u.svc
	}
	return nil
}

// Shared returns the table of what the units' builds share (bound ports, key caches).
func (s *Supervisor) Shared() *runtime.Shared { return s.shared }

// lock returns the running unit name with its operations lock held.
func (s *Supervisor) lock(name string) (*unit, error) {
	s.mu.Lock()
	u, ok := s.units[name]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("unit %q: %w", name, ErrNoUnit)
	}
	u.mu.Lock()
	s.mu.Lock()
	current := s.units[name] == u
	s.mu.Unlock()
	if !current { // stopped while we waited
		u.mu.Unlock()
		return nil, fmt.Errorf("unit %q: %w", name, ErrNoUnit)
	}
	return u, nil
}

// build builds cfg as a build of u.
func (s *Supervisor) build(u *unit, cfg *config.Config) (*runtime.Service, error) {
	return runtime.NewService(cfg, runtime.Options{Logger: s.opts.Logger, LookupEnv: s.opts.LookupEnv, Shared: s.shared, Unit: u.name,
		Observer: s.opts.Observer})
}

// start builds cfg as a build of u and starts it.
func (s *Supervisor) start(ctx context.Context, u *unit, cfg *config.Config) (*runtime.Service, error) {
	svc, err := s.build(u, cfg)
	if err != nil {
		return nil, err
	}
	if err := svc.Start(ctx); err != nil {
		return nil, err
	}
	return svc, nil
}

// serve records svc as the build serving u.
func (s *Supervisor) serve(u *unit, svc *runtime.Service) {
	s.mu.Lock()
	u.svc, u.since = svc, time.Now()
	u.builds++
	s.mu.Unlock()
}

// stopBuild stops a replaced build within the stop timeout.
func (s *Supervisor) stopBuild(u *unit, svc *runtime.Service) {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.StopTimeout)
	defer cancel()
	if err := svc.Stop(ctx); err != nil {
		s.opts.Logger.Warn("the replaced build did not stop cleanly", "unit", u.name, "err", err)
		return
	}
	s.opts.Logger.Debug("the replaced build stopped", "unit", u.name)
}

package workspace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/octo-run/octo/blocks/mcp/mock"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/supervisor"
	"github.com/octo-run/octo/runtime/watch"
)

// Options tune Run.
type Options struct {
	// Environment names the active environment; "" means the one
	// workspace.yaml names.
	Environment string
	// Servers names the servers to serve (by name or file name); empty
	// means all.
	Servers []string
	// Port, when not zero, replaces the port of the one server served.
	Port      int
	Transport Transport
	Logger    *slog.Logger
	// Ready hears of each server once it serves, with the address to give
	// MCP clients ("" on stdio).
	Ready func(name, url string)
	// Poll is how often the files are checked for edits: 0 means every
	// 300ms, a negative value not at all.
	Poll time.Duration
	// Settle is how long an edited file must stay the same (size and
	// modification time) before it is applied, so that a file an editor is
	// still writing is never served half written: 0 means 500ms, a negative
	// value applies edits as soon as they are seen.
	Settle time.Duration
	// StopTimeout bounds how long a stopping server lets requests finish.
	StopTimeout time.Duration
	// Reload, when it delivers, applies the files as they are now, without
	// waiting for them to settle (SIGHUP).
	Reload <-chan struct{}
	// Observer measures every server's builds (metrics); nil measures nothing.
	Observer runtime.Observer
	// Reloaded, when set, hears the outcome of each poll that applied or refused edits of the
	// files (nil: all applied), as `octo run` tells its admin listener of a config reload.
	Reloaded func(err error)
	// Serving, when set, is called once the selected servers that could start serve;
	// Stopping when Run begins to stop them.
	Serving, Stopping func()
	// Manual starts no server by itself: Runner.Start and Runner.Stop choose which serve, and
	// new files wait to be started (the app). Servers is then ignored.
	Manual bool
	// Tap, when set, gets the traffic of every server (mock.TrafficTap): the app's store.
	Tap *mock.TrafficTap
}

// ErrNothingServed is returned when no selected server could start.
var ErrNothingServed = errors.New("no server could be started")

// Run serves the workspace at dir until ctx ends (or, on stdio, until the
// input ends), following edits to its files. Problems with one server are
// logged and leave the others serving.
func Run(ctx context.Context, dir string, opts Options) error {
	r, err := NewRunner(dir, opts)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.r.startSelected(ctx); err != nil {
		return err
	}
	call(opts.Serving)
	defer call(opts.Stopping) // runs before Close, deferred after it
	return r.Watch(ctx)
}

// call calls f when it is set.
func call(f func()) {
	if f != nil {
		f()
	}
}

// runner serves a workspace's servers and follows edits. mu guards everything but the
// fields set once in newRunner: the watch loop and the Runner's callers share it.
type runner struct {
	dir  string
	opts Options
	log  *slog.Logger
	sup  *supervisor.Supervisor // a unit per served file, named by the file
	tap  runtime.Release        // gives the traffic tap back, or nil

	mu       sync.Mutex
	vars     map[string]string
	running  map[string]*running // by file
	broken   map[string][]byte   // files that failed, by their content
	problems map[string]string   // why a file does not serve, or serves an older version
	files    *watch.Settler      // the files as last applied
	pick     selection
	edits    *edits // what the poll under way made of the edits it found; nil outside one
}

// running is one server that serves.
type running struct {
	srv *Server
	svc *runtime.Service
	url string
}

func newRunner(dir string, opts Options) (*runner, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Poll == 0 {
		opts.Poll = 300 * time.Millisecond
	}
	if opts.Settle == 0 {
		opts.Settle = 500 * time.Millisecond
	}
	if opts.StopTimeout <= 0 {
		opts.StopTimeout = 5 * time.Second
	}
	settings, ds := readSettings(dir)
	if len(ds) > 0 {
		return nil, ds.Err()
	}
	vars, err := settings.Vars(opts.Environment)
	if err != nil {
		return nil, err
	}
	r := &runner{dir: dir, opts: opts, log: opts.Logger, vars: vars, running: map[string]*running{},
		broken: map[string][]byte{}, problems: map[string]string{}, files: &watch.Settler{Settle: opts.Settle},
		sup:  supervisor.New(supervisor.Options{Logger: opts.Logger, LookupEnv: noEnv, StopTimeout: opts.StopTimeout, Observer: opts.Observer}),
		pick: selection{all: !opts.Manual && len(opts.Servers) == 0}}
	if !opts.Manual {
		r.pick.want = opts.Servers
	}
	if opts.Tap != nil {
		tap := opts.Tap
		_, r.tap, _ = runtime.Acquire(r.sup.Shared(), mock.TrafficTapKey, func() (*mock.TrafficTap, error) { return tap, nil })
	}
	return r, nil
}

// startSelected starts the servers asked for: all, or those named.
func (r *runner) startSelected(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Stamped before the files are read: an edit made while the servers start is then a change
	// the first poll applies, not the state it starts from.
	stamps := r.scan()
	servers, problems := ReadAll(r.dir)
	r.report(r.relevant(problems))
	chosen, err := r.choose(servers, problems)
	if err != nil {
		return err
	}
	if len(chosen) == 0 && len(problems) == 0 {
		return fmt.Errorf("%s has no saved servers: add one with octo new mcp-mock %s \"My server\"", r.dir, r.dir)
	}
	started := 0
	for _, s := range chosen {
		if r.start(ctx, s) == nil {
			started++
		}
	}
	r.files.Reset(stamps)
	if started == 0 {
		return ErrNothingServed
	}
	return nil
}

// relevant keeps the problems of files that may hold the servers asked
// for: all of them, or those whose file name is a wanted name.
func (r *runner) relevant(ds config.Diags) config.Diags {
	if r.pick.all {
		return ds
	}
	var out config.Diags
	for _, d := range ds {
		if r.pick.wantsFile(d.File) {
			out = append(out, d)
		}
	}
	return out
}

// choose picks the servers to serve and applies the port override.
func (r *runner) choose(all []*Server, problems config.Diags) ([]*Server, error) {
	chosen := all
	if len(r.opts.Servers) > 0 {
		chosen = nil
		for _, want := range r.opts.Servers {
			s := find(all, want)
			if s == nil {
				names := make([]string, len(all))
				for i, s := range all {
					names[i] = s.Name
				}
				if len(problems) > 0 {
					return nil, fmt.Errorf("%s (or its file could not be read, see above)", config.Unknown("server", want, names))
				}
				return nil, errors.New(config.Unknown("server", want, names))
			}
			chosen = append(chosen, s)
		}
	}
	if (r.opts.Port != 0 || r.opts.Transport == Stdio) && len(chosen) != 1 {
		what := "--port"
		if r.opts.Transport == Stdio {
			what = "--stdio"
		}
		return nil, fmt.Errorf("%s serves one server; name it (%d are selected)", what, len(chosen))
	}
	if r.opts.Port != 0 {
		chosen[0].Port, chosen[0].PortSet = r.opts.Port, true
	}
	return chosen, nil
}

// find matches a server by name or file name, ignoring case.
func find(all []*Server, want string) *Server {
	for _, s := range all {
		stem := strings.TrimSuffix(filepath.Base(s.File), filepath.Ext(s.File))
		if strings.EqualFold(s.Name, want) || strings.EqualFold(stem, want) || strings.EqualFold(filepath.Base(s.File), want) {
			return s
		}
	}
	return nil
}

// start builds and starts one server as a unit of its own; problems are logged, kept for
// States and returned.
func (r *runner) start(ctx context.Context, s *Server) error {
	cfg, _ := Adapt(s, r.vars, r.opts.Transport)
	if err := r.sup.Start(ctx, s.File, cfg); err != nil {
		r.reportErr(err, s)
		r.broken[s.File] = s.data
		r.problems[s.File] = problemText(err)
		return err
	}
	rs := r.serving(s)
	r.running[s.File] = rs
	delete(r.broken, s.File)
	delete(r.problems, s.File)
	r.announce(rs)
	return nil
}

// serving is the server s as its unit's build serves it now.
func (r *runner) serving(s *Server) *running {
	svc := r.sup.Service(s.File)
	return &running{srv: s, svc: svc}
}

// noEnv keeps the process environment out: workspace files use
// {{variables}}, not ${ENV}.
func noEnv(string) (string, bool) { return "", false }

func (r *runner) announce(rs *running) {
	if r.opts.Transport == HTTP {
		host := "127.0.0.1:" + strconv.Itoa(rs.srv.Port)
		if c, ok := rs.svc.Connector("http").(interface{ Addr() string }); ok && c.Addr() != "" {
			host = c.Addr()
		}
		rs.url = "http://" + host + rs.srv.Path
	}
	if rs.url != "" {
		r.log.Info("serving", "server", rs.srv.Name, "url", rs.url, "file", rs.srv.File)
	} else {
		r.log.Info("serving", "server", rs.srv.Name, "transport", "stdio", "file", rs.srv.File)
	}
	if r.opts.Ready != nil {
		r.opts.Ready(rs.srv.Name, rs.url)
	}
}

func (r *runner) stop(rs *running) {
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.StopTimeout)
	defer cancel()
	if err := r.sup.Stop(ctx, rs.srv.File); err != nil {
		r.log.Warn("server did not stop cleanly", "server", rs.srv.Name, "err", err)
	}
}

// stopAll stops every server and gives the traffic tap back.
func (r *runner) stopAll() {
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.StopTimeout)
	defer cancel()
	if err := r.sup.Close(ctx); err != nil {
		r.log.Warn("servers did not stop cleanly", "err", err)
	}
	r.mu.Lock()
	clear(r.running)
	r.mu.Unlock()
	if r.tap != nil {
		_ = r.tap(ctx)
	}
}

// report logs problems one per line, as file:line:col: what.
// report logs each problem and, with a traffic tap (the app), puts it in its server's traffic
// too, where the console shows it as an error: the user reads there what is wrong with a file
// they edited by hand.
func (r *runner) report(ds config.Diags) {
	for _, d := range ds {
		r.log.Error(d.String())
		if r.opts.Tap != nil && filepath.Dir(d.File) == filepath.Join(r.dir, ServersDir) {
			r.opts.Tap.Problem(r.serverOf(d.File), strings.TrimPrefix(d.String(), r.dir+string(filepath.Separator)))
		}
	}
}

// serverOf is the name of the server whose file is file: the one serving, else the file's.
func (r *runner) serverOf(file string) string {
	if rs := r.running[file]; rs != nil {
		return rs.srv.Name
	}
	if s, ds := readServer(r.dir, file); len(ds) == 0 {
		return s.Name
	}
	return strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
}

func (r *runner) reportErr(err error, s *Server) {
	var ds config.Diags
	if errors.As(err, &ds) {
		r.report(ds)
		r.log.Error("server not started", "server", s.Name, "file", s.File)
		return
	}
	r.log.Error("server not started: "+err.Error(), "server", s.Name, "file", s.File)
}

// done is closed when a stdio server's input has ended.
func (r *runner) done() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range r.running {
		if c, ok := rs.svc.Connector("stdio").(interface{ Done() <-chan struct{} }); ok {
			return c.Done()
		}
	}
	return nil
}

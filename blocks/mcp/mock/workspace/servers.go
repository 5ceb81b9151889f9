package workspace

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/octo-run/octo/blocks/mockkit/traffic"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/reload"
	"github.com/octo-run/octo/runtime/supervisor"
)

// Servers is a workspace served: its Source, a unit per server on a supervisor, kept in step
// with the files by the one reload loop (reload.Follower), with what a user asks of saved
// servers by name: start one, stop one, see them all. `octo serve` (Run) and the app
// (Options.Manual) use it. Its methods are safe to call from several goroutines.
type Servers struct {
	src   *Source
	sup   *supervisor.Supervisor
	own   bool // sup is the workspace's own, closed with it
	f     *reload.Follower
	group string
	tap   runtime.Release // gives the traffic tap back, or nil
	stop  time.Duration
}

// NewServers opens the workspace at dir on the supervisor of opts (or one of its own) and
// returns it serving nothing yet: Begin serves what it selects, Follow follows edits.
func NewServers(dir string, opts Options) (*Servers, error) {
	if opts.StopTimeout <= 0 {
		opts.StopTimeout = 5 * time.Second
	}
	src, err := Open(dir, opts)
	if err != nil {
		return nil, err
	}
	sv := &Servers{src: src, sup: opts.Supervisor, group: "workspace " + dir, stop: opts.StopTimeout}
	if sv.sup == nil {
		sv.own = true
		sv.sup = supervisor.New(supervisor.Options{Logger: src.log, LookupEnv: noEnv, StopTimeout: opts.StopTimeout, Observer: opts.Observer})
	}
	if opts.Tap != nil {
		tap := opts.Tap
		_, sv.tap, _ = runtime.Acquire(sv.sup.Shared(), traffic.TapKey, func() (*traffic.Tap, error) { return tap, nil })
	}
	sv.f = reload.New(sv.sup, src, reload.Options{Group: sv.group, Poll: opts.Poll, Settle: opts.Settle, Reload: opts.Reload, Reloaded: opts.Reloaded})
	return sv, nil
}

// Begin reads every file and serves the servers selected (all of them, those named, or none
// for the app); ErrNothingServed when some were selected and none could start.
func (sv *Servers) Begin(ctx context.Context) error {
	r := sv.f.Start(ctx)
	if sv.src.opts.Manual {
		return nil
	}
	if !slices.ContainsFunc(r.Outcomes, func(o supervisor.Outcome) bool { return o.Serving }) {
		return ErrNothingServed
	}
	return nil
}

// Follow follows edits to the files until ctx ends (or a stdio server's input does).
func (sv *Servers) Follow(ctx context.Context) { sv.f.Run(ctx, sv.inputEnded()) }

// inputEnded is closed when a stdio server's input has ended.
func (sv *Servers) inputEnded() <-chan struct{} {
	if sv.src.stdio == "" {
		return nil
	}
	if c, ok := sv.sup.Service(sv.src.stdio).Connector("stdio").(interface{ Done() <-chan struct{} }); ok {
		return c.Done()
	}
	return nil
}

// Close stops every server, letting their requests finish (Options.StopTimeout), and gives the
// traffic tap back.
func (sv *Servers) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), sv.stop)
	defer cancel()
	if sv.own {
		if err := sv.sup.Close(ctx); err != nil {
			sv.src.log.Warn("servers did not stop cleanly", "err", err)
		}
	} else {
		sv.sup.Sync(ctx, sv.group, nil, supervisor.SyncOptions{})
	}
	sv.src.mu.Lock()
	clear(sv.src.serving)
	sv.src.mu.Unlock()
	if sv.tap != nil {
		_ = sv.tap(ctx)
	}
}

// Run serves the workspace at dir until ctx ends (or, on stdio, until the input ends),
// following edits to its files. Problems with one server are logged and leave the others
// serving.
func Run(ctx context.Context, dir string, opts Options) error {
	sv, err := NewServers(dir, opts)
	if err != nil {
		return err
	}
	defer sv.Close()
	if err := sv.Begin(ctx); err != nil {
		return err
	}
	call(opts.Serving)
	defer call(opts.Stopping) // runs before Close, deferred after it
	sv.Follow(ctx)
	return nil
}

// call calls f when it is set.
func call(f func()) {
	if f != nil {
		f()
	}
}

// State is what States says of one saved server.
type State struct {
	// Name is the server's name (its file name without .yaml when the file cannot be read).
	Name string
	File string
	// Kind is KindMCP or KindHTTP ("" when the file cannot be read).
	Kind string
	// Running tells whether it serves; URL is then the address to give MCP clients ("" on stdio).
	Running bool
	URL     string
	// Problem says why it does not serve (a broken file, a port in use), or why it serves an
	// older version of its file (an edit that was not applied); "" when none.
	Problem string
}

// States reports every saved server of the workspace, in file order.
func (sv *Servers) States() []State {
	w := sv.src
	files, _ := serverFiles(w.dir)
	servers, ds := ReadAll(w.dir)
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]State, 0, len(files))
	for _, f := range files {
		out = append(out, w.state(f, servers, ds))
	}
	return out
}

// state is the State of the server file f; servers and ds are what ReadAll read.
func (w *Source) state(f string, servers []*Server, ds config.Diags) State {
	st := State{Name: strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)), File: f, Problem: w.problems[f]}
	if i := slices.IndexFunc(servers, func(s *Server) bool { return s.File == f }); i >= 0 {
		st.Name, st.Kind = servers[i].Name, servers[i].Kind
	}
	if rs := w.serving[f]; rs != nil {
		st.Name, st.Kind, st.Running, st.URL = rs.srv.Name, rs.srv.Kind, true, rs.url
		return st
	}
	if st.Problem == "" {
		var own config.Diags
		for _, d := range ds {
			if d.File == f {
				own = append(own, d)
			}
		}
		if len(own) > 0 {
			st.Problem = problemText(own)
		}
	}
	return st
}

// Start serves the saved server name (its name or file name, in any case) and keeps it among
// the servers that serve when its file is edited. A server that serves already is left as it
// is. The error says why it cannot serve: no such server, a broken file, a port in use.
func (sv *Servers) Start(ctx context.Context, name string) (State, error) {
	w := sv.src
	if w.opts.Transport == Stdio {
		return State{}, errors.New("a workspace served over stdio serves only the server it started with")
	}
	servers, ds := ReadAll(w.dir)
	s := find(servers, name)
	if s == nil {
		return State{}, w.unknown(name, servers, ds)
	}
	w.mu.Lock()
	w.pick.add(filepath.Base(s.File))
	_, serving := w.serving[s.File]
	w.mu.Unlock()
	if !serving {
		// Read at once, settled or not: a file just saved is started as it is.
		sv.f.Sync(context.WithoutCancel(ctx), []string{s.File}, s.File)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.state(s.File, servers, ds)
	if !st.Running {
		return st, fmt.Errorf("%s did not start: %s", s.Name, st.Problem)
	}
	return st, nil
}

// unknown is the error for a name that matches no readable saved server: a broken file of that
// name says what is wrong with it.
func (w *Source) unknown(name string, servers []*Server, ds config.Diags) error {
	var own config.Diags
	for _, d := range ds {
		if fileNamed(d.File, name) {
			own = append(own, d)
		}
	}
	if len(own) > 0 {
		return fmt.Errorf("%s cannot be read: %s", name, problemText(own))
	}
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.Name
	}
	return errors.New(config.Unknown("server", name, names))
}

// Stop stops the saved server name (its name or file name) and keeps it stopped when its file
// is edited, until Start; it returns the server's state. Stopping a server that does not serve
// does nothing.
func (sv *Servers) Stop(ctx context.Context, name string) (State, error) {
	w := sv.src
	servers, ds := ReadAll(w.dir)
	w.mu.Lock()
	var rs *running
	for _, x := range w.serving {
		if find([]*Server{x.srv}, name) != nil {
			rs = x
		}
	}
	s := find(servers, name)
	switch {
	case rs != nil:
		s = rs.srv
	case s == nil:
		w.mu.Unlock()
		return State{}, w.unknown(name, servers, ds)
	}
	w.pick.remove(s)
	w.mu.Unlock()
	if rs != nil {
		sv.f.Sync(context.WithoutCancel(ctx), nil)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state(s.File, servers, ds), nil
}

// selection says which saved servers should serve: all (but those stopped), or those asked for.
type selection struct {
	all  bool
	want []string // names or file names asked for
	skip []string // names or file names stopped while all serve
}

// has reports whether s should serve.
func (p *selection) has(s *Server) bool {
	in := func(names []string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return find([]*Server{s}, n) != nil })
	}
	return p.all && !in(p.skip) || in(p.want)
}

// wantsFile reports whether the file may hold a server asked for by name.
func (p *selection) wantsFile(file string) bool {
	return slices.ContainsFunc(p.want, func(n string) bool { return fileNamed(file, n) })
}

func (p *selection) add(file string) {
	p.skip = slices.DeleteFunc(p.skip, func(n string) bool { return fileNamed(file, n) })
	if !p.all && !slices.Contains(p.want, file) {
		p.want = append(p.want, file)
	}
}

func (p *selection) remove(s *Server) {
	p.want = slices.DeleteFunc(p.want, func(n string) bool { return find([]*Server{s}, n) != nil })
	if p.all {
		p.skip = append(p.skip, filepath.Base(s.File))
	}
}

// fileNamed reports whether file's name, with or without its extension, is name (any case).
func fileNamed(file, name string) bool {
	base := filepath.Base(file)
	return strings.EqualFold(base, name) || strings.EqualFold(strings.TrimSuffix(base, filepath.Ext(base)), name)
}

package workspace

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/octo-run/octo/runtime/config"
)

// Runner serves a workspace's saved servers, each a unit of its own that starts and stops on
// its own, and follows edits to the files while Watch runs. `octo serve` (through Run) and the
// app (Options.Manual) use it. Its methods are safe to call from several goroutines.
type Runner struct {
	r *runner
}

// NewRunner reads the workspace settings at dir and returns a runner serving nothing yet.
func NewRunner(dir string, opts Options) (*Runner, error) {
	r, err := newRunner(dir, opts)
	if err != nil {
		return nil, err
	}
	return &Runner{r: r}, nil
}

// Dir is the workspace folder.
func (rn *Runner) Dir() string { return rn.r.dir }

// Watch follows edits to the files until ctx ends (or a stdio server's input does).
func (rn *Runner) Watch(ctx context.Context) error { return rn.r.watch(ctx) }

// Close stops every server; it waits while their requests finish (Options.StopTimeout).
func (rn *Runner) Close() { rn.r.stopAll() }

// State is what States says of one saved server.
type State struct {
	// Name is the server's name (its file name without .yaml when the file cannot be read).
	Name string
	File string
	// Running tells whether it serves; URL is then the address to give MCP clients ("" on stdio).
	Running bool
	URL     string
	// Problem says why it does not serve (a broken file, a port in use), or why it serves an
	// older version of its file (an edit that was not applied); "" when none.
	Problem string
}

// States reports every saved server of the workspace, in file order.
func (rn *Runner) States() []State {
	r := rn.r
	files, _ := serverFiles(r.dir)
	servers, ds := ReadAll(r.dir)
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]State, 0, len(files))
	for _, f := range files {
		out = append(out, r.state(f, servers, ds))
	}
	return out
}

// state is the State of the server file f; servers and ds are what ReadAll read.
func (r *runner) state(f string, servers []*Server, ds config.Diags) State {
	st := State{Name: strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)), File: f, Problem: r.problems[f]}
	if i := slices.IndexFunc(servers, func(s *Server) bool { return s.File == f }); i >= 0 {
		st.Name = servers[i].Name
	}
	if rs := r.running[f]; rs != nil {
		st.Name, st.Running, st.URL = rs.srv.Name, true, rs.url
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
func (rn *Runner) Start(ctx context.Context, name string) (State, error) {
	r := rn.r
	if r.opts.Transport == Stdio {
		return State{}, errors.New("a workspace served over stdio serves only the server it started with")
	}
	servers, ds := ReadAll(r.dir)
	r.mu.Lock()
	defer r.mu.Unlock()
	s := find(servers, name)
	if s == nil {
		return State{}, r.unknown(name, servers, ds)
	}
	r.pick.add(filepath.Base(s.File))
	if r.running[s.File] == nil {
		delete(r.problems, s.File)
		if err := r.startNew(context.WithoutCancel(ctx), s); err != nil {
			return r.state(s.File, servers, ds), fmt.Errorf("%s did not start: %s", s.Name, problemText(err))
		}
	}
	return r.state(s.File, servers, ds), nil
}

// unknown is the error for a name that matches no readable saved server: a broken file of that
// name says what is wrong with it.
func (r *runner) unknown(name string, servers []*Server, ds config.Diags) error {
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
func (rn *Runner) Stop(ctx context.Context, name string) (State, error) {
	r := rn.r
	servers, ds := ReadAll(r.dir)
	r.mu.Lock()
	defer r.mu.Unlock()
	var rs *running
	for _, x := range r.running {
		if find([]*Server{x.srv}, name) != nil {
			rs = x
		}
	}
	s := find(servers, name)
	switch {
	case rs != nil:
		s = rs.srv
	case s == nil:
		return State{}, r.unknown(name, servers, ds)
	}
	r.pick.remove(s)
	if rs != nil {
		if err := r.sup.Stop(context.WithoutCancel(ctx), s.File); err != nil {
			r.log.Warn("server did not stop cleanly", "server", s.Name, "err", err)
		}
		delete(r.running, s.File)
		r.log.Info("server stopped", "server", s.Name, "file", s.File)
	}
	return r.state(s.File, servers, ds), nil
}

// problemText is an error as one line: a config.Diags as its problems joined by "; ".
func problemText(err error) string {
	var ds config.Diags
	if errors.As(err, &ds) {
		parts := make([]string, len(ds))
		for i, d := range ds {
			parts[i] = d.String()
		}
		return strings.Join(parts, "; ")
	}
	return err.Error()
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

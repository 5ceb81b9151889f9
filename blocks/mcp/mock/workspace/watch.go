package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"time"

	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/watch"
)

// scan stamps workspace.yaml and every saved server file.
func (r *runner) scan() map[string]watch.Stamp {
	files, _ := serverFiles(r.dir)
	return watch.Stat(append(files, filepath.Join(r.dir, SettingsFile)))
}

// watch polls the files until ctx ends (or a stdio server's input does),
// applying each edit.
func (r *runner) watch(ctx context.Context) error {
	var tick <-chan time.Time
	if r.opts.Poll > 0 {
		t := time.NewTicker(r.opts.Poll)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-r.done():
			return nil
		case <-tick:
			r.locked(func() { r.poll(ctx, r.files.Next) })
		case <-r.opts.Reload:
			r.log.Info("applying the files as they are now")
			r.locked(func() { r.poll(ctx, r.files.Flush) })
		}
	}
}

// locked runs f holding r.mu.
func (r *runner) locked(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f()
}

// poll applies what changed since the last poll: what has settled, with next = r.files.Next.
// A poll that applied or refused an edit is one reload, told to Options.Reloaded: failed when
// any edit in it was refused.
func (r *runner) poll(ctx context.Context, next func(map[string]watch.Stamp) (before, after map[string]watch.Stamp, changed bool)) {
	cur := r.scan()
	prev, now, changed := next(cur)
	if !changed {
		return
	}
	r.edits = &edits{}
	defer func() {
		if r.edits.seen && r.opts.Reloaded != nil {
			r.opts.Reloaded(r.edits.err)
		}
		r.edits = nil
	}()
	settingsFile := filepath.Join(r.dir, SettingsFile)
	if now[settingsFile] != prev[settingsFile] && r.reloadSettings() {
		for _, rs := range r.running {
			r.reload(ctx, rs, rs.srv)
		}
	}
	for file := range r.problems {
		if _, exists := cur[file]; !exists {
			delete(r.problems, file)
		}
	}
	for file, rs := range r.running {
		// A file saved and started at once (an agent's save_server, then start_server) is
		// not settled yet, so not among the files applied: it is gone only when it is gone.
		_, applied := now[file]
		if _, exists := cur[file]; !applied && !exists {
			r.log.Info("server stopped: its file was removed", "server", rs.srv.Name, "file", file)
			r.stop(rs)
			delete(r.running, file)
			r.edits.note(nil)
		}
	}
	for file, st := range now {
		if file == settingsFile || prev[file] == st {
			continue
		}
		r.changed(ctx, file)
	}
}

// reloadSettings rereads workspace.yaml; a broken one is reported and the
// variables in use stay. It reports whether the variables changed, for the
// running servers to take them.
func (r *runner) reloadSettings() bool {
	settings, ds := readSettings(r.dir)
	if len(ds) > 0 {
		r.report(ds)
		r.log.Error("workspace settings not applied; the servers keep their variables")
		r.edits.note(ds)
		return false
	}
	vars, err := settings.Vars(r.opts.Environment)
	if err != nil {
		r.log.Error("workspace settings not applied: " + err.Error())
		r.edits.note(err)
		return false
	}
	changed := !maps.Equal(vars, r.vars)
	r.vars = vars
	if !changed {
		r.edits.note(nil)
	}
	return changed
}

// changed handles one saved server file that is new or was edited.
func (r *runner) changed(ctx context.Context, file string) {
	rs := r.running[file]
	s, ds := readServer(r.dir, file)
	if len(ds) > 0 {
		if rs == nil {
			ds = r.relevant(ds)
		}
		r.report(ds)
		if len(ds) > 0 {
			r.edits.note(ds)
		}
		if rs != nil { // a server that does not serve shows its file's problems as they are (States)
			r.problems[file] = problemText(ds)
			r.log.Error("edit not applied; the last good version keeps serving", "server", rs.srv.Name, "file", file)
		}
		return
	}
	if rs != nil {
		if ds := dropsKeys(rs.srv, s); len(ds) > 0 {
			r.report(ds)
			r.edits.note(ds)
			r.problems[file] = problemText(ds)
			r.log.Error("edit not applied; the last good version keeps serving", "server", rs.srv.Name, "file", file)
			return
		}
	}
	if rs != nil && bytes.Equal(rs.srv.data, s.data) {
		if _, had := r.problems[file]; had { // a refused edit undone: the version serving is the file's
			delete(r.problems, file)
			r.edits.note(nil)
		}
		return
	}
	if rs == nil && bytes.Equal(r.broken[file], s.data) {
		return // touched, not edited: what was found wrong with it still holds
	}
	delete(r.problems, file)
	if !r.pick.has(s) || rs == nil && r.opts.Transport == Stdio {
		return
	}
	if rs == nil {
		r.edits.note(r.startNew(ctx, s)) // logged
		return
	}
	if r.opts.Port != 0 {
		s.Port, s.PortSet = r.opts.Port, true
	} else if !s.PortSet {
		s.Port = rs.srv.Port
	}
	r.reload(ctx, rs, s)
}

// reload has the supervisor serve the edited s in place of rs: the running server takes an
// edit of its settings in place, keeping its sessions and telling them what changed, and any
// other edit (a name, port or path, what a server takes only when built again) starts a new
// build (on a new port, bound before the old one is let go) before the old one stops, so a
// broken edit never stops it and a restart drops no request.
func (r *runner) reload(ctx context.Context, old *running, s *Server) {
	cfg, _ := Adapt(s, r.vars, r.opts.Transport)
	inPlace, err := r.sup.Replace(ctx, s.File, cfg)
	if err != nil {
		var ds config.Diags
		switch {
		case errors.As(err, &ds):
			r.report(ds)
		case r.opts.Transport == Stdio: // the new build could not take the session's streams over
			r.log.Error("this edit changes what a stdio server can only change when started again; restart it",
				"server", old.srv.Name, "file", s.File)
			err = errStdioRestart
		default:
			r.log.Error("server not restarted: "+err.Error(), "server", s.Name, "file", s.File)
		}
		r.problems[s.File] = problemText(err)
		r.log.Error("edit not applied; the last good version keeps serving", "server", old.srv.Name, "file", s.File)
		r.edits.note(err)
		return
	}
	rs := r.serving(s)
	r.running[s.File] = rs
	if inPlace {
		rs.url = old.url
	} else {
		r.log.Info("server restarted to apply the edit", "server", s.Name, "file", s.File)
		r.announce(rs)
	}
	r.edits.note(nil)
}

// startNew starts a server whose file appeared or was fixed, or that was asked for, beside the
// running ones: a clash with one of them is refused, and a server without a port takes the
// first one they leave free.
func (r *runner) startNew(ctx context.Context, s *Server) error {
	others := make([]*Server, 0, len(r.running))
	used := map[int]bool{}
	for _, rs := range r.running {
		others = append(others, rs.srv)
		used[rs.srv.Port] = true
	}
	if clash := clashes(s, others); clash != "" {
		r.log.Error(s.File + ": " + clash + "; this server is not started")
		r.broken[s.File] = s.data
		r.problems[s.File] = clash
		return errors.New(clash)
	}
	if !s.PortSet {
		s.Port = nextPort(used)
	}
	return r.start(ctx, s)
}

// errStdioRestart is why an edit a stdio server can only take by starting again is refused.
var errStdioRestart = errors.New("a stdio server takes this edit only when started again")

// edits is what one poll made of the edits it found: whether it applied or refused any, and
// the first refusal. A nil *edits (outside a poll: Runner.Start) notes nothing.
type edits struct {
	seen bool
	err  error
}

// note records one edit applied (err nil) or refused.
func (e *edits) note(err error) {
	if e == nil {
		return
	}
	e.seen = true
	if e.err == nil {
		e.err = err
	}
}

// dropsKeys refuses an edit of a serving server's file that lacks a top-level key the version
// serving has (name, kind, port, mcp): most likely a file still being written, paused past the
// settle time, whose end has not arrived. Serving it would drop every tool of the server.
func dropsKeys(serving, edited *Server) config.Diags {
	var missing []string
	for i := 0; i+1 < len(serving.root.Content); i += 2 {
		key := serving.root.Content[i].Value
		if k, _ := entry(edited.root, key); k == nil {
			missing = append(missing, key)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return config.Diags{{File: edited.File, Line: edited.root.Line, Col: edited.root.Column,
		Msg: fmt.Sprintf("the file lacks %s, which the version serving has: is it still being written? "+
			"The last good version keeps serving; save the file whole (write mcp: {} to empty a server on purpose)", strings.Join(missing, ", "))}}
}

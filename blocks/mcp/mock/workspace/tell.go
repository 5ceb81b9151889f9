package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/reload"
	"github.com/octo-run/octo/runtime/supervisor"
)

// Tell says what one reading of the workspace came to (reload.Teller): each problem on a line
// of its own (and in its server's traffic, for the app's console), each server that serves with
// its address, each edit not taken, and each server stopped. It also keeps what serves, for
// States and for the next reading.
func (w *Source) Tell(r reload.Report) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if r.Trigger == "SIGHUP" {
		w.log.Info("applying the files as they are now")
	}
	w.report(r.Problems)
	if w.edits.settingsRefused {
		w.log.Error("workspace settings not applied; the servers keep their variables")
	}
	for file, name := range w.edits.refused {
		w.log.Error("edit not applied; the last good version keeps serving", "server", name, "file", file)
	}
	for _, o := range r.Outcomes {
		w.tellOutcome(o)
	}
}

// tellOutcome says what became of one server, and records it.
func (w *Source) tellOutcome(o supervisor.Outcome) {
	file, name := o.Unit.Name, o.Unit.Title()
	switch o.Action {
	case supervisor.Started:
		delete(w.problems, file)
		w.announce(file, o.Service)
	case supervisor.Replaced:
		delete(w.problems, file)
		w.log.Info("server restarted to apply the edit", "server", name, "file", file)
		w.announce(file, o.Service)
	case supervisor.UpdatedInPlace:
		delete(w.problems, file)
		if rs := w.serving[file]; rs != nil {
			rs.srv = w.good[file]
		}
	case supervisor.Kept:
		if o.Err != nil {
			w.problems[file] = problemText(o.Err)
		}
	case supervisor.Stopped:
		delete(w.serving, file)
		if _, err := os.Lstat(file); errors.Is(err, os.ErrNotExist) {
			w.log.Info("server stopped: its file was removed", "server", name, "file", file)
		} else {
			w.log.Info("server stopped", "server", name, "file", file)
		}
	case supervisor.Failed:
		w.failed(o)
	}
}

// failed says why a server did not start, or why its edit was not applied while the version
// before it keeps serving.
func (w *Source) failed(o supervisor.Outcome) {
	file, name := o.Unit.Name, o.Unit.Title()
	err := o.Err
	var ds config.Diags
	switch {
	case errors.As(err, &ds):
		w.report(ds)
	case o.Serving && w.opts.Transport == Stdio: // the new build could not take the session's streams over
		w.log.Error("this edit changes what a stdio server can only change when started again; restart it", "server", name, "file", file)
		err = errStdioRestart
	case o.Serving:
		w.log.Error("server not restarted: "+err.Error(), "server", name, "file", file)
	default:
		w.log.Error("server not started: "+err.Error(), "server", name, "file", file)
	}
	w.problems[file] = problemText(err)
	switch {
	case o.Serving:
		w.log.Error("edit not applied; the last good version keeps serving", "server", name, "file", file)
	case ds != nil:
		w.log.Error("server not started", "server", name, "file", file)
	}
}

// errStdioRestart is why an edit a stdio server can only take by starting again is refused.
var errStdioRestart = errors.New("a stdio server takes this edit only when started again")

// announce records the server of file as serving on svc and says where.
func (w *Source) announce(file string, svc *runtime.Service) {
	s := w.good[file]
	rs := &running{srv: s}
	if w.opts.Transport == HTTP {
		host := "127.0.0.1:" + strconv.Itoa(s.Port)
		if c, ok := svc.Connector("http").(interface{ Addr() string }); ok && c.Addr() != "" {
			host = c.Addr()
		}
		rs.url = "http://" + host + s.Path
	}
	w.serving[file] = rs
	if rs.url != "" {
		w.log.Info("serving", "server", s.Name, "url", rs.url, "file", file)
	} else {
		w.log.Info("serving", "server", s.Name, "transport", "stdio", "file", file)
	}
	if w.opts.Ready != nil {
		w.opts.Ready(s.Name, rs.url)
	}
}

// report logs each problem and, with a traffic tap (the app), puts it in its server's traffic
// too, where the console shows it as an error: the user reads there what is wrong with a file
// they edited by hand.
func (w *Source) report(ds config.Diags) {
	for _, d := range ds {
		w.log.Error(d.String())
		if w.opts.Tap != nil && filepath.Dir(d.File) == filepath.Join(w.dir, ServersDir) {
			w.opts.Tap.Problem(w.serverOf(d.File), strings.TrimPrefix(d.String(), w.dir+string(filepath.Separator)))
		}
	}
}

// serverOf is the name of the server whose file is file: the one serving, else the file's.
func (w *Source) serverOf(file string) string {
	if rs := w.serving[file]; rs != nil {
		return rs.srv.Name
	}
	if s, ds := readServer(w.dir, file); len(ds) == 0 {
		return s.Name
	}
	return strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
}

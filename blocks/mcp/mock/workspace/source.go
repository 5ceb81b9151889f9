package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/octo-run/octo/blocks/mockkit/traffic"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/supervisor"
	"gopkg.in/yaml.v3"
)

// Options tune a workspace served (Run, NewServers), and its source (Open).
type Options struct {
	// Environment names the active environment; "" means the one workspace.yaml names.
	Environment string
	// Servers names the servers to serve (by name or file name); empty means all.
	Servers []string
	// Port, when not zero, replaces the port of the one server served.
	Port      int
	Transport Transport
	Logger    *slog.Logger
	// Ready hears of each server once it serves, with the address to give MCP clients ("" on
	// stdio).
	Ready func(name, url string)
	// Manual serves no server by itself: Select and Unselect choose which serve, and new files
	// wait to be selected (the app). Servers is then ignored.
	Manual bool
	// Tap, when set, gets the traffic of every server, and each problem of a server's file,
	// which the app's console shows in the server's traffic.
	Tap *traffic.Tap

	// Supervisor runs the servers, a unit each, beside whatever else it runs (the app's
	// console); nil gives the workspace one of its own, closed with it.
	Supervisor *supervisor.Supervisor
	// Poll and Settle are how often the files are looked at, and how long an edit must stay
	// the same before it is applied (reload.Options).
	Poll, Settle time.Duration
	// StopTimeout bounds how long a stopping server lets requests finish; 0 means 5s.
	StopTimeout time.Duration
	// Reload, when it delivers, applies the files as they are now, settled or not (SIGHUP).
	Reload <-chan struct{}
	// Observer measures the servers' builds (metrics), on a supervisor of the workspace's own.
	Observer runtime.Observer
	// Reloaded, when set, hears the outcome of each reading that applied or refused edits
	// (nil: all applied).
	Reloaded func(err error)
	// Serving, when set, is called once the selected servers that could start serve;
	// Stopping when Run begins to stop them.
	Serving, Stopping func()
}

// Source is a workspace folder as the units of a supervisor (runtime.UnitSource): one per saved
// server chosen to serve, named by its file and labelled with the server's name, adapted to the
// transport chosen (Adapt). It reads a file again only when it was edited, keeps the version
// of a file last read well while an edit of it cannot be taken, gives a server without a port
// the first one the others leave free (and keeps it), and refuses a new server that clashes
// with one serving. It tells what became of each server in its own words (Tell).
type Source struct {
	dir  string
	opts Options
	log  *slog.Logger

	mu       sync.Mutex
	vars     map[string]string
	cluster  *yaml.Node          // the workspace's, nil for none
	good     map[string]*Server  // by file: the version read well and taken
	ports    map[string]int      // by file: the port given a server without one
	problems map[string]string   // by file: why it does not serve, or serves an older version
	serving  map[string]*running // by file: what serves, as the last report told
	pick     selection
	stdio    string // the one file served over stdio
	edits    editNotes
}

// running is one server that serves.
type running struct {
	srv *Server
	url string
}

// editNotes is what the reading under way found, for Tell to say.
type editNotes struct {
	settingsRefused bool              // workspace.yaml was edited and not taken
	refused         map[string]string // by file: the name of a serving server whose edit was not taken
}

// ErrNothingServed is returned when no selected server could start.
var ErrNothingServed = errors.New("no server could be started")

// Open reads the settings of the workspace at dir and returns it as a source serving nothing
// yet. It refuses what it cannot serve: an unknown environment or server name, --port or
// --stdio for more than one server.
func Open(dir string, opts Options) (*Source, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	settings, ds := readSettings(dir)
	if len(ds) > 0 {
		return nil, ds.Err()
	}
	vars, err := settings.Vars(opts.Environment)
	if err != nil {
		return nil, err
	}
	w := &Source{dir: dir, opts: opts, log: opts.Logger, vars: vars, cluster: settings.Cluster, good: map[string]*Server{}, ports: map[string]int{},
		problems: map[string]string{}, serving: map[string]*running{}, pick: selection{all: !opts.Manual && len(opts.Servers) == 0}}
	if opts.Manual {
		return w, nil
	}
	w.pick.want = opts.Servers
	if err := w.choose(); err != nil {
		return nil, err
	}
	return w, nil
}

// choose checks the servers asked for by name against the files, and what --port and --stdio
// need: one server.
func (w *Source) choose() error {
	all, problems := ReadAll(w.dir)
	chosen := all
	if len(w.opts.Servers) > 0 {
		chosen = nil
		for _, want := range w.opts.Servers {
			s := find(all, want)
			if s == nil {
				names := make([]string, len(all))
				for i, s := range all {
					names[i] = s.Name
				}
				if len(problems) > 0 {
					return fmt.Errorf("%s (or its file could not be read, see above)", config.Unknown("server", want, names))
				}
				return errors.New(config.Unknown("server", want, names))
			}
			chosen = append(chosen, s)
		}
	}
	if (w.opts.Port != 0 || w.opts.Transport == Stdio) && len(chosen) != 1 {
		what := "--port"
		if w.opts.Transport == Stdio {
			what = "--stdio"
		}
		return fmt.Errorf("%s serves one server; name it (%d are selected)", what, len(chosen))
	}
	if len(chosen) == 0 && len(problems) == 0 {
		return fmt.Errorf("%s has no saved servers: add one with octo new mcp-mock %s \"My server\"", w.dir, w.dir)
	}
	if w.opts.Transport == Stdio {
		if chosen[0].Kind == KindHTTP {
			return fmt.Errorf("%s is an HTTP API (kind http); --stdio serves an MCP server: serve it without --stdio", chosen[0].Name)
		}
		w.stdio = chosen[0].File
	}
	return nil
}

// Files lists workspace.yaml and every saved server file (runtime.UnitSource).
func (w *Source) Files() []string {
	files, _ := serverFiles(w.dir)
	return append(files, filepath.Join(w.dir, SettingsFile))
}

// Units reads what changed of the workspace and returns a unit per server chosen to serve
// (runtime.UnitSource): changed nil reads every file.
func (w *Source) Units(changed []string) ([]runtime.Unit, config.Diags) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.edits = editNotes{refused: map[string]string{}}
	all := changed == nil
	var news config.Diags
	settingsFile := filepath.Join(w.dir, SettingsFile)
	if !all && slices.Contains(changed, settingsFile) {
		news = append(news, w.rereadSettings()...)
	}
	files, err := serverFiles(w.dir)
	if err != nil {
		news = append(news, config.Diag{File: filepath.Join(w.dir, ServersDir), Msg: "cannot read folder: " + osMessage(err)})
	}
	for _, file := range files {
		if all || slices.Contains(changed, file) {
			news = append(news, w.read(file)...)
		}
	}
	for file := range w.good {
		if !slices.Contains(files, file) {
			delete(w.good, file)
			delete(w.ports, file)
		}
	}
	for file := range w.problems {
		if !slices.Contains(files, file) {
			delete(w.problems, file)
		}
	}
	units, clashes := w.units(files)
	return units, append(news, clashes...)
}

// rereadSettings takes an edit of workspace.yaml: its variables reach every server (each
// server's version follows them). A broken file is reported and the variables in use stay.
func (w *Source) rereadSettings() config.Diags {
	settings, ds := readSettings(w.dir)
	if len(ds) > 0 {
		w.edits.settingsRefused = true
		return ds
	}
	vars, err := settings.Vars(w.opts.Environment)
	if err != nil {
		w.edits.settingsRefused = true
		return config.Diags{{File: filepath.Join(w.dir, SettingsFile), Msg: err.Error()}}
	}
	w.vars, w.cluster = vars, settings.Cluster
	return nil
}

// read reads one saved server file that is new or was edited, and returns its problems. A
// serving server whose edit cannot be taken (broken, or lacking a key the version serving has:
// most likely still being written) keeps serving the version read before.
func (w *Source) read(file string) config.Diags {
	s, ds := readServer(w.dir, file)
	_, serving := w.serving[file]
	if len(ds) == 0 && serving {
		ds = dropsKeys(w.good[file], s)
	}
	if len(ds) > 0 {
		if serving {
			w.problems[file] = problemText(ds)
			w.edits.refused[file] = w.good[file].Name
			return ds
		}
		delete(w.good, file)
		w.problems[file] = problemText(ds)
		return w.relevant(ds)
	}
	delete(w.problems, file)
	w.good[file] = s
	return nil
}

// relevant keeps the problems of files that may hold the servers asked for: all of them, or
// those whose file name is a wanted name.
func (w *Source) relevant(ds config.Diags) config.Diags {
	if w.pick.all {
		return ds
	}
	var out config.Diags
	for _, d := range ds {
		if w.pick.wantsFile(d.File) {
			out = append(out, d)
		}
	}
	return out
}

// units are the servers chosen to serve. Those serving are taken first, so a new server that
// clashes with one of them (a name, a port) is refused, not the other way round; a server
// without a port keeps the one it serves on, and one that does not serve yet takes the first
// port the others leave free.
func (w *Source) units(files []string) ([]runtime.Unit, config.Diags) {
	var chosen []*Server
	for _, file := range files {
		s := w.good[file]
		if s == nil || !w.pick.has(s) || w.stdio != "" && file != w.stdio {
			continue
		}
		chosen = append(chosen, s)
	}
	serving := func(s *Server) bool { _, ok := w.serving[s.File]; return ok }
	slices.SortStableFunc(chosen, func(a, b *Server) int {
		switch {
		case serving(a) && !serving(b):
			return -1
		case serving(b) && !serving(a):
			return 1
		}
		return 0
	})
	var (
		taken    []*Server
		problems config.Diags
		used     = map[int]bool{}
	)
	for _, s := range chosen {
		if !serving(s) {
			if clash := clashes(s, taken); clash != "" {
				if w.problems[s.File] != clash { // told once, until its file is edited
					problems = append(problems, config.Diag{File: s.File, Line: s.root.Line, Col: s.root.Column, Msg: clash + "; this server is not started"})
					w.problems[s.File] = clash
				}
				continue
			}
		}
		taken = append(taken, s)
		switch {
		case s.PortSet && s.Port != 0:
			used[s.Port] = true
		case !s.PortSet && serving(s) && w.ports[s.File] != 0:
			used[w.ports[s.File]] = true
		case !s.PortSet:
			delete(w.ports, s.File) // given anew when it starts: the port it had may be taken since
		}
	}
	out := make([]runtime.Unit, 0, len(taken))
	for _, s := range taken {
		out = append(out, w.unit(s, used))
	}
	return out, problems
}

// unit adapts s as the unit its file names, with the port it serves on: --port, the file's, or
// the one it was given, else the first one free.
func (w *Source) unit(s *Server, used map[int]bool) runtime.Unit {
	switch {
	case w.opts.Port != 0:
		s.Port, s.PortSet = w.opts.Port, true
	case !s.PortSet:
		if w.ports[s.File] == 0 {
			w.ports[s.File] = nextPort(used)
			used[w.ports[s.File]] = true
		}
		s.Port = w.ports[s.File]
	}
	cfg, _ := Adapt(s, w.vars, w.cluster, w.opts.Transport)
	return runtime.Unit{Name: s.File, Label: s.Name, Config: cfg, Version: version(s, w.vars, w.cluster, w.opts.Transport)}
}

// version is what the unit of s is made from: its file's text, the port it serves on, the
// variables, the cluster and the transport.
func version(s *Server, vars map[string]string, cluster *yaml.Node, t Transport) string {
	h := sha256.New()
	h.Write(s.data)
	fmt.Fprintf(h, "\x00port=%d\x00transport=%d", s.Port, t)
	if cluster != nil {
		b, _ := yaml.Marshal(cluster)
		fmt.Fprintf(h, "\x00cluster=%s", b)
	}
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		fmt.Fprintf(h, "\x00%s=%s", strconv.Quote(k), strconv.Quote(vars[k]))
	}
	return hex.EncodeToString(h.Sum(nil))
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

// noEnv keeps the process environment out: workspace files use {{variables}}, not ${ENV}.
func noEnv(string) (string, bool) { return "", false }

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

// Package reload keeps what a config declares served: it reads a runtime.UnitSource (a flow
// config, a workspace folder), has a supervisor serve its units (supervisor.Sync), and reads
// it again on each edit of its files once the edit has settled, or at once when asked
// (SIGHUP). It is the one reload loop of every command; what a source says of an outcome, in
// its own words, is the source's (Teller). It knows nothing of what the files hold.
package reload

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/supervisor"
	"github.com/octo-run/octo/runtime/watch"
)

// Defaults: how often the files are looked at, and how long an edit must stay the same before
// it is applied (a file an editor is still writing is never read half written).
const (
	DefaultPoll   = 300 * time.Millisecond
	DefaultSettle = 500 * time.Millisecond
)

// Source is a config whose units a Follower serves, and which tells what became of them.
type Source interface {
	runtime.UnitSource
	Teller
}

// Teller tells what one reading of a source came to, in the source's own words: its log
// lines, the addresses it announces.
type Teller interface {
	Tell(Report)
}

// Report is what one reading of a source came to.
type Report struct {
	// Trigger is what asked for it: "start", "edit", "SIGHUP" or "sync" (a caller's Sync).
	Trigger string
	// Problems are those the source found in what it read.
	Problems config.Diags
	// Outcomes are what the supervisor did to each unit.
	Outcomes []supervisor.Outcome
}

// Err is the report's first problem or failure; nil when everything read was applied.
func (r Report) Err() error {
	if len(r.Problems) > 0 {
		return r.Problems
	}
	for _, o := range r.Outcomes {
		if o.Action == supervisor.Failed {
			return o.Err
		}
	}
	return nil
}

// Options tune a Follower.
type Options struct {
	// Group names the source's units in the supervisor (supervisor.Sync); required.
	Group string
	// Poll is how often the files are looked at: 0 means DefaultPoll, a negative value never
	// (only Reload and Sync read the source again).
	Poll time.Duration
	// Settle is how long an edit must stay the same before it is applied: 0 means
	// DefaultSettle, a negative value applies edits as soon as they are seen.
	Settle time.Duration
	// Reload, when it delivers, reads the files as they are now, settled or not (SIGHUP).
	Reload <-chan struct{}
	// Reloaded, when set, hears the outcome of each reload: each reading of files edited, or
	// asked for by Reload (the admin listener's reload count); nil when all was applied.
	Reloaded func(err error)
	// Clock tells the time edits settle by; nil means time.Now.
	Clock func() time.Time
}

// Follower keeps a supervisor serving a source's units. Its methods are safe to call from
// several goroutines; readings happen one at a time.
type Follower struct {
	sup  *supervisor.Supervisor
	src  Source
	opts Options

	mu    sync.Mutex
	files *watch.Settler
	read  bool // the source has been read once
}

// New returns a follower of src on sup; nothing is read before Start.
func New(sup *supervisor.Supervisor, src Source, opts Options) *Follower {
	if opts.Group == "" {
		panic("reload: a follower needs a group")
	}
	if opts.Poll == 0 {
		opts.Poll = DefaultPoll
	}
	if opts.Settle == 0 {
		opts.Settle = DefaultSettle
	}
	settle := max(opts.Settle, 0)
	return &Follower{sup: sup, src: src, opts: opts, files: &watch.Settler{Settle: settle, Clock: opts.Clock}}
}

// Start reads the whole source and serves its units, and returns the report (told to the
// source as well). The files are stamped before they are read, so an edit made meanwhile is
// applied by the first poll.
func (f *Follower) Start(ctx context.Context) Report {
	f.mu.Lock()
	defer f.mu.Unlock()
	stamps := watch.Stat(f.src.Files())
	r := f.apply(ctx, "start", nil, supervisor.SyncOptions{}, false)
	// Files known only once read (a flow config's template resources) are stamped as read now.
	for file, st := range watch.Stat(f.src.Files()) {
		if _, ok := stamps[file]; !ok {
			stamps[file] = st
		}
	}
	f.files.Reset(stamps)
	f.read = true
	return r
}

// Sync reads the source again now: the files whose edits have settled, and those named in
// read (a file just saved that is to serve at once), and serves its units; retry names units
// to start again though they failed before.
func (f *Follower) Sync(ctx context.Context, read []string, retry ...string) Report {
	f.mu.Lock()
	defer f.mu.Unlock()
	before, after, _ := f.files.Next(watch.Stat(f.src.Files()))
	files := edited(before, after)
	for _, file := range read {
		if !slices.Contains(files, file) {
			files = append(files, file)
		}
	}
	return f.apply(ctx, "sync", files, supervisor.SyncOptions{Retry: retry}, false)
}

// Run follows edits until ctx ends or ended is closed (a stdio unit's input ended).
func (f *Follower) Run(ctx context.Context, ended <-chan struct{}) {
	var tick <-chan time.Time
	if f.opts.Poll > 0 {
		t := time.NewTicker(f.opts.Poll)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-ended:
			return
		case <-tick:
			f.Poll(ctx)
		case <-f.opts.Reload:
			f.poll(ctx, "SIGHUP", f.files.Flush)
		}
	}
}

// Poll applies the edits that have settled since the last reading: what Run does every
// Options.Poll.
func (f *Follower) Poll(ctx context.Context) { f.poll(ctx, "edit", f.files.Next) }

// poll applies what changed since the last reading: what has settled, with next =
// f.files.Next, or everything with Flush. A SIGHUP reads the source even when no stamp moved.
func (f *Follower) poll(ctx context.Context, trigger string, next func(map[string]watch.Stamp) (before, after map[string]watch.Stamp, changed bool)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	before, after, changed := next(watch.Stat(f.src.Files()))
	if !changed && trigger != "SIGHUP" {
		return
	}
	f.apply(ctx, trigger, edited(before, after), supervisor.SyncOptions{}, true)
}

// apply reads the source (changed: the files to read again; nil, every file), syncs the
// supervisor to its units and tells the outcome, counted as a reload when reload is set.
func (f *Follower) apply(ctx context.Context, trigger string, changed []string, o supervisor.SyncOptions, reload bool) Report {
	units, problems := f.src.Units(changed)
	r := Report{Trigger: trigger, Problems: problems, Outcomes: f.sup.Sync(ctx, f.opts.Group, units, o)}
	if reload && f.opts.Reloaded != nil {
		f.opts.Reloaded(r.Err()) // before the lines that say so: a probe that follows the log finds it
	}
	f.src.Tell(r)
	return r
}

// edited lists the files whose stamps differ between before and after, removed ones included.
func edited(before, after map[string]watch.Stamp) []string {
	out := []string{}
	for file, st := range after {
		if old, ok := before[file]; !ok || old != st {
			out = append(out, file)
		}
	}
	for file := range before {
		if _, ok := after[file]; !ok {
			out = append(out, file)
		}
	}
	slices.Sort(out)
	return out
}

package reload_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/reload"
	"github.com/octo-run/octo/runtime/runtimetest"
	"github.com/octo-run/octo/runtime/supervisor"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// folder is a source whose every *.yaml file is a flow config of its own: a unit named by the
// file, its version the file's text. What it was told is kept for the test to read.
type folder struct {
	dir   string
	units map[string]runtime.Unit // by file, as last read
	// resources are files the units read besides their own, known once they are read (as a
	// flow config's template resources are).
	resources []string
	read      bool

	mu      sync.Mutex
	reports []reload.Report
}

func (f *folder) Files() []string {
	files, _ := filepath.Glob(filepath.Join(f.dir, "*.yaml"))
	if f.read {
		files = append(files, f.resources...)
	}
	return files
}

func (f *folder) Units(changed []string) ([]runtime.Unit, config.Diags) {
	var ds config.Diags
	files := f.Files()
	for _, file := range files {
		if changed != nil && !slices.Contains(changed, file) {
			continue
		}
		text, _ := os.ReadFile(file)
		cfg, err := config.Load(file, nil)
		if err != nil {
			ds = append(ds, err.(config.Diags)...)
			continue // the version read before stays
		}
		f.units[file] = runtime.Unit{Name: file, Config: cfg, Version: string(text)}
	}
	f.read = true
	var out []runtime.Unit
	for _, file := range files {
		if u, ok := f.units[file]; ok {
			out = append(out, u)
		}
	}
	return out, ds
}

func (f *folder) Tell(r reload.Report) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reports = append(f.reports, r)
}

// told is what the last report said: each unit's action, by file name, and the problems' count.
func (f *folder) told() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.reports[len(f.reports)-1]
	var parts []string
	for _, o := range r.Outcomes {
		parts = append(parts, filepath.Base(o.Unit.Name)+" "+o.Action.String())
	}
	return fmt.Sprintf("%s: %s; %d problems", r.Trigger, strings.Join(parts, ", "), len(r.Problems))
}

func answering(port int, answer string) string {
	return fmt.Sprintf("connectors: [ { name: api, type: http, settings: { port: %d } } ]\n"+
		"flows: [ { name: v, source: { connector: api, settings: { path: /v } }, process: [ { type: set-payload, settings: { value: '%q' } } ] } ]\n", port, answer)
}

var client = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

func get(port int) string {
	resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/v", port))
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// clock is a test's time: it moves only when told.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestAFollowerServesEachEditOnceItSettled(t *testing.T) {
	dir := t.TempDir()
	pa, pb := runtimetest.FreePort(t), runtimetest.FreePort(t)
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.yaml", answering(pa, "a1"))
	write("b.yaml", answering(pb, "b1"))
	sup := supervisor.New(supervisor.Options{Logger: slog.New(slog.DiscardHandler), StopTimeout: 5 * time.Second})
	defer sup.Close(context.Background())
	src := &folder{dir: dir, units: map[string]runtime.Unit{}}
	c := &clock{time.Now()}
	var reloads []error
	f := reload.New(sup, src, reload.Options{Group: "folder", Poll: -1, Settle: time.Second, Clock: c.now,
		Reloaded: func(err error) { reloads = append(reloads, err) }})
	ctx := context.Background()
	if f.Start(ctx); src.told() != "start: a.yaml started, b.yaml started; 0 problems" {
		t.Fatalf("start: %s", src.told())
	}
	steps := []struct {
		name string
		act  func()
		told string // "" when nothing was read
		a, b string
	}{
		{"an edit is not read before it settles", func() { write("a.yaml", answering(pa, "a2")) }, "", `"a1"`, `"b1"`},
		{"a settled edit replaces its unit only", func() { c.t = c.t.Add(time.Second) }, "edit: a.yaml replaced, b.yaml kept; 0 problems", `"a2"`, `"b1"`},
		{"a broken edit is told and the unit keeps serving", func() {
			write("b.yaml", "flows: [")
			f.Poll(ctx) // seen, not settled
			c.t = c.t.Add(time.Second)
		}, "edit: a.yaml kept, b.yaml kept; 1 problems", `"a2"`, `"b1"`},
		{"a removed file stops its unit", func() {
			_ = os.Remove(filepath.Join(dir, "b.yaml"))
			f.Poll(ctx)
			c.t = c.t.Add(time.Second)
		}, "edit: b.yaml stopped, a.yaml kept; 0 problems", `"a2"`, ""},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			before := len(src.reports)
			s.act()
			f.Poll(ctx)
			if s.told == "" && len(src.reports) != before {
				t.Fatalf("read before it settled: %s", src.told())
			}
			if s.told != "" && src.told() != s.told {
				t.Fatalf("told %q, want %q", src.told(), s.told)
			}
			if got := get(pa) + " " + get(pb); got != s.a+" "+s.b {
				t.Fatalf("answers %s, want %s %s", got, s.a, s.b)
			}
		})
	}
	t.Run("each reload is counted, the refused one as failed", func(t *testing.T) {
		if len(reloads) != 3 || reloads[0] != nil || reloads[1] == nil || reloads[2] != nil {
			t.Fatalf("reloads %v", reloads)
		}
	})
}

func TestReloadReadsTheFilesAtOnce(t *testing.T) {
	dir := t.TempDir()
	port := runtimetest.FreePort(t)
	file := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(file, []byte(answering(port, "one")), 0o644); err != nil {
		t.Fatal(err)
	}
	sup := supervisor.New(supervisor.Options{Logger: slog.New(slog.DiscardHandler), StopTimeout: 5 * time.Second})
	defer sup.Close(context.Background())
	src := &folder{dir: dir, units: map[string]runtime.Unit{}}
	hup := make(chan struct{}, 1)
	f := reload.New(sup, src, reload.Options{Group: "folder", Poll: -1, Settle: time.Hour, Reload: hup})
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx)
	done := make(chan struct{})
	go func() { f.Run(ctx, nil); close(done) }()
	defer func() { cancel(); <-done }()
	if err := os.WriteFile(file, []byte(answering(port, "two")), 0o644); err != nil {
		t.Fatal(err)
	}
	hup <- struct{}{}
	for deadline := time.Now().Add(10 * time.Second); get(port) != `"two"`; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the edit was not applied at once: %s", get(port))
		}
	}
}

func TestFilesKnownOnlyOnceReadAreNotTakenForEdits(t *testing.T) {
	dir := t.TempDir()
	port := runtimetest.FreePort(t)
	resource := filepath.Join(dir, "guide.md")
	for file, text := range map[string]string{filepath.Join(dir, "a.yaml"): answering(port, "one"), resource: "# guide"} {
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sup := supervisor.New(supervisor.Options{Logger: slog.New(slog.DiscardHandler), StopTimeout: 5 * time.Second})
	defer sup.Close(context.Background())
	src := &folder{dir: dir, units: map[string]runtime.Unit{}, resources: []string{resource}}
	c := &clock{time.Now()}
	f := reload.New(sup, src, reload.Options{Group: "folder", Poll: -1, Settle: time.Second, Clock: c.now})
	f.Start(context.Background())
	for range 3 {
		f.Poll(context.Background())
		c.t = c.t.Add(time.Second)
	}
	if len(src.reports) != 1 {
		t.Fatalf("a file first listed after the first reading was taken for an edit: %s", src.told())
	}
}

package workspace

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime/reload"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// readAllWithin runs ReadAll, failing the test if it does not end in 10s.
func readAllWithin(t *testing.T, dir string) ([]*Server, string) {
	t.Helper()
	type result struct {
		servers []*Server
		text    string
	}
	done := make(chan result, 1)
	go func() {
		s, ds := ReadAll(dir)
		done <- result{s, ds.Error()}
	}()
	select {
	case r := <-done:
		return r.servers, r.text
	case <-time.After(10 * time.Second):
		t.Fatal("reading the workspace blocked")
		return nil, ""
	}
}

func names(servers []*Server) []string {
	var out []string
	for _, s := range servers {
		out = append(out, s.Name)
	}
	return out
}

func TestOnlyFilesInsideTheWorkspaceAreRead(t *testing.T) {
	outside := t.TempDir()
	write(t, outside, map[string]string{"secret.yaml": "name: Leak\nkind: TOP-SECRET-CONTENT\n"})
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"servers/A.yaml":     "name: A\nport: 0",
		"shared/B.yaml":      "name: B\nport: 0",
		"elsewhere/C.yaml":   "name: C\nport: 0",
		"servers/notes.yaml": "name: Notes\nport: 0",
	})
	links := map[string]string{
		"servers/leak.yaml":   filepath.Join(outside, "secret.yaml"),
		"servers/b.yaml":      filepath.Join("..", "shared", "B.yaml"),
		"servers/c.yaml":      filepath.Join(dir, "elsewhere", "C.yaml"),
		"servers/dangle.yaml": filepath.Join(dir, "missing.yaml"),
	}
	for link, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skipf("symbolic links: %v", err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "servers", "fifo.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("fifo.yaml", filepath.Join(dir, "servers", "to-fifo.yaml")); err != nil {
		t.Fatal(err)
	}
	servers, problems := readAllWithin(t, dir)
	if got := strings.Join(names(servers), ","); got != "A,B,C,Notes" {
		t.Errorf("servers %s; want the files and the links inside the workspace: A,B,C,Notes", got)
	}
	want := []string{
		filepath.Join(dir, "servers", "leak.yaml") + ": a symbolic link that leads outside the workspace; it is not read",
		filepath.Join(dir, "servers", "dangle.yaml") + ": cannot read file: no such file or directory",
		filepath.Join(dir, "servers", "to-fifo.yaml") + ": not a regular file (a FIFO, device or socket); it is not read",
	}
	for _, w := range want {
		if !strings.Contains(problems, w) {
			t.Errorf("problems lack %q:\n%s", w, problems)
		}
	}
	if strings.Contains(problems, "TOP-SECRET") || strings.Contains(problems, outside) || strings.Contains(problems, string(filepath.Separator)+"fifo.yaml:") {
		t.Errorf("problems quote what they must not:\n%s", problems)
	}
}

func TestTheSettingsFileIsReadOnlyInsideTheWorkspace(t *testing.T) {
	outside := t.TempDir()
	write(t, outside, map[string]string{"w.yaml": "variables: { token: TOP-SECRET }"})
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(outside, "w.yaml"), filepath.Join(dir, SettingsFile)); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
	_, ds := readSettings(dir)
	if len(ds) != 1 || !strings.Contains(ds.Error(), "outside the workspace") || strings.Contains(ds.Error(), "TOP-SECRET") {
		t.Fatalf("diags %v", ds)
	}
}

// clock is a test's time: it moves only when told.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// halfServed serves dir with polling left to the test and time from c.
func halfServed(t *testing.T, dir string, c *clock) (*Servers, context.Context) {
	t.Helper()
	log := &runtimetest.Buffer{}
	sv, err := NewServers(dir, Options{Logger: slog.New(slog.NewTextHandler(log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	sv.f = reload.New(sv.sup, sv.src, reload.Options{Group: sv.group, Poll: -1, Settle: time.Second, Clock: c.now})
	ctx := context.Background()
	if err := sv.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sv.Close()
		if t.Failed() {
			t.Logf("log:\n%s", log.String())
		}
	})
	return sv, ctx
}

func TestAHalfWrittenFileIsNeverServed(t *testing.T) {
	const before = "name: S\nport: 0\nmcp:\n  tools:\n    - { name: zero, result: x }\n"
	const after = "name: S\nport: 0\nmcp:\n  tools:\n    - { name: one, result: x }\n    - { name: two, result: x }\n    - { name: three, result: x }\n"
	half := after[:strings.Index(after, "    - { name: three")] // valid YAML: a truncated server
	dir := t.TempDir()
	write(t, dir, map[string]string{"servers/S.yaml": before})
	c := &clock{time.Now()}
	sv, ctx := halfServed(t, dir, c)
	cs := runtimetest.ConnectMCP(t, sv.src.serving[filepath.Join(dir, "servers", "S.yaml")].url, nil)
	file := filepath.Join(dir, "servers", "S.yaml")

	f, err := os.OpenFile(file, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	steps := []struct {
		name  string
		act   func()
		tools string
	}{
		{"the first half is written", func() { _, _ = f.WriteString(half) }, "zero"},
		{"the first half stays a while", func() { c.t = c.t.Add(900 * time.Millisecond) }, "zero"},
		{"the rest is written", func() { _, _ = f.WriteString(after[len(half):]) }, "zero"},
		{"the whole file has not settled yet", func() { c.t = c.t.Add(900 * time.Millisecond) }, "zero"},
		{"the whole file has settled", func() { c.t = c.t.Add(200 * time.Millisecond) }, "one,two,three"},
		{"later polls change nothing", func() { c.t = c.t.Add(time.Hour) }, "one,two,three"},
	}
	for _, s := range steps {
		s.act()
		sv.f.Poll(ctx)
		if got := strings.Join(runtimetest.ToolNames(t, cs), ","); got != s.tools {
			t.Fatalf("%s: tools %s, want %s", s.name, got, s.tools)
		}
	}
}

func TestAFIFOAmongTheServersDoesNotBlockTheWatch(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"servers/S.yaml": "name: S\nport: 0\nmcp:\n  tools: [ { name: a, result: x } ]\n"})
	c := &clock{time.Now()}
	sv, ctx := halfServed(t, dir, c)
	if err := syscall.Mkfifo(filepath.Join(dir, "servers", "pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pipe.yaml", filepath.Join(dir, "servers", "T.yaml")); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		for range 3 {
			sv.f.Poll(ctx)
			c.t = c.t.Add(2 * time.Second)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("polling blocked on a FIFO")
	}
	if n := len(sv.sup.Units()); n != 1 {
		t.Fatalf("%d servers run", n)
	}
}

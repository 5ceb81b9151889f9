package watch_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime/watch"
)

func TestAnEditIsAppliedOnceItHasStayedTheSameForTheSettleTime(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "flow.yaml")
	write := func(text string) {
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a: 1\n")
	now := time.Now()
	s := &watch.Settler{Settle: time.Second, Clock: func() time.Time { return now }}
	s.Reset(watch.Stat([]string{file}))
	steps := []struct {
		name    string
		act     func()
		changed bool
	}{
		{"nothing happened", func() {}, false},
		{"the file is written", func() { write("a: 1\nb: 2\n") }, false},
		{"it has not settled yet", func() { now = now.Add(900 * time.Millisecond) }, false},
		{"it grows again", func() { write("a: 1\nb: 2\nc: 3\n") }, false},
		{"the first write alone would have settled by now", func() { now = now.Add(200 * time.Millisecond) }, false},
		{"the last write has settled", func() { now = now.Add(time.Second) }, true},
		{"later polls change nothing", func() { now = now.Add(time.Hour) }, false},
		{"the file is removed", func() { _ = os.Remove(file) }, false},
		{"its removal has settled", func() { now = now.Add(time.Second) }, true},
	}
	for _, st := range steps {
		st.act()
		if _, _, changed := s.Next(watch.Stat([]string{file})); changed != st.changed {
			t.Fatalf("%s: changed %v, want %v", st.name, changed, st.changed)
		}
	}
	if len(s.Applied()) != 0 {
		t.Fatalf("a removed file is still applied: %v", s.Applied())
	}
}

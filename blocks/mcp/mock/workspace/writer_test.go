package workspace_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
)

// lock takes dir's write lock for the rest of the test.
func lock(t *testing.T, dir string) *workspace.Writer {
	t.Helper()
	w, err := workspace.Lock(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Unlock() })
	return w
}

func TestOneWriterAtATime(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	first, err := workspace.Lock(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if w, err := workspace.Lock(ctx, dir); err == nil {
		w.Unlock()
		t.Fatal("a second writer took the lock while the first held it")
	} else if !strings.Contains(err.Error(), "the workspace's write lock") {
		t.Fatalf("error %v", err)
	}
	got := make(chan error, 1)
	go func() {
		w, err := workspace.Lock(context.Background(), dir)
		if err == nil {
			err = w.Unlock()
		}
		got <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if err := first.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if ws, _ := workspace.ReadAll(dir); len(ws) != 0 {
		t.Fatalf("the lock file was read as %d servers", len(ws))
	}
}

func TestWriteServerReplacesTheFileWhole(t *testing.T) {
	dir := t.TempDir()
	w := lock(t, dir)
	file := workspace.ServerFile(dir, "A")
	for _, text := range []string{"name: A\n", "name: A\nport: 3009\n"} {
		if err := w.WriteServer(file, []byte(text)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(file)
		if err != nil || string(got) != text {
			t.Fatalf("%q %v, want %q", got, err, text)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "servers"))
	if len(entries) != 1 {
		t.Fatalf("the servers folder holds %d files, want the one written (no temporary left)", len(entries))
	}
	if err := w.RemoveServer(file); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("still there: %v", err)
	}
}

func TestWriteServerWritesOnlyInTheServersFolder(t *testing.T) {
	dir := t.TempDir()
	w := lock(t, dir)
	for _, file := range []string{filepath.Join(dir, "A.yaml"), filepath.Join(dir, "servers", "sub", "A.yaml"), filepath.Join(t.TempDir(), "servers", "A.yaml")} {
		if err := w.WriteServer(file, []byte("name: A\n")); err == nil {
			t.Errorf("%s was written", file)
		}
		if err := w.RemoveServer(file); err == nil {
			t.Errorf("%s was removed", file)
		}
	}
	t.Run("a servers folder that leads outside", func(t *testing.T) {
		outside, dir := t.TempDir(), t.TempDir()
		if err := os.Symlink(outside, filepath.Join(dir, "servers")); err != nil {
			t.Fatal(err)
		}
		err := lock(t, dir).WriteServer(workspace.ServerFile(dir, "A"), []byte("name: A\n"))
		if err == nil || !strings.Contains(err.Error(), "leads outside the workspace") {
			t.Fatalf("error %v", err)
		}
		if entries, _ := os.ReadDir(outside); len(entries) != 0 {
			t.Fatalf("%d files written outside", len(entries))
		}
	})
}

func TestWriteSettingsReplacesOnlyARegularFile(t *testing.T) {
	dir := t.TempDir()
	w := lock(t, dir)
	for _, text := range []string{"variables: {a: b}\n", "variables: {a: c}\n"} {
		if err := w.WriteSettings([]byte(text)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, workspace.SettingsFile)); string(got) != text {
			t.Fatalf("%q, want %q", got, text)
		}
	}
	t.Run("a link is left as it is", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(t.TempDir(), "elsewhere")
		if err := os.WriteFile(target, []byte("kept\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, workspace.SettingsFile)); err != nil {
			t.Fatal(err)
		}
		if err := lock(t, dir).WriteSettings([]byte("variables: {}\n")); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("error %v", err)
		}
		if got, _ := os.ReadFile(target); string(got) != "kept\n" {
			t.Fatalf("the link's target became %q", got)
		}
	})
}

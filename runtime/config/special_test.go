package config

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

const minimalConfig = "service: { name: fifo }\n"

// mkfifo makes a FIFO at path. Opening one to read waits for a writer, so a
// loader that opens it hangs; the cleanup opens it both ways to let such a
// reader go.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
			f.Close()
		}
	})
}

// loadWithin loads path, failing the test if Load has not returned after 10s.
func loadWithin(t *testing.T, path string) (*Config, error) {
	t.Helper()
	type result struct {
		cfg *Config
		err error
	}
	done := make(chan result, 1)
	go func() {
		cfg, err := Load(path, envOf(nil))
		done <- result{cfg, err}
	}()
	select {
	case r := <-done:
		return r.cfg, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("Load(%s) has not returned after 10s: it waits on a FIFO", path)
		return nil, nil
	}
}

func TestFIFOsDevicesAndSocketsAreNeverRead(t *testing.T) {
	t.Run("a FIFO named *.yaml in a config folder is skipped", func(t *testing.T) {
		dir := writeConfig(t, map[string]string{"a.yaml": minimalConfig})
		mkfifo(t, filepath.Join(dir, "b.yaml"))
		cfg, err := loadWithin(t, dir)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{filepath.Join(dir, "a.yaml")}; !slices.Equal(cfg.Files, want) {
			t.Fatalf("files %v, want %v", cfg.Files, want)
		}
	})
	t.Run("a config path that is a FIFO is refused", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "octo.yaml")
		mkfifo(t, path)
		_, err := loadWithin(t, path)
		if want := path + ": config path is a FIFO, not a file or folder"; err == nil || err.Error() != want {
			t.Fatalf("got %v, want %s", err, want)
		}
	})
	t.Run("a config path that is a device is refused", func(t *testing.T) {
		if _, err := os.Stat("/dev/null"); err != nil {
			t.Skip("no /dev/null")
		}
		_, err := loadWithin(t, "/dev/null")
		if want := "/dev/null: config path is a device, not a file or folder"; err == nil || err.Error() != want {
			t.Fatalf("got %v, want %s", err, want)
		}
	})
	t.Run("a link in a config folder to a FIFO is refused", func(t *testing.T) {
		dir := writeConfig(t, map[string]string{"a.yaml": minimalConfig})
		fifo := filepath.Join(t.TempDir(), "fifo")
		mkfifo(t, fifo)
		if err := os.Symlink(fifo, filepath.Join(dir, "b.yaml")); err != nil {
			t.Fatal(err)
		}
		_, err := loadWithin(t, dir)
		if want := filepath.Join(dir, "b.yaml") + ": config file is a FIFO, not a regular file"; err == nil || err.Error() != want {
			t.Fatalf("got %v, want %s", err, want)
		}
	})
	t.Run("a template resource that is a FIFO is refused", func(t *testing.T) {
		dir := writeConfig(t, map[string]string{"a.yaml": minimalConfig +
			"resources:\n  templates:\n    - { resource: guide.md, as: guide }\n"})
		mkfifo(t, filepath.Join(dir, "guide.md"))
		_, err := loadWithin(t, dir)
		want := filepath.Join(dir, "a.yaml") + `:4:19: resources.templates[0].resource (template "guide"): template file "` +
			filepath.Join(dir, "guide.md") + `" is a FIFO, not a regular file`
		if err == nil || err.Error() != want {
			t.Fatalf("got %v\nwant %s", err, want)
		}
	})
}

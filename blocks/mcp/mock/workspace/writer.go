package workspace

// Every program that changes a workspace (octo new mcp-mock, the agent tools, the console, in
// any number of processes) writes through a Writer, which holds the workspace's write lock: a
// port is chosen and a file written as one step, so two writers never both take one port or
// save over each other's file.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/octo-run/octo/runtime/filelock"
	"github.com/octo-run/octo/runtime/ports"
)

// WriteLockFile is the write lock's file in the workspace folder. Hidden, and not a .yaml
// file, so nothing reads it as a server or as settings.
const WriteLockFile = ".octo-write.lock"

// Writer writes to one workspace while it holds the workspace's write lock.
type Writer struct {
	dir  string
	lock *filelock.Lock
}

// Lock takes the write lock of the workspace dir (the folder is made if missing), waiting
// while another writer holds it, until ctx ends.
func Lock(ctx context.Context, dir string) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	l, err := filelock.Wait(ctx, filepath.Join(dir, WriteLockFile), "the workspace's write lock", nil)
	if err != nil {
		return nil, err
	}
	return &Writer{dir: dir, lock: l}, nil
}

// Unlock lets the write lock go; w writes nothing more.
func (w *Writer) Unlock() error { return w.lock.Unlock() }

// Dir is the workspace folder w writes to.
func (w *Writer) Dir() string { return w.dir }

// NextPort returns the port a new saved server should take: 3004, or the next one neither a
// saved server nor another program on this machine uses. Under the lock, no other writer saves
// a server on it before w does.
func (w *Writer) NextPort() int { return ports.Free(DefaultPort, usedPorts(w.dir)) }

// WriteServer writes text as the saved server file `file`: into a hidden temporary file beside
// it (never read as a server), then renamed over it, so the workspace's watcher never serves
// half of it. A file outside the servers folder is refused.
func (w *Writer) WriteServer(file string, text []byte) error {
	folder, err := serversFolder(w.dir, file)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(folder); err != nil || !inside(w.dir, real) {
		return fmt.Errorf("%s leads outside the workspace; nothing is written there", folder)
	}
	return replace(folder, file, text)
}

// RemoveServer removes the saved server file `file` (a symbolic link itself, never what it
// leads to).
func (w *Writer) RemoveServer(file string) error {
	if _, err := serversFolder(w.dir, file); err != nil {
		return err
	}
	return os.Remove(file)
}

// WriteSettings writes text as the workspace's settings file, the same way as WriteServer. A
// symbolic link or a device there is not replaced.
func (w *Writer) WriteSettings(text []byte) error {
	file := filepath.Join(w.dir, SettingsFile)
	if fi, err := os.Lstat(file); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file; it is left as it is", file)
	}
	return replace(w.dir, file, text)
}

// replace writes text over file through a hidden temporary file in folder renamed over it.
func replace(folder, file string, text []byte) error {
	tmp, err := os.CreateTemp(folder, ".saving-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // once renamed, there is nothing left to remove
	if _, err := tmp.Write(text); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

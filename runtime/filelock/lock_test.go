package filelock

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A second Wait on the same file waits for the first to let go, and gives up, naming the lock,
// when its context ends; a lock on another file is not held up.
func TestWaitWaitsForItsHolderOnly(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.lock"), filepath.Join(dir, "b.lock")
	held, err := Wait(context.Background(), a, "lock a", nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Try(b, nil)
	if err != nil || other == nil {
		t.Fatalf("Try on another file while a is held: %v, %v", other, err)
	}
	other.Unlock()
	if l, err := Try(a, nil); l != nil || err != nil {
		t.Fatalf("Try while a is held = %v, %v; want nil, nil", l, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := Wait(ctx, a, "lock a", nil); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "lock a") {
		t.Fatalf("a second Wait: %v, want the deadline, naming the lock", err)
	}
	got := make(chan error, 1)
	go func() {
		l, err := Wait(context.Background(), a, "lock a", nil)
		if l != nil {
			l.Unlock()
		}
		got <- err
	}()
	time.Sleep(3 * poll)
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("Wait after Unlock: %v", err)
	}
}

// A symbolic link at the lock's name is refused and its target not created; a folder there is
// refused too; a check's refusal names the lock.
func TestTryRefusesWhatIsNotItsOwnFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "created-by-the-lock")
	link := filepath.Join(dir, "link.lock")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Try(link, nil); !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "a symbolic link") {
		t.Fatalf("Try on a link = %v, want it refused as a symbolic link", err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the link's target was created: %v", err)
	}
	folder := filepath.Join(dir, "folder.lock")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	if l, err := Try(folder, nil); l != nil || err == nil {
		t.Fatalf("Try on a folder = %v, %v; want an error", l, err)
	}
	refuse := errors.New("not yours")
	file := filepath.Join(dir, "checked.lock")
	if _, err := Try(file, func(string, fs.FileInfo) error { return refuse }); !errors.Is(err, refuse) || !strings.Contains(err.Error(), file) {
		t.Fatalf("Try with a refusing check = %v, want it naming %s", err, file)
	}
}

package appdata

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/octo-run/octo/runtime/filelock"
)

// Lock files in the data folder.
const (
	LockFile    = "start.lock" // a bridge holds it while it starts the app
	AppLockFile = "app.lock"   // the app holds it while it serves agents
)

// ErrAppRunning is LockApp's error when another app holds the folder.
var ErrAppRunning = errors.New("another octo app is running")

// Lock is a held lock of the data folder; Unlock lets it go.
type Lock = filelock.Lock

// LockStart takes the start lock of the data folder dir, waiting while another process (or
// another Lock in this one) holds it, until ctx ends. A bridge holds it from finding no app until
// the app it started has written agent.json, so two agents starting at once start one app: the
// second gets the lock after the first let go and finds the app running. The operating system
// lets go of a lock whose process died, so a crashed bridge blocks no one.
func LockStart(ctx context.Context, dir string) (*Lock, error) {
	return waitLock(ctx, dir, LockFile, "the start lock")
}

// waitLock locks dir/name, trying again while another holds it, until ctx ends.
func waitLock(ctx context.Context, dir, name, what string) (*Lock, error) {
	if err := mkdirPrivate(dir); err != nil {
		return nil, err
	}
	return filelock.Wait(ctx, filepath.Join(dir, name), what, mine)
}

// LockApp takes the app lock of the data folder dir, which the app holds while it serves agents
// from that folder, so a second app cannot overwrite the first one's agent.json. It does not
// wait: ErrAppRunning when another process (or another Lock in this one) holds it.
func LockApp(dir string) (*Lock, error) {
	// A bridge asking AppRunning holds the lock for a moment: that is not an app, so a
	// starting app tries a few times before it gives up.
	ctx, cancel := context.WithTimeout(context.Background(), appLockWait)
	defer cancel()
	l, err := waitLock(ctx, dir, AppLockFile, "the app lock")
	if l == nil && errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("%w: it serves agents from %s", ErrAppRunning, dir)
	}
	return l, err
}

// appLockWait is how long LockApp tries: far longer than AppRunning holds the lock.
const appLockWait = 250 * time.Millisecond

// AppRunning reports whether an app serves agents from the data folder dir now: it holds the
// app lock. A bridge that cannot reach a running app must not start a second one, nor work
// without it beside it.
func AppRunning(dir string) (bool, error) {
	l, err := tryLockFile(dir, AppLockFile)
	switch {
	case err != nil:
		return false, err
	case l == nil:
		return true, nil
	}
	return false, l.Unlock()
}

// tryLockFile locks dir/name without waiting: nil, nil when another holds it.
func tryLockFile(dir, name string) (*Lock, error) {
	if err := mkdirPrivate(dir); err != nil {
		return nil, err
	}
	return filelock.Try(filepath.Join(dir, name), mine)
}

// mine refuses a lock file of the data folder that another user owns.
func mine(_ string, fi fs.FileInfo) error { return notMine(fi) }

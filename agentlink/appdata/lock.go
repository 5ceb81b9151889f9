package appdata

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Lock files in the data folder.
const (
	LockFile      = "start.lock" // a bridge holds it while it starts the app
	AppLockFile   = "app.lock"   // the app holds it while it serves agents
	WriteLockFile = "write.lock" // a process holds it while it changes saved server files
)

// ErrAppRunning is LockApp's error when another app holds the folder.
var ErrAppRunning = errors.New("another octo app is running")

// lockPoll is how often a waiting lock tries again while another process holds it.
const lockPoll = 25 * time.Millisecond

// Lock is a held lock of the data folder; Unlock lets it go.
type Lock struct{ f *os.File }

// LockStart takes the start lock of the data folder dir, waiting while another process (or
// another Lock in this one) holds it, until ctx ends. A bridge holds it from finding no app until
// the app it started has written agent.json, so two agents starting at once start one app: the
// second gets the lock after the first let go and finds the app running. The operating system
// lets go of a lock whose process died, so a crashed bridge blocks no one.
func LockStart(ctx context.Context, dir string) (*Lock, error) {
	return waitLock(ctx, dir, LockFile, "the start lock")
}

// LockWrite takes the write lock of the data folder dir, waiting while another process (or
// another Lock in this one) holds it, until ctx ends. Whoever changes the saved server files of
// the workspace the folder's app serves holds it meanwhile (agenttools.Tools.Writing): the app,
// and a bridge working without it, so two saves in two processes cannot both take the same
// free port or name.
func LockWrite(ctx context.Context, dir string) (*Lock, error) {
	return waitLock(ctx, dir, WriteLockFile, "the write lock")
}

// waitLock locks dir/name, trying again every lockPoll while another holds it, until ctx ends.
// Polling rather than a blocking lock call: a blocked call cannot be given up when ctx ends.
func waitLock(ctx context.Context, dir, name, what string) (*Lock, error) {
	for {
		l, err := tryLockFile(dir, name)
		if l != nil || err != nil {
			return l, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for %s in %s: %w", what, dir, context.Cause(ctx))
		case <-time.After(lockPoll):
		}
	}
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
	path := filepath.Join(dir, name)
	// A fresh descriptor each try: a lock held through another descriptor of this process
	// makes this one wait too (as flock does, but not every system's lock).
	// O_NOFOLLOW: a symbolic link planted at the name would make the lock create its target.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("the lock %s: %w: a symbolic link (remove it)", path, ErrUnsafe)
		}
		return nil, fmt.Errorf("opening the lock %s: %w", path, err)
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = fmt.Errorf("the lock %s: %w: %s", path, ErrUnsafe, describe(fi.Mode()))
	default:
		if err = notMine(fi); err != nil {
			err = fmt.Errorf("the lock %s: %w", path, err)
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	held, err := tryLock(f)
	if held {
		return &Lock{f: f}, nil
	}
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("taking the lock %s: %w", path, err)
	}
	return nil, nil
}

// Unlock lets the lock go. The file stays: removing it would let a waiter lock a file that a
// newcomer then creates anew beside it.
func (l *Lock) Unlock() error {
	if err := unlock(l.f); err != nil {
		l.f.Close()
		return err
	}
	return l.f.Close()
}

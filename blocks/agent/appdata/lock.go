package appdata

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// LockFile is the name of the lock file, in the data folder, that a bridge holds while it starts
// the app.
const LockFile = "start.lock"

// lockPoll is how often LockStart tries again while another process holds the lock.
const lockPoll = 25 * time.Millisecond

// Lock is the held start lock; Unlock lets it go.
type Lock struct{ f *os.File }

// LockStart takes the start lock of the data folder dir, waiting while another process (or
// another Lock in this one) holds it, until ctx ends. A bridge holds it from finding no app until
// the app it started has written agent.json, so two agents starting at once start one app: the
// second gets the lock after the first let go and finds the app running. The operating system
// lets go of a lock whose process died, so a crashed bridge blocks no one.
func LockStart(ctx context.Context, dir string) (*Lock, error) {
	if err := mkdirPrivate(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, LockFile)
	for {
		// A fresh descriptor each try: a lock held through another descriptor of this process
		// must make this one wait too (as flock does, but not every system's lock).
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("opening the start lock: %w", err)
		}
		held, err := tryLock(f)
		if held {
			return &Lock{f: f}, nil
		}
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("taking the start lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the start lock %s: %w", path, context.Cause(ctx))
		case <-time.After(lockPoll):
		}
	}
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

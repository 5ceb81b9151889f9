// Package filelock takes advisory locks on files, between processes and within one: octo's
// data folder (the start and app locks) and a workspace (its write lock) are shared by
// processes that must take turns.
package filelock

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// ErrUnsafe marks a file octo will not use as it is: a symbolic link where a file belongs, a
// device, a file another user owns in a private folder.
var ErrUnsafe = errors.New("unsafe file")

// poll is how often a waiting lock tries again while another holds it.
const poll = 25 * time.Millisecond

// Lock is a held lock; Unlock lets it go.
type Lock struct{ f *os.File }

// Check vets the lock file once it is open and before it is locked (its owner, say); nil
// accepts it.
type Check func(path string, fi fs.FileInfo) error

// Wait locks the file at path, created (0600) when missing, trying again while another
// process (or another Lock in this one) holds it, until ctx ends; what names the lock in that
// error. Polling rather than a blocking call: a blocked call cannot be given up when ctx ends.
// The system lets go of a lock whose process died, so a crashed holder blocks no one.
func Wait(ctx context.Context, path, what string, check Check) (*Lock, error) {
	for {
		l, err := Try(path, check)
		if l != nil || err != nil {
			return l, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for %s (%s): %w", what, path, context.Cause(ctx))
		case <-time.After(poll):
		}
	}
}

// Try locks the file at path without waiting: nil, nil when another holds it. A symbolic link
// or anything but a regular file at path is refused (ErrUnsafe), and a link's target is never
// created: a lock taken by root would otherwise create whatever file the link names.
func Try(path string, check Check) (*Lock, error) {
	// A fresh descriptor each try: a lock held through another descriptor of this process
	// makes this one wait too (as flock and LockFileEx do).
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("the lock %s: %w: a symbolic link (remove it)", path, ErrUnsafe)
		}
		return nil, fmt.Errorf("opening the lock %s: %w", path, err)
	}
	if err := vet(f, path, check); err != nil {
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

// vet refuses an open lock file that is not a regular file, or that check refuses.
func vet(f *os.File, path string, check Check) error {
	fi, err := f.Stat()
	switch {
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("the lock %s: %w: not a regular file", path, ErrUnsafe)
	case check != nil:
		if err := check(path, fi); err != nil {
			return fmt.Errorf("the lock %s: %w", path, err)
		}
	}
	return nil
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

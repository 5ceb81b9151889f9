//go:build windows

package filelock

import (
	"errors"
	"os"
	"syscall"
	"unsafe"
)

var (
	kernel32         = syscall.NewLazyDLL("kernel32.dll")
	procLockFileEx   = kernel32.NewProc("LockFileEx")
	procUnlockFileEx = kernel32.NewProc("UnlockFileEx")
)

const (
	lockfileExclusiveLock   = 0x2
	lockfileFailImmediately = 0x1
	errLockViolation        = syscall.Errno(33) // ERROR_LOCK_VIOLATION
)

// tryLock locks the file's first byte exclusively without waiting: false, nil when another
// holds it.
func tryLock(f *os.File) (bool, error) {
	var ov syscall.Overlapped
	r, _, err := procLockFileEx.Call(f.Fd(), lockfileExclusiveLock|lockfileFailImmediately, 0, 1, 0, uintptr(unsafe.Pointer(&ov)))
	if r != 0 {
		return true, nil
	}
	if errors.Is(err, errLockViolation) {
		return false, nil
	}
	return false, err
}

func unlock(f *os.File) error {
	var ov syscall.Overlapped
	r, _, err := procUnlockFileEx.Call(f.Fd(), 0, 1, 0, uintptr(unsafe.Pointer(&ov)))
	if r == 0 {
		return err
	}
	return nil
}

// noFollow is 0: opening a file follows a link there, and the folder's place keeps others out.
const noFollow = 0

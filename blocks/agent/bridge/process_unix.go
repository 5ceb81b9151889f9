//go:build unix

package bridge

import (
	"errors"
	"syscall"
)

// detached starts the app in a session of its own, so that it outlives the agent's session
// and the agent's signals to its process group do not reach it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// alive reports whether the process pid may be running: it exists, even if it is another
// user's (0: unknown, left to the dial to tell).
func alive(pid int) bool {
	if pid <= 0 {
		return true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

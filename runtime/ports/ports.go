// Package ports picks ports to suggest or to write into a starter (ones nothing on this machine
// listens on now), and says what to do when a configured port is taken.
package ports

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"

	"github.com/octo-run/octo/runtime/config"
)

// Free is the first port from p up that skip does not take and that nothing on this machine
// listens on now (127.0.0.1 can be bound), so a starter never picks a port another program
// holds. Past a hundred ports tried, it gives p.
func Free(p int, skip func(int) bool) int {
	for try := p; try < p+100 && try <= 65535; try++ {
		if skip != nil && skip(try) {
			continue
		}
		if l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(try))); err == nil {
			l.Close()
			return try
		}
	}
	return p
}

// InUse reports whether err is a listen that failed because something else holds the port.
func InUse(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }

// InUseError is the problem of a port setting, written at at, that another program holds: it
// points at the setting and, when a variable made its value, at the variable, with a port that
// is free now.
func InUseError(at config.Position, port int) error {
	fix := "write another port there"
	if len(at.Vars) > 0 {
		fix = "set " + at.Vars[0] + " to another port"
	}
	msg := fmt.Sprintf("port %d is in use by another program: %s (%d is free now), or stop what holds it", port, fix, Free(port+1, nil))
	if !at.Written {
		return inUse{errors.New(msg)}
	}
	return inUse{config.Diags{at.Diag(msg)}}
}

// inUse is a port problem that still says, to InUse, that the port was taken.
type inUse struct{ error }

func (e inUse) Unwrap() []error { return []error{e.error, syscall.EADDRINUSE} }

// Explain is the problem for people, with the line it points at (config.Diags.Explain).
func (e inUse) Explain() string {
	if ds, ok := e.error.(config.Diags); ok {
		return ds.Explain()
	}
	return e.Error()
}

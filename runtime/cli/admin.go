package cli

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/octo-run/octo/runtime"
)

// AdminListener is the process's admin listener, `octo run --admin`: health, readiness and the
// metrics every build feeds. It belongs to the process, so it serves across reloads. The
// package that serves it registers it (RegisterAdmin), as blocks register their commands: the
// commands do not depend on it.
type AdminListener interface {
	// Observer measures every build of the service.
	Observer() runtime.Observer
	// Serving says the service serves; Stopping that a signal arrived and it is stopping.
	Serving()
	Stopping()
	// Reloaded counts a reload and keeps how it went (nil: applied).
	Reloaded(err error)
	// Close stops the listener.
	Close(ctx context.Context) error
}

// AdminFunc binds the admin listener at addr, in the starting state.
type AdminFunc func(addr, version string, logger *slog.Logger) (AdminListener, error)

var admins struct {
	sync.Mutex
	listen AdminFunc
}

// RegisterAdmin sets what serves `octo run --admin`; registering twice is a programming error
// and panics.
func RegisterAdmin(listen AdminFunc) {
	admins.Lock()
	defer admins.Unlock()
	if admins.listen != nil || listen == nil {
		panic("cli: the admin listener registered twice or as nil")
	}
	admins.listen = listen
}

// errNoAdmin is why --admin fails in a binary built without an admin listener.
var errNoAdmin = errors.New("--admin: this octo is built without an admin listener")

// admin is what run drives: its zero value (no --admin) does nothing, so run calls it either way.
type admin struct{ l AdminListener }

// startAdmin binds the admin listener at addr; nothing when addr is "".
func startAdmin(addr string, logger *slog.Logger) (*admin, error) {
	if addr == "" {
		return &admin{}, nil
	}
	admins.Lock()
	listen := admins.listen
	admins.Unlock()
	if listen == nil {
		return nil, errNoAdmin
	}
	l, err := listen(addr, version, logger)
	if err != nil {
		return nil, err
	}
	return &admin{l: l}, nil
}

// observer is what every build is measured by; nil without --admin.
func (a *admin) observer() runtime.Observer {
	if a.l == nil {
		return nil
	}
	return a.l.Observer()
}

func (a *admin) serving() {
	if a.l != nil {
		a.l.Serving()
	}
}

func (a *admin) stopping() {
	if a.l != nil {
		a.l.Stopping()
	}
}

// reloaded counts a reload and tells /readyz how it went.
func (a *admin) reloaded(err error) {
	if a.l != nil {
		a.l.Reloaded(err)
	}
}

// close stops the listener once the service has stopped: until then /readyz says stopping.
func (a *admin) close() {
	if a.l != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = a.l.Close(ctx)
	}
}

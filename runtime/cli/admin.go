package cli

import (
	"context"
	"log/slog"
	"time"

	"github.com/octo-run/octo/ops"
	"github.com/octo-run/octo/runtime"
)

// admin is `octo run --admin`: the process's admin listener and the metrics the service's builds
// feed. Its zero value (no --admin) does nothing, so run calls it either way.
type admin struct {
	listener *ops.Admin
	metrics  *ops.Metrics
}

// startAdmin binds the admin listener at addr, in the starting state; nothing when addr is "".
func startAdmin(addr string, logger *slog.Logger) (*admin, error) {
	if addr == "" {
		return &admin{}, nil
	}
	m := ops.NewMetrics(version)
	l, err := ops.Listen(addr, m, logger)
	if err != nil {
		return nil, err
	}
	return &admin{listener: l, metrics: m}, nil
}

// observer is what every build is measured by; nil without --admin.
func (a *admin) observer() runtime.Observer {
	if a.metrics == nil {
		return nil
	}
	return a.metrics
}

func (a *admin) setState(state string) {
	if a.listener != nil {
		a.listener.SetState(state)
	}
}

// reloaded counts a reload and tells /readyz how it went.
func (a *admin) reloaded(err error) {
	if a.listener != nil {
		a.metrics.Reloaded(err == nil)
		a.listener.Reloaded(err)
	}
}

// close stops the listener once the service has stopped: until then /readyz says stopping.
func (a *admin) close() {
	if a.listener != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = a.listener.Close(ctx)
	}
}

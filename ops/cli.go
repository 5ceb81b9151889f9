package ops

import (
	"context"
	"log/slog"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/cli"
)

// The admin listener serves `octo run --admin` for the commands, which know it only by
// cli.AdminListener: importing this package (main.go does) is what gives octo its --admin.
func init() {
	cli.RegisterAdmin(func(addr, version string, logger *slog.Logger) (cli.AdminListener, error) {
		m := NewMetrics(version)
		l, err := Listen(addr, m, logger)
		if err != nil {
			return nil, err
		}
		return &process{admin: l, metrics: m}, nil
	})
}

// process is the admin listener with the metrics it serves, as the commands drive them.
type process struct {
	admin   *Admin
	metrics *Metrics
}

func (p *process) Observer() runtime.Observer { return p.metrics }
func (p *process) Serving()                   { p.admin.SetState(StateReady) }
func (p *process) Stopping()                  { p.admin.SetState(StateStopping) }

func (p *process) Reloaded(err error) {
	p.metrics.Reloaded(err == nil)
	p.admin.Reloaded(err)
}

func (p *process) Close(ctx context.Context) error { return p.admin.Close(ctx) }

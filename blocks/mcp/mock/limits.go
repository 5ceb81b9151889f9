package mock

import (
	"time"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/blocks/mcp"
	"github.com/octo-run/octo/runtime/config"
)

// limitSettings are the server's limits on sessions and requests, beside
// its other settings; nil means the core's default (REFERENCE.md "Limits").
type limitSettings struct {
	MaxSessions          *int           `yaml:"maxSessions"`
	MaxStreamsPerSession *int           `yaml:"maxStreamsPerSession"`
	SessionIdleTimeout   *time.Duration `yaml:"sessionIdleTimeout"`
	StallTimeout         *time.Duration `yaml:"stallTimeout"`
	MaxBatch             *int           `yaml:"maxBatch"`
	MaxResponseBytes     *int64         `yaml:"maxResponseBytes"`
}

// limits are the values a server is built with; zero means the default.
// Changing them rebuilds the server.
type limits struct {
	maxSessions, maxStreams, maxBatch int
	idle, stall                       time.Duration
	maxResponseBytes                  int64
}

func limitsOf(l *limitSettings) limits {
	return limits{maxSessions: value(l.MaxSessions), maxStreams: value(l.MaxStreamsPerSession), maxBatch: value(l.MaxBatch),
		idle: value(l.SessionIdleTimeout), stall: value(l.StallTimeout), maxResponseBytes: value(l.MaxResponseBytes)}
}

func value[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// check reports a limit set to what cannot work: every one must be positive.
func (l *limitSettings) check(n *yaml.Node, at config.Where, ds *config.Diags) {
	positive(l.MaxSessions, "maxSessions", n, at, ds)
	positive(l.MaxStreamsPerSession, "maxStreamsPerSession", n, at, ds)
	positive(l.SessionIdleTimeout, "sessionIdleTimeout", n, at, ds)
	positive(l.StallTimeout, "stallTimeout", n, at, ds)
	positive(l.MaxBatch, "maxBatch", n, at, ds)
	positive(l.MaxResponseBytes, "maxResponseBytes", n, at, ds)
}

func positive[T int | int64 | time.Duration](v *T, key string, n *yaml.Node, at config.Where, ds *config.Diags) {
	if v != nil && *v <= 0 {
		ds.Addf(fieldOr(n, key), at.Field(key), "%s must be positive, got %v", key, *v)
	}
}

// apply sets the limits on the core server and the stateful options.
func (l limits) apply(s *mcp.Server, o *mcp.StatefulOptions) {
	s.MaxBatch, s.MaxResponseBytes = l.maxBatch, l.maxResponseBytes
	o.MaxSessions, o.MaxStreamsPerSession = l.maxSessions, l.maxStreams
	o.IdleTimeout, o.StallTimeout = l.idle, l.stall
}

package mock

import (
	"time"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/session"
)

// limitSettings are the server's limits on sessions and requests, beside
// its other settings; nil means the core's default (REFERENCE.md "Limits").
// Each must be positive.
type limitSettings struct {
	MaxSessions          *int           `yaml:"maxSessions" min:">0" doc:"Live sessions; when all are taken a new one takes the place of the session idle the longest, and with none idle initialize gets 503. Default 10000."`
	MaxStreamsPerSession *int           `yaml:"maxStreamsPerSession" min:">0" doc:"Event streams one session holds open at once (its GET stream and POSTs answered as SSE); past it a POST is answered as plain JSON, or 429. Default 16."`
	SessionIdleTimeout   *time.Duration `yaml:"sessionIdleTimeout" min:">0" doc:"A Streamable HTTP session with no traffic, no open stream and no call running for this long ends. Default 30m."`
	StallTimeout         *time.Duration `yaml:"stallTimeout" min:">0" doc:"How long a client may read nothing while the server waits on its full stream (256 events, 1 MiB); then it loses its session. Default 30s."`
	MaxBatch             *int           `yaml:"maxBatch" min:">0" doc:"Messages in one JSON-RPC batch (2025-03-26 sessions); a longer batch gets one error and none of it runs. Default 100."`
	MaxResponseBytes     *int64         `yaml:"maxResponseBytes" min:">0" doc:"Bytes of answers one POST body or stdio line may produce, or twice the body or line if that is more; an answer past it is error -32603. Default 16777216."`
	PageSize             *int           `yaml:"pageSize" min:">0" doc:"The most tools, resources, templates or prompts one page of a list holds; a longer list has pages, the next one named by nextCursor (a cursor the server did not give is -32602). Default 1000."`
}

// limits are the values a server is built with; zero means the default.
// Changing them rebuilds the server.
type limits struct {
	maxSessions, maxStreams, maxBatch, pageSize int
	idle, stall                                 time.Duration
	maxResponseBytes                            int64
}

func limitsOf(l *limitSettings) limits {
	return limits{maxSessions: value(l.MaxSessions), maxStreams: value(l.MaxStreamsPerSession), maxBatch: value(l.MaxBatch),
		idle: value(l.SessionIdleTimeout), stall: value(l.StallTimeout), maxResponseBytes: value(l.MaxResponseBytes), pageSize: value(l.PageSize)}
}

func value[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// apply sets the limits on the core server and the stateful options.
func (l limits) apply(s *mcp.Server, o *session.Options) {
	s.MaxBatch, s.MaxResponseBytes, s.PageSize = l.maxBatch, l.maxResponseBytes, l.pageSize
	o.MaxSessions, o.MaxStreamsPerSession = l.maxSessions, l.maxStreams
	o.IdleTimeout, o.StallTimeout = l.idle, l.stall
}

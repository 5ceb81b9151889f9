package agenttools

import (
	"context"
	"encoding/json"
	"time"
)

// Host is what the agent tools act on: the running app, or the bridge's headless copy of it.
type Host interface {
	// Workspace is the folder of saved servers the tools read and write.
	Workspace() string
	// States reports every saved server's state: running or not, its address, its last problem.
	States() []ServerState
	// Start serves the saved server name (it stays started across app restarts); Stop stops it.
	Start(ctx context.Context, name string) (ServerState, error)
	Stop(ctx context.Context, name string) error
	// Traffic returns the traffic the host has kept that matches q, oldest first.
	Traffic(q TrafficQuery) []TrafficEntry
	// Authorize is asked before every tool runs: agents must be allowed, and an action that
	// changes things may need the user's approval (asked in the console or a terminal prompt,
	// with a timeout). nil means go ahead; an error's text is what the agent is told.
	Authorize(ctx context.Context, a Action) error
}

// ServerState is one saved server as the host sees it.
type ServerState struct {
	Name, File string
	Kind       string // mcp or http (an HTTP API); "" when its file cannot be read
	Running    bool
	URL        string // the address to give clients when running
	Problem    string // why it does not serve (a broken file, a port in use), "" when none
}

// Action is a tool call the host authorizes before it runs.
type Action struct {
	Agent   string // the agent's clientInfo name
	Tool    string
	Changes bool   // save/delete/start/stop
	Summary string // one line for the user: `save_server "Weather mock" (3 tools)`
	// Detail is more for the user to judge by, a line each: what a saved server will answer
	// and which variables it reads. Names and texts in it are quoted (printable.Quote).
	Detail []string
}

// TrafficQuery selects kept traffic; empty fields match everything.
type TrafficQuery struct {
	Server, Session, Method string
	Since                   time.Time
	Limit                   int // 0: the default (100); at most 1000
}

// Traffic limits: what a query without a limit gets, and the most one may ask for.
const (
	DefaultTrafficLimit = 100
	MaxTrafficLimit     = 1000
)

// TrafficEntry is one kept traffic event: a message, a session opening or ending, or a
// request the HTTP layer rejected.
type TrafficEntry struct {
	Seq       uint64          `json:"seq"`
	Time      time.Time       `json:"time"`
	Server    string          `json:"server"`
	Session   string          `json:"session,omitempty"`
	Transport string          `json:"transport,omitempty"`
	Direction string          `json:"direction,omitempty"`
	Kind      string          `json:"kind"`
	Method    string          `json:"method,omitempty"`
	Summary   string          `json:"summary,omitempty"`
	Message   json.RawMessage `json:"message,omitempty"`
	Status    int             `json:"status,omitempty"` // HTTP status of a rejected request
	Code      int             `json:"code,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	Version   string          `json:"version,omitempty"` // the revision of a request with no session
}

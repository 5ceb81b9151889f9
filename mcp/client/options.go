package client

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/octo-run/octo/mcp"
)

// Transport names how the client reaches the server.
type Transport string

// The transports. Auto tries Streamable HTTP and falls back to the legacy
// HTTP+SSE transport on a 4xx (mcp-protocol.md §7.4); with a Command it is
// stdio.
const (
	TransportAuto       Transport = "auto"
	TransportStreamable Transport = "streamable"
	TransportSSE        Transport = "sse"
	TransportStdio      Transport = "stdio"
)

// Defaults of Options.
const (
	DefaultTimeout         = 60 * time.Second
	DefaultMaxMessageBytes = 16 << 20
	// DefaultMaxPages bounds how many pages a list follows.
	DefaultMaxPages = 100
)

// Options say which server to dial and how.
type Options struct {
	// URL is an HTTP(S) server's endpoint: the Streamable HTTP endpoint, or
	// the legacy transport's SSE URL.
	URL string
	// Command starts a stdio server: the program and its arguments. It gets
	// PATH, HOME and the few other variables a program needs from the
	// client's environment (not the rest, which may hold secrets), and Env
	// ("NAME=value", later entries win).
	Command []string
	Env     []string
	Dir     string
	// Stderr receives a stdio server's standard error; nil discards it (the
	// last lines still go into the error when the process ends early).
	Stderr io.Writer
	// Transport is auto when empty.
	Transport Transport
	// Headers are sent with every HTTP request (Authorization, …).
	Headers http.Header
	// HTTPClient sends the HTTP requests; nil uses a client of its own,
	// without an overall timeout, since event streams last.
	HTTPClient *http.Client
	// ClientInfo names the client in initialize; empty is "octo".
	ClientInfo mcp.Implementation
	// ProtocolVersion is the revision asked for; empty is the newest.
	ProtocolVersion string
	// Timeout bounds each request, initialize included (0: DefaultTimeout).
	Timeout time.Duration
	// MaxMessageBytes bounds one JSON answer, event or stdio line (0:
	// DefaultMaxMessageBytes).
	MaxMessageBytes int
	// MaxPages bounds the pages a List method follows (0: DefaultMaxPages).
	MaxPages int
	// Capabilities are what the client declares in initialize ({} when empty): elicitation,
	// sampling or roots, for calls whose CallOptions.OnRequest answers them.
	Capabilities json.RawMessage
	// OnListChanged hears "tools", "resources" or "prompts" when the server
	// says that list changed.
	OnListChanged func(list string)
	// OnNotification hears every other notification but progress (which
	// goes to the call that asked for it): notifications/message, …
	OnNotification func(method string, params json.RawMessage)
	// Logger hears what the client skips (unreadable lines, unknown
	// answers); nil discards.
	Logger *slog.Logger
}

// versions are the revisions the client speaks, newest first.
var versions = mcp.MockVersions

func (o *Options) normalize() error {
	if o.Transport == "" {
		o.Transport = TransportAuto
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultMaxPages
	}
	if o.ClientInfo.Name == "" {
		o.ClientInfo = mcp.Implementation{Name: "octo", Version: "dev"}
	}
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = versions.Latest()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	switch {
	case o.URL != "" && len(o.Command) > 0:
		return errors.New("mcpclient: give a URL or a command, not both")
	case len(o.Command) > 0:
		if o.Transport != TransportAuto && o.Transport != TransportStdio {
			return errors.New("mcpclient: a command is served over stdio, not " + string(o.Transport))
		}
		o.Transport = TransportStdio
	case o.URL == "":
		return errors.New("mcpclient: no URL and no command")
	case o.Transport == TransportStdio:
		return errors.New("mcpclient: the stdio transport needs a command, not a URL")
	case o.Transport != TransportAuto && o.Transport != TransportStreamable && o.Transport != TransportSSE:
		return errors.New("mcpclient: unknown transport " + string(o.Transport))
	}
	return nil
}

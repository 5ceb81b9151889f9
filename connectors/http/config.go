package http

import (
	"strings"
	"time"

	"github.com/octo-run/octo/runtime"
)

// settings are the http connector's settings. Their bounds and defaults are in the tags; what
// only the guard and the limits can check is checked when they are compiled.
type settings struct {
	Port              int           `yaml:"port" octo:"required" min:"0" max:"65535" doc:"The TCP port to listen on; 0 takes any free port." example:"8080"`
	Host              string        `yaml:"host" default:"127.0.0.1" doc:"The address to listen on: loopback unless set, since exposing a server is a decision (0.0.0.0 for every interface)."`
	MaxBodyBytes      int64         `yaml:"maxBodyBytes" default:"4194304" min:">0" doc:"The largest request body taken; a larger one is answered 413."`
	MaxHeaderBytes    int           `yaml:"maxHeaderBytes" default:"65536" min:">0" doc:"The most bytes of request headers read."`
	ReadHeaderTimeout time.Duration `yaml:"readHeaderTimeout" default:"10s" min:">0" doc:"How long a client may take to send its request headers."`
	IdleTimeout       time.Duration `yaml:"idleTimeout" default:"2m" min:">0" doc:"How long a kept-alive connection may wait for its next request."`
	// Origin, Host and CORS policy (guard.go) and the caps (limits.go, clients.go).
	Cors                corsSetting   `yaml:"cors" doc:"Browsers on other origins: true lets any in, a list of origins (https://app.example.com) lets those in; both answer preflights, allowing Content-Type, Authorization and the headers the path's blocks read (an MCP block's Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name and its tools' Mcp-Param headers), and expose Mcp-Session-Id and WWW-Authenticate. Default: same-origin only."`
	AllowedHosts        []string      `yaml:"allowedHosts" doc:"Host names clients may use to reach the server besides localhost, loopback addresses and the address a connection arrived on (a DNS name, a proxy's public name); [\"*\"] turns the Host check off."`
	BodyTimeout         time.Duration `yaml:"bodyTimeout" default:"5s" min:">0" doc:"The longest silence between the bytes of a request body; then the request gets 408 and its connection closes."`
	BodyDeadline        time.Duration `yaml:"bodyDeadline" default:"1m" min:">0" doc:"The longest a whole request body may take to arrive, however steadily it trickles; then the request gets 408 and its connection closes."`
	WriteTimeout        time.Duration `yaml:"writeTimeout" default:"30s" min:">0" doc:"The longest a client may take to accept each event of a stream, or each 64 KiB of an answer; then its connection closes and its slots are free."`
	MaxInFlight         int           `yaml:"maxInFlight" default:"1024" min:">0" doc:"Requests worked on at once; past it a request gets 503."`
	MaxStreams          int           `yaml:"maxStreams" default:"1024" min:">0" doc:"Event streams (SSE answers) open at once; past it 503."`
	MaxConnsPerClient   int           `yaml:"maxConnsPerClient" default:"256" min:">0" doc:"Connections one remote address may hold; a connection past it is closed unanswered."`
	MaxStreamsPerClient int           `yaml:"maxStreamsPerClient" default:"128" min:">0" doc:"Event streams one remote address may hold open; past it 503."`
	AccessLog           bool          `yaml:"accessLog" default:"false" doc:"Log one line per request once it is answered: method, path, status, bytes, duration, remote address and request id; never headers, the query or bodies, which may hold secrets." example:"true"`
	guard               *guard        // compiled by check
	limits              *limits       // compiled by check
}

// check compiles the guard and the limits, reporting what they refuse.
func (s *settings) compile(b *runtime.ConnectorBuild) error {
	s.compileLimits()
	s.compileGuard(b)
	return b.Err()
}

// sourceSettings are a flow source's settings on an http connector.
type sourceSettings struct {
	Path    string   `yaml:"path" doc:"The path the flow serves (exact match); set this or paths." example:"/mcp"`
	Paths   []string `yaml:"paths" doc:"The paths the flow serves, when it serves several (an MCP server's /mcp, /sse and /messages)."`
	Prefix  string   `yaml:"prefix" doc:"Every path under this one that no flow's path takes (/ for all of them), for a block that routes requests itself (http-mock); set this or path(s)." example:"/api"`
	Methods []string `yaml:"methods" enum:"GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS" octo:"anycase" doc:"The HTTP methods the flow takes, in any case; others get 405. Empty: any."`
}

// routed is one path the source serves, and the setting that wrote it.
type routed struct {
	path  string
	field *string
}

// routes lists the source's paths, reporting a missing, doubled or malformed one (the
// source's Err then says so).
func (s *sourceSettings) routes(src *runtime.SourceBuild) []routed {
	var out []routed
	switch {
	case s.Path != "" && len(s.Paths) > 0:
		src.Errorf(&s.Paths, "use path or paths, not both")
		return nil
	case s.Prefix != "" && (s.Path != "" || len(s.Paths) > 0):
		src.Errorf(&s.Prefix, "use prefix or path(s), not both")
		return nil
	case s.Prefix != "":
		out = append(out, routed{s.Prefix, &s.Prefix})
	case s.Path != "":
		out = append(out, routed{s.Path, &s.Path})
	case len(s.Paths) > 0:
		for i := range s.Paths {
			out = append(out, routed{s.Paths[i], &s.Paths[i]})
		}
	default:
		src.Errorf(nil, `missing required key "path" (or "paths", a list, or "prefix")`)
		return nil
	}
	for _, r := range out {
		if !strings.HasPrefix(r.path, "/") {
			src.Errorf(r.field, "path %q must start with /", r.path)
		}
	}
	return out
}

// spellMethods spells the methods, which the decoder matched in any case, as HTTP does.
func (s *sourceSettings) spellMethods() {
	for i, m := range s.Methods {
		s.Methods[i] = strings.ToUpper(m)
	}
}

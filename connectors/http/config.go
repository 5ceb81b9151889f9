package http

import (
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime"
)

const defaultMaxBody = 4 << 20

type settings struct {
	Port              int           `yaml:"port" octo:"required"`
	Host              string        `yaml:"host"`
	MaxBodyBytes      int64         `yaml:"maxBodyBytes"`
	MaxHeaderBytes    int           `yaml:"maxHeaderBytes"`
	ReadHeaderTimeout time.Duration `yaml:"readHeaderTimeout"`
	IdleTimeout       time.Duration `yaml:"idleTimeout"`
	// Origin, Host and CORS policy (guard.go) and the caps (limits.go, clients.go).
	Cors                corsSetting   `yaml:"cors"`
	AllowedHosts        []string      `yaml:"allowedHosts"`
	BodyTimeout         time.Duration `yaml:"bodyTimeout"`
	WriteTimeout        time.Duration `yaml:"writeTimeout"`
	MaxInFlight         int           `yaml:"maxInFlight"`
	MaxStreams          int           `yaml:"maxStreams"`
	MaxConnsPerClient   int           `yaml:"maxConnsPerClient"`
	MaxStreamsPerClient int           `yaml:"maxStreamsPerClient"`
	guard               *guard        // compiled by check
	limits              *limits       // compiled by check
}

func defaultSettings() settings {
	return settings{
		Host:                "127.0.0.1", // like the mock: exposing a server is a decision (host: 0.0.0.0)
		MaxBodyBytes:        defaultMaxBody,
		MaxHeaderBytes:      64 << 10,
		ReadHeaderTimeout:   10 * time.Second,
		IdleTimeout:         2 * time.Minute,
		BodyTimeout:         defaultBodyTimeout,
		WriteTimeout:        defaultWriteTimeout,
		MaxInFlight:         defaultMaxInFlight,
		MaxStreams:          defaultMaxStreams,
		MaxConnsPerClient:   defaultMaxConnsPerClient,
		MaxStreamsPerClient: defaultMaxStreamsPerClient,
	}
}

func (s *settings) check(b *runtime.ConnectorBuild) bool {
	ok := true
	at := b.At.Field("settings")
	if s.Port < 0 || s.Port > 65535 {
		b.Errorf(b.Setting("port"), at.Field("port"), "port %d is out of range 0-65535", s.Port)
		ok = false
	}
	if s.MaxBodyBytes <= 0 {
		b.Errorf(b.Setting("maxBodyBytes"), at.Field("maxBodyBytes"), "maxBodyBytes must be positive")
		ok = false
	}
	if s.MaxHeaderBytes <= 0 {
		b.Errorf(b.Setting("maxHeaderBytes"), at.Field("maxHeaderBytes"), "maxHeaderBytes must be positive")
		ok = false
	}
	if s.ReadHeaderTimeout <= 0 || s.IdleTimeout <= 0 {
		b.Errorf(nil, at, "readHeaderTimeout and idleTimeout must be positive")
		ok = false
	}
	ok = s.compileLimits(b) && ok
	return s.compileGuard(b) && ok
}

type sourceSettings struct {
	Path    string   `yaml:"path"`
	Paths   []string `yaml:"paths"` // one flow on several paths (an MCP server's /mcp, /sse, /messages)
	Methods []string `yaml:"methods"`
}

// routed pairs each path the source serves with the node that wrote it.
type routed struct {
	path string
	node *yaml.Node
	at   runtime.Where
}

var knownMethods = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "OPTIONS": true}

// routes lists the source's paths, reporting a missing, doubled or
// malformed one; nil when any is wrong.
func (s *sourceSettings) routes(src *runtime.SourceBuild) []routed {
	at := src.At.Field("settings")
	var out []routed
	switch {
	case s.Path != "" && len(s.Paths) > 0:
		src.Errorf(src.Setting("paths"), at.Field("paths"), "use path or paths, not both")
		return nil
	case s.Path != "":
		out = append(out, routed{s.Path, src.Setting("path"), at.Field("path")})
	case len(s.Paths) > 0:
		list := src.Setting("paths")
		for i, p := range s.Paths {
			out = append(out, routed{p, list.Content[i], at.Field("paths").Index(i)})
		}
	default:
		src.Errorf(src.Settings(), at, `missing required key "path" (or "paths", a list)`)
		return nil
	}
	ok := true
	for _, r := range out {
		if !strings.HasPrefix(r.path, "/") {
			src.Errorf(r.node, r.at, "path %q must start with /", r.path)
			ok = false
		}
	}
	if !ok {
		return nil
	}
	return out
}

func (s *sourceSettings) check(src *runtime.SourceBuild) bool {
	ok := true
	at := src.At.Field("settings")
	for i, m := range s.Methods {
		up := strings.ToUpper(m)
		if !knownMethods[up] {
			var node *yaml.Node
			if list := src.Setting("methods"); list != nil && i < len(list.Content) {
				node = list.Content[i]
			}
			src.Errorf(node, at.Field("methods").Index(i), "unknown HTTP method %q", m)
			ok = false
		}
		s.Methods[i] = up
	}
	return ok
}

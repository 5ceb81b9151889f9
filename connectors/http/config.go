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
	// Origin, Host and CORS policy and the request caps; see guard.go and limits.go.
	Cors         corsSetting `yaml:"cors"`
	AllowedHosts []string    `yaml:"allowedHosts"`
	MaxInFlight  int         `yaml:"maxInFlight"`
	MaxStreams   int         `yaml:"maxStreams"`
	guard        *guard      // compiled by check
}

func defaultSettings() settings {
	return settings{
		MaxBodyBytes:      defaultMaxBody,
		MaxHeaderBytes:    64 << 10,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxInFlight:       defaultMaxInFlight,
		MaxStreams:        defaultMaxStreams,
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
	return s.compileGuard(b) && ok
}

type sourceSettings struct {
	Path    string   `yaml:"path" octo:"required"`
	Methods []string `yaml:"methods"`
}

var knownMethods = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "OPTIONS": true}

func (s *sourceSettings) check(src *runtime.SourceBuild) bool {
	ok := true
	at := src.At.Field("settings")
	if !strings.HasPrefix(s.Path, "/") {
		src.Errorf(src.Setting("path"), at.Field("path"), "path %q must start with /", s.Path)
		ok = false
	}
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

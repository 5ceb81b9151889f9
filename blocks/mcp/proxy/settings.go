package proxy

import (
	"path"
	"time"

	"github.com/octo-run/octo/blocks/mcp/access"
)

// Settings are the mcp-proxy block's settings.
type Settings struct {
	ServerName   string             `yaml:"serverName" doc:"serverInfo.name in the initialize answer; default: the block's name, else octo-gateway."`
	Instructions string             `yaml:"instructions" doc:"The instructions the initialize answer gives clients."`
	Upstreams    []upstreamSettings `yaml:"upstreams" octo:"required" doc:"The MCP servers served behind this one endpoint: their tools, resources and prompts, merged."`
	Ping         time.Duration      `yaml:"ping" default:"5s" min:">0" max:"10m" doc:"How often each upstream is pinged, to find one that went away (over HTTP nothing else tells); a stdio server that exits is seen at once."`
	Retry        time.Duration      `yaml:"retry" default:"1s" min:">0" max:"1m" doc:"How long to wait before dialing an upstream that is down again; the wait doubles while it stays down, up to 30s."`
}

// upstreamSettings describe one upstream server.
type upstreamSettings struct {
	Name      string               `yaml:"name" octo:"required" doc:"The upstream's name, in logs and as the default prefix of its tools and prompts." example:"weather"`
	URL       string               `yaml:"url" doc:"The server's MCP endpoint over HTTP: Streamable HTTP, or the legacy HTTP+SSE transport's event stream URL. Set url or command." example:"http://127.0.0.1:3004/mcp"`
	Command   []string             `yaml:"command" doc:"A server to start and speak to over its standard streams: the program and its arguments. It gets PATH, HOME and a few variables a program needs, and env; not the rest of octo's environment. Set url or command." example:"[node, notes-server.js]"`
	Env       map[string]string    `yaml:"env" doc:"Environment variables for command."`
	Headers   map[string]string    `yaml:"headers" doc:"Headers sent with every request to url (Authorization, an API key): the upstream's own credentials, never the caller's." example:"{ Authorization: \"Bearer ${WEATHER_TOKEN}\" }"`
	Transport string               `yaml:"transport" default:"auto" enum:"auto,streamable,sse" doc:"For url: auto tries Streamable HTTP and falls back to the legacy transport on a 4xx, as the spec tells clients to."`
	Prefix    *string              `yaml:"prefix" doc:"Put before the upstream's tool and prompt names, so two upstreams' names cannot clash. Default: the name and an underscore (weather_); \"\" for none." example:"wx_"`
	Tools     filterSettings       `yaml:"tools" doc:"Which of the upstream's tools are served, by their names on the upstream."`
	Access    *access.Settings     `yaml:"access" doc:"Who may see and call the upstream's tools: scopes the caller's token (vars.jwt, from jwt-validate before the gateway) must grant, an expression over vars, headers and env, or both. A caller it refuses does not see them, and a call gets JSON-RPC error -32003."`
	RateLimit *access.RateSettings `yaml:"rateLimit" doc:"How often each caller may call each of the upstream's tools: calls per interval, by the token's subject unless by says otherwise. A call past it gets JSON-RPC error -32029, which says when to retry."`
	Timeout   time.Duration        `yaml:"timeout" default:"60s" min:">0" max:"1h" doc:"How long a request to the upstream may take, a tool call included."`
}

// filterSettings pick names: those allow matches (all when empty), less those deny matches.
type filterSettings struct {
	Allow []string `yaml:"allow" doc:"Patterns of the names served (path.Match syntax: * and ?); empty serves all." example:"[get_*, forecast]"`
	Deny  []string `yaml:"deny" doc:"Patterns of names never served, even when allow matches them." example:"[delete_*]"`
}

// serves reports whether name passes the filter.
func (f *filterSettings) serves(name string) bool {
	if len(f.Allow) > 0 && !matchesAny(f.Allow, name) {
		return false
	}
	return !matchesAny(f.Deny, name)
}

func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// prefix is the prefix of the upstream's tool and prompt names.
func (u *upstreamSettings) prefix() string {
	if u.Prefix != nil {
		return *u.Prefix
	}
	return u.Name + "_"
}

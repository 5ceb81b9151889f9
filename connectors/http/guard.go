package http

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// The guard is the connector's one defence against cross-site and DNS-rebinding requests
// (mcp-protocol.md §7.2.1), shared by every flow and block served over http.
//
// Defaults, with no settings:
//   - a request without Origin (curl, SDKs, agents: anything but a browser) passes;
//   - a request whose Origin names the same host:port as its Host header passes (same-origin);
//   - any other Origin is refused with 403;
//   - the Host header must name this server: localhost or a loopback address, the address the
//     connection arrived on, or an allowedHosts entry (any port). A page that DNS rebinding
//     pointed at this server's address sends its own, attacker-chosen name as Host (and as
//     Origin, so it looks same-origin); that name is none of these, wherever the server listens:
//     on loopback (the default) or exposed with host: 0.0.0.0 or a LAN address. An address
//     literal cannot be rebound, and a loopback name cannot be an attacker's.
//
// `cors: true` allows every Origin, `cors: [origins]` allows those; both answer browser
// preflights (allowing Content-Type, Authorization and the headers the path's flow reads: an MCP
// block's, its tools' Mcp-Param headers included) and expose Mcp-Session-Id and WWW-Authenticate. `allowedHosts` adds the names
// clients use to reach the server (a DNS name, a reverse proxy's public name, a NAT address),
// `allowedHosts: ["*"]` turns the Host check off.

const (
	corsAllowMethods  = "GET, POST, DELETE, OPTIONS"
	corsAllowHeaders  = "Content-Type, Authorization" // and what the path's flow reads: allowHeaders
	corsExposeHeaders = "Mcp-Session-Id, WWW-Authenticate"
	corsMaxAge        = "7200" // seconds; the most Chromium honours
)

// guard holds the compiled origin, host and CORS policy.
type guard struct {
	anyOrigin bool
	origins   map[string]bool // normalised origins the cors list allows
	cors      bool            // answer preflights and add CORS headers
	anyHost   bool            // allowedHosts: ["*"]: no Host check
	hosts     map[string]bool // allowedHosts names (lowercase, no port, IPv6 without brackets)
}

// corsSetting is the cors key: true (any origin), false, or a list of origins.
type corsSetting struct {
	any     bool
	origins []string
}

// Shape takes a bool or a list of origins.
func (c *corsSetting) Shape(s config.Shape) (any, string) {
	switch s {
	case config.ShapeBool:
		return &c.any, ""
	case config.ShapeList:
		return &c.origins, ""
	}
	return nil, "expected true, false or a list of origins such as [https://app.example.com]"
}

// compileGuard checks the guard settings, reporting each problem, and builds s.guard.
func (s *settings) compileGuard(b *runtime.ConnectorBuild) {
	g := &guard{anyOrigin: s.Cors.any, cors: s.Cors.any || len(s.Cors.origins) > 0}
	s.compileOrigins(b, g)
	s.compileHosts(b, g)
	s.guard = g
}

func (s *settings) compileOrigins(b *runtime.ConnectorBuild, g *guard) {
	g.origins = make(map[string]bool, len(s.Cors.origins))
	for i, o := range s.Cors.origins {
		norm, err := normaliseOrigin(o)
		if err != nil {
			b.Errorf(&s.Cors.origins[i], "%v", err)
			continue
		}
		g.origins[norm] = true
	}
}

func (s *settings) compileHosts(b *runtime.ConnectorBuild, g *guard) {
	g.hosts = make(map[string]bool, len(s.AllowedHosts))
	for i, h := range s.AllowedHosts {
		if h == "*" {
			g.anyHost = true
			continue
		}
		name, valid := allowedHostName(h)
		if !valid {
			b.Errorf(&s.AllowedHosts[i], "%q is not a host name: give the name alone, without scheme or port, or \"*\" to turn the check off", h)
			continue
		}
		g.hosts[name] = true
	}
}

// normaliseOrigin turns a configured origin into the form browsers send: lowercase
// scheme://host[:port], without a default port or trailing slash.
func normaliseOrigin(o string) (string, error) {
	u, err := url.Parse(strings.TrimSuffix(strings.TrimSpace(o), "/"))
	if err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil || u.Opaque != "" {
		return "", fmt.Errorf("%q is not an origin: write scheme://host[:port], e.g. https://app.example.com", o)
	}
	host := strings.ToLower(u.Host)
	scheme := strings.ToLower(u.Scheme)
	if scheme == "https" {
		host = strings.TrimSuffix(host, ":443")
	} else if scheme == "http" {
		host = strings.TrimSuffix(host, ":80")
	}
	return scheme + "://" + host, nil
}

// allowedHostName checks one allowedHosts entry: a DNS name or an IP literal (IPv6 with or
// without brackets), returned in the form hostName yields.
func allowedHostName(h string) (string, bool) {
	name := strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if _, err := netip.ParseAddr(name); err == nil {
		return strings.ToLower(name), true
	}
	if name == "" || strings.ContainsAny(name, "/:@[] \t") {
		return "", false
	}
	return strings.ToLower(name), true
}

// verdict is the guard's decision on one request.
type verdict uint8

const (
	pass      verdict = iota // no Origin, or same-origin: serve as is
	passCORS                 // an Origin the cors setting allows: serve with CORS headers
	preflight                // a CORS preflight the connector answers itself
	badOrigin                // refuse: Origin not allowed
	badHost                  // refuse: a Host that does not name this server
)

// decide is the whole policy as a pure function of what the request carries, so it can be
// tested and fuzzed without sockets. local is the address the connection arrived on (the zero
// Addr when unknown).
func (g *guard) decide(method string, origins []string, host string, preflightAsked bool, local netip.Addr) verdict {
	if !g.hostAllowed(host, local) {
		return badHost
	}
	if len(origins) == 0 {
		return pass
	}
	if len(origins) > 1 {
		return badOrigin // browsers send one; several are a forgery or a broken proxy
	}
	origin := origins[0]
	cors := g.anyOrigin || g.origins[strings.ToLower(origin)]
	if !cors && !sameOrigin(origin, host) {
		return badOrigin
	}
	if !cors {
		return pass
	}
	if method == http.MethodOptions && preflightAsked {
		return preflight
	}
	return passCORS
}

// hostAllowed accepts a Host naming this server, with any port: localhost, a loopback address,
// local (the address the connection arrived on) or an allowedHosts entry. An empty Host
// (HTTP/1.0) is accepted: browsers always send one, so it cannot be a rebinding attack.
func (g *guard) hostAllowed(host string, local netip.Addr) bool {
	if g.anyHost || host == "" {
		return true
	}
	name := hostName(host)
	if strings.EqualFold(name, "localhost") {
		return true
	}
	if ip, err := netip.ParseAddr(name); err == nil {
		ip = ip.Unmap().WithZone("")
		if ip.IsLoopback() || local.IsValid() && ip == local {
			return true
		}
	}
	return len(g.hosts) > 0 && g.hosts[strings.ToLower(name)]
}

// hostName strips the port from a Host header value and the brackets from an IPv6 literal.
func hostName(host string) string {
	if strings.HasPrefix(host, "[") {
		if end := strings.IndexByte(host, ']'); end > 0 {
			return host[1:end]
		}
		return host
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		return host[:i]
	}
	return host
}

// sameOrigin reports whether origin (scheme://host[:port]) names the request's own Host.
func sameOrigin(origin, host string) bool {
	_, rest, ok := strings.Cut(origin, "://")
	return ok && host != "" && strings.EqualFold(rest, host)
}

// screen applies the guard to a request. It answers refusals and preflights itself and
// returns false then; otherwise it adds the CORS headers an allowed cross-origin answer needs.
func (c *Connector) screen(w http.ResponseWriter, r *http.Request) bool {
	g := c.settings.guard
	origins := r.Header["Origin"]
	local := arrivedOn(r)
	_, asked := r.Header["Access-Control-Request-Method"]
	switch g.decide(r.Method, origins, r.Host, asked, local) {
	case pass:
		return true
	case passCORS:
		setCORS(w.Header(), origins[0])
		return true
	case preflight:
		h := w.Header()
		setCORS(h, origins[0])
		h.Set("Access-Control-Allow-Methods", corsAllowMethods)
		h.Set("Access-Control-Allow-Headers", c.allowHeaders(r.URL.Path))
		h.Set("Access-Control-Max-Age", corsMaxAge)
		w.WriteHeader(http.StatusNoContent)
		return false
	case badHost:
		on := "a loopback address"
		if !local.IsLoopback() {
			on = "this server"
			if local.IsValid() {
				on = local.String()
			}
		}
		c.logger.Debug("refused a Host that does not name this server", "host", clip(r.Host), "local", local.String(), "remote", r.RemoteAddr)
		writeError(w, http.StatusForbidden, "host "+clip(r.Host)+" is not allowed on "+on+" (add it to the connector's allowedHosts)")
		return false
	default:
		origin := strings.Join(origins, ", ")
		c.logger.Debug("refused a cross-origin request", "origin", clip(origin), "remote", r.RemoteAddr)
		writeError(w, http.StatusForbidden, "origin "+clip(origin)+" is not allowed (add it to the connector's cors setting)")
		return false
	}
}

// allowHeaders is what a preflight for path allows a browser to send: Content-Type and
// Authorization, and the headers the blocks of the path's flow read (runtime.HeaderReader: an
// MCP block's Mcp-Session-Id, Mcp-Method, Mcp-Name and its tools' Mcp-Param headers), asked
// now, so a mock's live edit is seen.
func (c *Connector) allowHeaders(path string) string {
	rt, ok := c.lookup(path)
	if !ok {
		return corsAllowHeaders
	}
	own := rt.flow.Headers()
	if len(own) == 0 {
		return corsAllowHeaders
	}
	return corsAllowHeaders + ", " + strings.Join(own, ", ")
}

func setCORS(h http.Header, origin string) {
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	h.Add("Vary", "Origin")
}

// arrivedOn is the address the request's connection arrived on, in the form hostAllowed
// compares: no IPv4-in-IPv6 wrapping, no zone.
func arrivedOn(r *http.Request) netip.Addr {
	a, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return addrIP(a).WithZone("")
}

// clip bounds attacker-chosen text before it reaches a log line or an error body.
func clip(s string) string {
	const max = 200
	if len(s) > max {
		s = s[:max] + "…"
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

var _ config.Shaped = (*corsSetting)(nil)

package console

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"path"
	"strings"
	"sync"

	"github.com/octo-run/octo/blocks/agent/app"
	"github.com/octo-run/octo/blocks/agent/console/web"
	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/runtime"
)

// api answers the console's requests over one app.
type api struct {
	app    *app.App
	door   *door
	log    *slog.Logger
	routes map[string]route
	page   []byte // index.html

	mu   sync.Mutex
	undo undoList
}

// request is one API call.
type request struct {
	ex   *httpmsg.Exchange
	body []byte
}

// reply is an API call's answer: a JSON value, raw bytes of a media type, or a stream.
type reply struct {
	status      int
	value       any
	raw         []byte
	contentType string
	stream      runtime.Stream
}

type handler func(ctx context.Context, r *request) reply

// writeHandler is a handler that writes workspace files, through w (see api.writes).
type writeHandler func(ctx context.Context, r *request, w *workspace.Writer) reply

// route is one API path: a handler per method.
type route map[string]handler

func newAPI(a *app.App, d *door, log *slog.Logger) *api {
	c := &api{app: a, door: d, log: log}
	index, err := fs.ReadFile(web.Files(), "index.html")
	if err != nil {
		panic(err) // embedded
	}
	c.page = index
	c.routes = c.table()
	return c
}

// table maps every path of web.API to its handlers.
func (c *api) table() map[string]route {
	return map[string]route{
		"/api/state":          {"GET": c.state},
		"/api/call":           {"POST": c.call},
		"/api/yaml":           {"GET": c.getYAML, "PUT": c.writes(c.putYAML)},
		"/api/new":            {"POST": c.writes(c.newServer)},
		"/api/rename":         {"POST": c.writes(c.rename)},
		"/api/duplicate":      {"POST": c.writes(c.duplicate)},
		"/api/delete":         {"POST": c.delete},
		"/api/undo":           {"POST": c.writes(c.undoDelete)},
		"/api/tool-enabled":   {"POST": c.toolEnabled},
		"/api/workspace-yaml": {"GET": c.getWorkspaceYAML, "PUT": c.writes(c.putWorkspaceYAML)},
		"/api/variables":      {"GET": c.getVariables, "POST": c.writes(c.saveVariables)},
		"/api/traffic":        {"GET": c.traffic},
		"/api/traffic/clear":  {"POST": c.clearTraffic},
		"/api/traffic/export": {"GET": c.exportTraffic},
		"/api/events":         {"GET": c.events},
		"/api/answer":         {"POST": c.answer},
		"/api/disconnect":     {"POST": c.disconnect},
		"/api/settings":       {"POST": c.setSettings},
	}
}

// writes runs h, which writes workspace files itself, holding the workspace's write lock
// (agenttools.Tools.Writing): a name or port it picks is not taken meanwhile by an agent's
// save, another console or octo new.
func (c *api) writes(h writeHandler) handler {
	return func(ctx context.Context, r *request) (out reply) {
		if err := c.app.Tools().Writing(ctx, func(w *workspace.Writer) { out = h(ctx, r, w) }); err != nil {
			return fail(http.StatusServiceUnavailable, err.Error())
		}
		return out
	}
}

// serve answers one request into m's reply.
func (c *api) serve(ctx context.Context, m *runtime.Message, ex *httpmsg.Exchange) {
	ex.SetReplyHeader("X-Content-Type-Options", "nosniff")
	ex.SetReplyHeader("Referrer-Policy", "no-referrer")
	ex.SetReplyHeader("Cache-Control", "no-store")
	if ex.Path == LoginPath {
		c.write(m, ex, c.enter(ex))
		return
	}
	if why := refused(ex); why != "" {
		c.write(m, ex, fail(http.StatusForbidden, why))
		return
	}
	if !c.door.admits(ex) {
		c.write(m, ex, notLoggedIn(ex, howToEnter))
		return
	}
	if strings.HasPrefix(ex.Path, "/api/") {
		c.write(m, ex, c.callAPI(ctx, m, ex))
		return
	}
	c.write(m, ex, c.file(ex))
}

func (c *api) callAPI(ctx context.Context, m *runtime.Message, ex *httpmsg.Exchange) reply {
	rt, ok := c.routes[ex.Path]
	if !ok {
		return fail(http.StatusNotFound, "no such API path: "+ex.Path)
	}
	h, ok := rt[ex.Method]
	if !ok {
		methods := make([]string, 0, len(rt))
		for m := range rt {
			methods = append(methods, m)
		}
		ex.SetReplyHeader("Allow", strings.Join(methods, ", "))
		return fail(http.StatusMethodNotAllowed, ex.Method+" is not answered here")
	}
	if ex.Method == "POST" && !isJSON(ex.Header.Get("Content-Type")) {
		return fail(http.StatusUnsupportedMediaType, "send the body as application/json")
	}
	return h(ctx, &request{ex: ex, body: m.Raw()})
}

// refused says why a request may not reach the console: it must come from loopback, name
// this computer as its Host, and come from the console's own page if from a page at all.
func refused(ex *httpmsg.Exchange) string {
	if why := refusedAddress(ex); why != "" {
		return why
	}
	if o := ex.Header.Get("Origin"); o != "" && o != "http://"+ex.Host {
		return "requests from other pages are refused"
	}
	if site := ex.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return "requests from other sites are refused"
	}
	return ""
}

// refusedAddress says why a request is not from this computer to the console's own address:
// from loopback, with Host 127.0.0.1 or localhost (DNS rebinding).
func refusedAddress(ex *httpmsg.Exchange) string {
	if ap, err := netip.ParseAddrPort(ex.RemoteAddr); err != nil || !ap.Addr().Unmap().IsLoopback() {
		return "the console answers this computer only"
	}
	host := ex.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host != "127.0.0.1" && host != "localhost" {
		return "open the console as http://127.0.0.1:PORT/ (Host " + quoteLog(ex.Host) + " is refused)"
	}
	return ""
}

// enter answers a login link: its secret, when current, is traded for the session cookie and
// the browser is sent to the console's page; otherwise it is told how to get a new link. The
// link may come from anywhere the user opened it (a terminal, the page --open writes, another
// site's link), so the other-page checks do not apply: the secret itself is the proof, and a
// wrong one gets nothing.
func (c *api) enter(ex *httpmsg.Exchange) reply {
	if why := refusedAddress(ex); why != "" {
		return fail(http.StatusForbidden, why)
	}
	if ex.Method != "GET" && ex.Method != "HEAD" {
		ex.SetReplyHeader("Allow", "GET, HEAD")
		return fail(http.StatusMethodNotAllowed, "the login link is opened with GET")
	}
	cookie, ok, err := c.door.enter(ex.Query().Get("secret"))
	switch {
	case err != nil:
		return failf(http.StatusInternalServerError, "logging in failed: %v", err)
	case !ok:
		c.log.Warn("a console login link was refused (used already, from an earlier run, or guessed)", "remote", ex.RemoteAddr)
		return notLoggedIn(ex, usedLink)
	}
	ex.SetReplyHeader("Set-Cookie", cookie.String())
	ex.SetReplyHeader("Location", "/")
	return reply{status: http.StatusSeeOther, raw: []byte{}, contentType: "text/plain; charset=utf-8"}
}

// notLoggedIn is the 401 a request without the session cookie gets: a page saying how to get
// in for the page's paths, the same words as JSON for the API.
func notLoggedIn(ex *httpmsg.Exchange, why string) reply {
	if strings.HasPrefix(ex.Path, "/api/") {
		return fail(http.StatusUnauthorized, "not logged in to the console: "+why)
	}
	ex.SetReplyHeader("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	return reply{status: http.StatusUnauthorized, raw: enterPage(why), contentType: "text/html; charset=utf-8"}
}

func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// file answers a page file.
func (c *api) file(ex *httpmsg.Exchange) reply {
	name := web.File(ex.Path)
	if name == "" {
		return fail(http.StatusNotFound, "not found")
	}
	if ex.Method != "GET" && ex.Method != "HEAD" {
		ex.SetReplyHeader("Allow", "GET, HEAD")
		return fail(http.StatusMethodNotAllowed, "the page's files are read with GET")
	}
	ex.SetReplyHeader("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'")
	ex.SetReplyHeader("X-Frame-Options", "DENY")
	ct := mime.TypeByExtension(path.Ext(name))
	if name == "index.html" {
		return reply{raw: c.page, contentType: "text/html; charset=utf-8"}
	}
	data, err := fs.ReadFile(web.Files(), name)
	if err != nil {
		return fail(http.StatusNotFound, "not found")
	}
	if strings.HasSuffix(name, ".js") {
		ct = "text/javascript; charset=utf-8"
	}
	return reply{raw: data, contentType: ct}
}

// write puts r into m's reply.
func (c *api) write(m *runtime.Message, ex *httpmsg.Exchange, r reply) {
	ex.Status = r.status
	switch {
	case r.stream != nil:
		m.SetStream(r.stream)
	case r.raw != nil:
		ex.ContentType = r.contentType
		m.SetRaw(r.raw)
	default:
		data, err := json.Marshal(r.value)
		if err != nil {
			ex.Status, data = http.StatusInternalServerError, []byte(`{"error":"cannot encode the answer"}`)
		}
		ex.ContentType = "application/json"
		m.SetRaw(data)
	}
}

// problem is an API error's body.
type problem struct {
	Error    string      `json:"error"`
	Problems []lineIssue `json:"problems,omitempty"`
}

func fail(status int, msg string) reply { return reply{status: status, value: problem{Error: msg}} }

func failf(status int, format string, args ...any) reply {
	return fail(status, fmt.Sprintf(format, args...))
}

func ok(v any) reply { return reply{value: v} }

// args decodes a JSON body into v, refusing unknown keys and trailing data.
func args(r *request, v any) error {
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the body is not the expected JSON: %v", err)
	}
	if dec.More() {
		return fmt.Errorf("the body holds more than one JSON value")
	}
	return nil
}

// quoteLog quotes text from a request for a message, bounded.
func quoteLog(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return fmt.Sprintf("%q", s)
}

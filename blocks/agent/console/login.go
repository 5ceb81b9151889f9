package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/agent/console/web"
	"github.com/octo-run/octo/connectors/http/httpmsg"
)

// The console's door, as notebook servers have it: `octo app` prints a login link carrying a
// one-time secret (and keeps the current one in console.json in the data folder, readable by
// the user only, for `octo app --print-url`). Opening it trades the secret for a session
// cookie (HttpOnly, SameSite=Strict) and makes a new secret, so a link works once. Every other
// request needs the cookie: another local user, who can reach the port but not the data
// folder, gets 401 and a page that says how to get in. No page served without the cookie
// holds a secret.

// LoginPath is the path of the login link.
const LoginPath = web.Login

// maxSessions bounds the browser sessions kept; a new login past it ends the oldest.
const maxSessions = 16

// door keeps the current login secret and the sessions it was traded for.
type door struct {
	dir string // the data folder: console.json

	mu       sync.Mutex
	url      string // the console's address once it serves: http://127.0.0.1:PORT/
	cookie   string // the session cookie's name: one per port, as cookies are not kept apart by port
	secret   string
	sessions []string // the oldest first
}

// open makes the first secret for the console now serving at addr (host:port) and writes the
// login link to console.json.
func (d *door) open(addr string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.url = "http://" + addr + "/"
	d.cookie = "octo-console-" + addr[strings.LastIndexByte(addr, ':')+1:]
	return d.renewLocked()
}

// renewLocked makes a new login secret and writes it to console.json; d.mu is held.
func (d *door) renewLocked() error {
	secret, err := newSecret()
	if err != nil {
		return err
	}
	d.secret = secret
	return appdata.WriteConsole(d.dir, appdata.Console{URL: d.url, Login: d.loginLocked(), PID: os.Getpid()})
}

func (d *door) loginLocked() string {
	return d.url + strings.TrimPrefix(LoginPath, "/") + "?secret=" + d.secret
}

// close removes console.json, if it is still this console's.
func (d *door) close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.url == "" {
		return nil
	}
	return appdata.RemoveConsole(d.dir, d.url)
}

// enter trades the secret of a login link for a session: the cookie to set, or ok false when
// the secret is not the current one (used already, or from an earlier run).
func (d *door) enter(secret string) (cookie *http.Cookie, ok bool, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.secret == "" || subtle.ConstantTimeCompare([]byte(secret), []byte(d.secret)) != 1 {
		return nil, false, nil
	}
	session, err := newSecret()
	if err != nil {
		return nil, false, err
	}
	d.sessions = append(d.sessions, session)
	if n := len(d.sessions) - maxSessions; n > 0 {
		d.sessions = slices.Delete(d.sessions, 0, n)
	}
	if err := d.renewLocked(); err != nil {
		return nil, false, err
	}
	return &http.Cookie{Name: d.cookie, Value: session, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode}, true, nil
}

// admits reports whether the request carries a session cookie this console gave.
func (d *door) admits(ex *httpmsg.Exchange) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cookie == "" {
		return false
	}
	for _, c := range cookies(ex, d.cookie) {
		for _, s := range d.sessions {
			if subtle.ConstantTimeCompare([]byte(c), []byte(s)) == 1 {
				return true
			}
		}
	}
	return false
}

// cookies are the values of the request's cookies called name.
func cookies(ex *httpmsg.Exchange, name string) []string {
	var out []string
	for _, c := range (&http.Request{Header: ex.Header}).CookiesNamed(name) {
		out = append(out, c.Value)
	}
	return out
}

// newSecret is 32 random bytes, base64url.
func newSecret() (string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(raw[:]), nil
}

// How a request without the cookie is told to get in.
const (
	howToEnter = "open the login link octo app printed when it started, or print a new one with: octo app --print-url (add --open to open it)"
	usedLink   = "this login link was used already or is from an earlier run of octo app: print a new one with octo app --print-url (add --open to open it)"
)

// enterPage is the page a browser without the cookie gets, in words.
func enterPage(why string) []byte {
	return []byte("<!doctype html>\n<html lang=\"en\"><meta charset=\"utf-8\"><title>octo console: log in</title>\n" +
		"<h1>octo console</h1>\n<p>To use the console, " + why + ".</p>\n" +
		"<p>The link is printed only where octo app runs, and kept in its data folder, which only you can read.</p>\n</html>\n")
}

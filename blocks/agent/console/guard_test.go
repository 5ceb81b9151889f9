package console_test

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/agent/console/web"
)

// The console opens only to a browser that traded the login link's one-time secret for the
// session cookie: no cookie, a wrong or doubled one, a used link, another run's link, and the
// secret guessed all get 401 with the words that say how to get in, and no page served
// without the cookie holds anything secret.
func TestTheConsoleOpensOnlyWithItsLoginLink(t *testing.T) {
	f := newFixture(t)
	f2 := newFixture(t)
	if f2.login == f.login {
		t.Fatal("two runs made the same login link")
	}
	next, err := appdata.ReadConsole(f.dir)
	if err != nil || next.Login == f.login {
		t.Fatalf("the link was not replaced once used: %+v, %v", next, err)
	}
	if fi, err := os.Stat(filepath.Join(f.dir, appdata.ConsoleFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("console.json: %v, %v", fi, err)
	}
	anon := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(t *testing.T, path, cookie string) (int, string, http.Header) {
		t.Helper()
		req, _ := http.NewRequest("GET", f.url+strings.TrimPrefix(path, "/"), nil)
		if cookie != "" {
			req.Header.Set("Cookie", cookie)
		}
		resp, err := anon.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), resp.Header
	}
	name := strings.SplitN(f.cookie, "=", 2)[0]
	for _, c := range []struct{ name, path, cookie, want string }{
		{"the page without a cookie", "/", "", "octo app --print-url"},
		{"a script without a cookie", "/js/main.js", "", "octo app --print-url"},
		{"the API without a cookie", "/api/state", "", "not logged in to the console"},
		{"the live stream without a cookie", "/api/events", "", "not logged in"},
		{"a wrong cookie", "/api/state", name + "=wrong", "not logged in"},
		{"another run's cookie", "/api/state", strings.SplitN(f2.cookie, "=", 2)[0] + "=" + strings.SplitN(f2.cookie, "=", 2)[1], "not logged in"},
		{"this run's session under another name", "/api/state", "octo-console-1=" + strings.SplitN(f.cookie, "=", 2)[1], "not logged in"},
		{"a used login link", strings.TrimPrefix(f.login, f.url), "", "used already"},
		{"another run's login link", "login?secret=" + strings.SplitN(f2.login, "secret=", 2)[1], "", "used already"},
		{"a guessed secret", "login?secret=" + strings.Repeat("A", 43), "", "used already"},
		{"no secret", "login", "", "used already"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body, h := get(t, c.path, c.cookie)
			if code != http.StatusUnauthorized || !strings.Contains(body, c.want) {
				t.Fatalf("answered %d, want 401 saying %q: %s", code, c.want, body)
			}
			if h.Get("Set-Cookie") != "" || strings.Contains(body, next.Login[strings.Index(next.Login, "secret="):]) {
				t.Fatalf("a refused request got a secret: %v %s", h, body)
			}
		})
	}
	t.Run("the current link opens the console once, with an HttpOnly SameSite=Strict cookie", func(t *testing.T) {
		code, _, h := get(t, strings.TrimPrefix(next.Login, f.url), "")
		ck := h.Get("Set-Cookie")
		if code != http.StatusSeeOther || h.Get("Location") != "/" || !strings.Contains(ck, "HttpOnly") || !strings.Contains(ck, "SameSite=Strict") {
			t.Fatalf("answered %d, Location %q, Set-Cookie %q", code, h.Get("Location"), ck)
		}
		session := strings.SplitN(ck, ";", 2)[0]
		if code, body, _ := get(t, "/api/state", session); code != 200 {
			t.Fatalf("with the new session: %d %s", code, body)
		}
		if code, _, _ := get(t, strings.TrimPrefix(next.Login, f.url), ""); code != http.StatusUnauthorized {
			t.Fatalf("the link opened the console twice: %d", code)
		}
	})
	s := f.state()
	if len(s.Servers) != 1 || s.Servers[0].Name != "Weather" || s.Servers[0].File != "servers/Weather.yaml" || !s.CanApprove {
		t.Fatalf("state %+v", s)
	}
}

// Requests a hostile page or a rebinding DNS name could make are refused before any work.
func TestHostileRequestsAreRefused(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name   string
		method string
		path   string
		header map[string]string
		body   string
		want   int
	}{
		{"rebound host name", "GET", "api/state", map[string]string{"Host": "evil.example"}, "", 403},
		{"rebound host name, page", "GET", "", map[string]string{"Host": "evil.example:80"}, "", 403},
		{"other origin", "POST", "api/settings", map[string]string{"Origin": "http://evil.example", "Content-Type": "application/json"}, `{"allow":true}`, 403},
		{"cross-site fetch", "POST", "api/settings", map[string]string{"Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"}, `{"allow":true}`, 403},
		{"form post (no JSON)", "POST", "api/settings", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, `allow=true`, 415},
		{"unknown key", "POST", "api/settings", map[string]string{"Content-Type": "application/json"}, `{"allow":true,"admin":true}`, 400},
		{"not JSON", "POST", "api/settings", map[string]string{"Content-Type": "application/json"}, `{"allow":`, 400},
		{"two values", "POST", "api/settings", map[string]string{"Content-Type": "application/json"}, `{} {}`, 400},
		{"bad enum", "POST", "api/settings", map[string]string{"Content-Type": "application/json"}, `{"approve":"always"}`, 400},
		{"wrong method", "DELETE", "api/state", nil, "", 405},
		{"unknown API path", "GET", "api/nothing", nil, "", 404},
		{"unknown answer", "POST", "api/answer", map[string]string{"Content-Type": "application/json"}, `{"id":99,"answer":"approve"}`, 404},
		{"answer of another kind", "POST", "api/answer", map[string]string{"Content-Type": "application/json"}, `{"id":1,"answer":"maybe"}`, 400},
		{"negative id", "POST", "api/disconnect", map[string]string{"Content-Type": "application/json"}, `{"id":-1}`, 400},
		{"unknown server", "GET", "api/yaml?name=%00..%2F..%2Fetc%2Fpasswd", nil, "", 404},
		{"unknown tool", "POST", "api/call", map[string]string{"Content-Type": "application/json"}, `{"tool":"rm_rf"}`, 404},
		{"bad limit", "GET", "api/traffic?limit=1000000", nil, "", 400},
		{"bad after", "GET", "api/events?after=-3", nil, "", 400},
		{"bad only", "GET", "api/events?only=secrets", nil, "", 400},
		{"rename to a path", "POST", "api/rename", map[string]string{"Content-Type": "application/json"}, `{"name":"Weather","to":"../../x"}`, 400},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, f.url+c.path, strings.NewReader(c.body))
			for k, v := range c.header {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := f.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Fatalf("answered %d, want %d: %s", resp.StatusCode, c.want, body)
			}
		})
	}
	if s := f.state(); s.Settings.Allow || len(s.Servers) != 1 {
		t.Fatalf("a refused request changed something: %+v", s)
	}
}

// The page's files are served, and nothing else: no listing, no way out of the embedded tree.
func TestThePageServesOnlyItsFiles(t *testing.T) {
	f := newFixture(t)
	for _, p := range web.Paths() {
		if strings.HasPrefix(p, "/api/") || p == web.Login {
			continue
		}
		resp, err := f.client.Get(f.url + strings.TrimPrefix(p, "/"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Security-Policy") == "" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d, headers %v", p, resp.StatusCode, resp.Header)
		}
		if strings.HasSuffix(p, ".js") && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") {
			t.Errorf("%s: Content-Type %s (module scripts need a JavaScript type)", p, resp.Header.Get("Content-Type"))
		}
	}
	for _, p := range []string{"index.html", "static/index.html", "js/", "../web.go", "%2e%2e/web.go", "nothing.js"} {
		resp, err := f.client.Get(f.url + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("%s answered %d, want 404", p, resp.StatusCode)
		}
	}
}

// A client that sends half a request and stalls, or garbage, does not stop the console.
func TestBrokenClientsDoNotStopTheConsole(t *testing.T) {
	f := newFixture(t)
	host := strings.TrimSuffix(strings.TrimPrefix(f.url, "http://"), "/")
	for _, raw := range []string{
		"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n", // never finished
		"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",   // a TLS hello
		"POST /api/call HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nCookie: " + f.cookie + "\r\nContent-Length: 100\r\n\r\n{\"tool\":",
	} {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = conn.Write([]byte(raw))
		_ = conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		_, _ = io.ReadAll(conn)
		conn.Close()
	}
	if s := f.state(); len(s.Servers) != 1 {
		t.Fatalf("state %+v", s)
	}
}

// Every API path the page and octo app route is answered by the console, and the other way.
func TestEveryRoutedPathIsAnswered(t *testing.T) {
	f := newFixture(t)
	for _, p := range web.API {
		code, body := f.do("OPTIONS", p, nil)
		if code != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d %s, want 405 (a known path, no OPTIONS)", p, code, body)
		}
	}
}

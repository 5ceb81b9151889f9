package httprequest

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/octo-run/octo/runtime"
)

// seen is what a backend received.
type seen struct {
	method, path, rawQuery, host string
	header                       http.Header
	body                         string
}

// recorder is a backend that records each request and answers with answer.
type recorder struct {
	mu     sync.Mutex
	got    []seen
	answer func(w http.ResponseWriter, r *http.Request)
}

func newRecorder(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) (*recorder, *httptest.Server) {
	rec := &recorder{answer: answer}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.got = append(rec.got, seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Host, r.Header.Clone(), string(b)})
		rec.mu.Unlock()
		rec.answer(w, r)
	}))
	t.Cleanup(srv.Close)
	return rec, srv
}

func (rec *recorder) requests() []seen {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]seen(nil), rec.got...)
}

func answerJSON(status int, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func TestTheRequestReachesTheBackendAsWritten(t *testing.T) {
	cases := []struct {
		name     string
		settings string
		body     string
		want     seen
	}{
		{
			name: "templated url, query, headers and a JSON body with an exact big number",
			settings: `          method: post
          url: "${BACKEND}/cities/{{ body.id }}?fixed=1"
          query: { city: "{{ body.city }}", units: metric }
          headers:
            Authorization: "Bearer {{ body.token }}"
            x-trace: "t-{{ body.id }}"
          body: '{"city": body.city, "n": body.n}'
`,
			body: `{"id": 7, "city": "São Paulo & Co", "token": "tok-123", "n": 12345678901234567890}`,
			want: seen{method: "POST", path: "/cities/7", rawQuery: "fixed=1&city=S%C3%A3o+Paulo+%26+Co&units=metric",
				header: http.Header{"Authorization": {"Bearer tok-123"}, "X-Trace": {"t-7"}, "Content-Type": {"application/json"}, "User-Agent": {"octo"}},
				body:   `{"city":"São Paulo \u0026 Co","n":12345678901234567890}`},
		},
		{
			name: "a raw body is sent as it renders, with the content type the headers give",
			settings: `          method: PUT
          url: ${BACKEND}/notes
          headers: { Content-Type: text/csv, User-Agent: "weather-bot/1.0" }
          rawBody: "city,temp\n{{ body.city }},{{ body.temp }}"
`,
			body: `{"city": "Oslo", "temp": 4}`,
			want: seen{method: "PUT", path: "/notes",
				header: http.Header{"Content-Type": {"text/csv"}, "User-Agent": {"weather-bot/1.0"}},
				body:   "city,temp\nOslo,4"},
		},
		{
			name: "a query parameter whose value is empty or absent is left out",
			settings: `          url: ${BACKEND}/issues
          query: { label: "{{ body.label }}", limit: "{{ body.limit }}", state: "{{ body.state }}" }
`,
			body: `{"label": "", "state": "open"}`,
			want: seen{method: "GET", path: "/issues", rawQuery: "state=open", header: http.Header{"User-Agent": {"octo"}}},
		},
		{
			name:     "a GET sends no body and no content type",
			settings: "          url: ${BACKEND}/ping\n",
			want:     seen{method: "GET", path: "/ping", header: http.Header{"User-Agent": {"octo"}}},
		},
		{
			name:     "a Host header names the virtual host",
			settings: "          url: ${BACKEND}/h\n          headers: { Host: api.internal }\n",
			want:     seen{method: "GET", path: "/h", host: "api.internal", header: http.Header{"User-Agent": {"octo"}}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec, srv := newRecorder(t, answerJSON(200, `{}`))
			r := start(t, flowOf(blockOf(c.settings), map[string]string{"BACKEND": srv.URL}), map[string]string{"BACKEND": srv.URL})
			if _, err := r.run(t, c.body); err != nil {
				t.Fatal(err)
			}
			got := rec.requests()
			if len(got) != 1 {
				t.Fatalf("%d requests, want 1", len(got))
			}
			g := got[0]
			if c.want.host == "" {
				c.want.host = strings.TrimPrefix(srv.URL, "http://")
			}
			if g.method != c.want.method || g.path != c.want.path || g.rawQuery != c.want.rawQuery || g.host != c.want.host || g.body != c.want.body {
				t.Errorf("got %s %s ? %s host %s body %q\nwant %s %s ? %s host %s body %q", g.method, g.path, g.rawQuery, g.host, g.body,
					c.want.method, c.want.path, c.want.rawQuery, c.want.host, c.want.body)
			}
			for k, v := range c.want.header {
				if !reflect.DeepEqual(g.header[k], v) {
					t.Errorf("header %s = %q, want %q", k, g.header[k], v)
				}
			}
			if c.want.body == "" && g.header.Get("Content-Type") != "" {
				t.Errorf("Content-Type %q sent without a body", g.header.Get("Content-Type"))
			}
		})
	}
}

func TestTheAnswerGoesIntoTheMessage(t *testing.T) {
	cases := []struct {
		name, settings, contentType, answer string
		status                              int
		// raw: the body is still these bytes (the answer's, decoded when first read), or "" when
		// it is a value
		raw      string
		wantBody any
		wantVars map[string]any
	}{
		{"a JSON answer becomes the body, decoded when read, numbers exact", "", "application/json", `{"temp": 21.5, "id": 12345678901234567890, "n": 3}`, 200,
			`{"temp": 21.5, "id": 12345678901234567890, "n": 3}`, map[string]any{"temp": 21.5, "id": json.Number("12345678901234567890"), "n": 3},
			map[string]any{"http": map[string]any{"status": 200, "headers": map[string]string{"Content-Type": "application/json", "Content-Length": "50"}}}},
		{"a +json type is JSON too", "", "application/problem+json; charset=utf-8", `[1, 2]`, 201,
			`[1, 2]`, []any{1, 2}, nil},
		{"an answer without a content type is JSON when it parses", "", "", `{"ok": true}`, 200,
			`{"ok": true}`, map[string]any{"ok": true}, nil},
		{"a text answer is a string", "", "text/plain; charset=utf-8", "sunny, 21C\n", 200,
			"", "sunny, 21C\n", nil},
		{"an untyped answer that is not JSON is a string", "", "", "plain words", 200,
			"", "plain words", nil},
		{"an empty answer leaves no body", "", "", "", 204,
			"", nil, map[string]any{"http": map[string]any{"status": 204, "headers": map[string]string{}}}},
		{"into a variable keeps the body and holds the whole answer", "          into: vars.weather\n", "application/json", `{"temp": 4}`, 200,
			`{"city": "Oslo"}`, map[string]any{"city": "Oslo"},
			map[string]any{"weather": map[string]any{"status": 200, "body": map[string]any{"temp": 4},
				"headers": map[string]string{"Content-Type": "application/json", "Content-Length": "11"}}}},
		{"an accepted 404 is an answer", "          acceptStatus: [404]\n", "application/json", `{"error": "no such city"}`, 404,
			`{"error": "no such city"}`, map[string]any{"error": "no such city"}, nil},
		{"a status class is accepted whole", "          acceptStatus: [4xx]\n", "text/plain", "gone", 410,
			"", "gone", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, srv := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header()["Content-Type"] = nil // none unless the case gives one: net/http would guess
				if c.contentType != "" {
					w.Header().Set("Content-Type", c.contentType)
				}
				w.Header()["Date"] = nil // not in the headers compared
				w.WriteHeader(c.status)
				io.WriteString(w, c.answer)
			})
			env := map[string]string{"BACKEND": srv.URL}
			r := start(t, flowOf(blockOf("          url: ${BACKEND}/x\n"+c.settings), env), env)
			m, err := r.run(t, `{"city": "Oslo"}`)
			if err != nil {
				t.Fatal(err)
			}
			if m.IsRaw() != (c.raw != "") || string(m.Raw()) != c.raw {
				t.Errorf("raw body %v %q, want %q", m.IsRaw(), m.Raw(), c.raw)
			}
			body, err := m.Body()
			if err != nil || !reflect.DeepEqual(body, c.wantBody) {
				t.Errorf("body = %#v %v, want %#v", body, err, c.wantBody)
			}
			for k, want := range c.wantVars {
				if !reflect.DeepEqual(m.Vars[k], want) {
					t.Errorf("vars.%s = %#v\nwant %#v", k, m.Vars[k], want)
				}
			}
		})
	}
}

// A later block reads what the answer left: the body and vars.http.
func TestALaterBlockReadsTheAnswer(t *testing.T) {
	_, srv := newRecorder(t, answerJSON(200, `{"temperatureC": 21, "sky": "clear"}`))
	env := map[string]string{"BACKEND": srv.URL}
	r := start(t, flowOf(blockOf("          url: ${BACKEND}/x\n")+`      - type: set-payload
        settings: { value: '{"summary": body.sky + ", " + string(body.temperatureC) + "C", "status": vars.http.status}' }
`, env), env)
	m, err := r.run(t, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := m.Body()
	if want := map[string]any{"summary": "clear, 21C", "status": 200}; !reflect.DeepEqual(body, want) {
		t.Fatalf("body %#v, want %#v", body, want)
	}
}

func TestAnAnswerThatIsNotWhatItSaysFails(t *testing.T) {
	cases := []struct {
		name, settings, contentType, answer, want string
	}{
		{"JSON by its content type that does not parse", "", "application/json", `{"temp": `,
			"the backend's answer is not valid JSON, though its Content-Type says it is"},
		{"JSON into a variable with a number octo refuses", "          into: vars.w\n", "application/json", `{"n": 1e999}`,
			"the backend's answer holds JSON octo does not take"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, srv := newRecorder(t, answerJSON(200, c.answer))
			env := map[string]string{"BACKEND": srv.URL}
			r := start(t, flowOf(blockOf("          url: ${BACKEND}/x\n"+c.settings), env), env)
			_, err := r.run(t, `{}`)
			var re *RequestError
			if !errors.As(err, &re) || re.Message() != c.want {
				t.Fatalf("got %v, want a RequestError saying %q", err, c.want)
			}
			if e := runtime.ErrorOf(err); e.Kind != runtime.KindUpstream || e.Msg != c.want {
				t.Errorf("the flow answers %s %q, want upstream %q", e.Kind, e.Msg, c.want)
			}
		})
	}
}

func TestAnAnswerLargerThanMaxResponseBytesFails(t *testing.T) {
	const limit = 1000
	cases := []struct {
		name    string
		size    int
		chunked bool
		ok      bool
	}{
		{"exactly the limit is read", limit, false, true},
		{"one byte more with a Content-Length fails before reading", limit + 1, false, false},
		{"one byte more without a Content-Length fails as it is read", limit + 1, true, false},
		{"a chunked answer at the limit is read", limit, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, srv := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				text := strings.Repeat("x", c.size)
				if c.chunked {
					io.WriteString(w, text[:10])
					w.(http.Flusher).Flush() // the headers go out without a length
					io.WriteString(w, text[10:])
					return
				}
				io.WriteString(w, text)
			})
			env := map[string]string{"BACKEND": srv.URL}
			r := start(t, flowOf(blockOf("          url: ${BACKEND}/x\n          maxResponseBytes: 1000\n"), env), env)
			m, err := r.run(t, `{}`)
			if c.ok {
				if err != nil {
					t.Fatal(err)
				}
				if b, _ := m.Body(); len(b.(string)) != c.size {
					t.Fatalf("body of %d bytes, want %d", len(b.(string)), c.size)
				}
				return
			}
			var re *RequestError
			if !errors.As(err, &re) || re.Message() != "the backend's answer is larger than maxResponseBytes (1000 bytes)" {
				t.Fatalf("got %v", err)
			}
		})
	}
}

// A header or query parameter whose value renders empty is left out, not sent empty.
func TestAnEmptyHeaderIsLeftOut(t *testing.T) {
	rec, srv := newRecorder(t, answerJSON(200, `{}`))
	env := map[string]string{"BACKEND": srv.URL}
	r := start(t, flowOf(blockOf("          url: ${BACKEND}/x\n          headers: { X-Trace: \"{{ body.trace }}\", X-Fixed: on }\n          query: { q: \"{{ body.q }}\" }\n"), env), env)
	if _, err := r.run(t, `{}`); err != nil {
		t.Fatal(err)
	}
	if _, err := r.run(t, `{"trace":"t1","q":"z"}`); err != nil {
		t.Fatal(err)
	}
	got := rec.requests()
	if _, sent := got[0].header["X-Trace"]; sent || got[0].header.Get("X-Fixed") != "on" || got[0].rawQuery != "" {
		t.Fatalf("without the arguments: headers %v, query %q", got[0].header, got[0].rawQuery)
	}
	if got[1].header.Get("X-Trace") != "t1" || got[1].rawQuery != "q=z" {
		t.Fatalf("with them: headers %v, query %q", got[1].header, got[1].rawQuery)
	}
}

// A query parameter requiredQuery names fails the call when its value is empty, saying which,
// and nothing is sent; requiredQuery must name a parameter of query.
func TestARequiredQueryParameterWithoutAValueFailsTheCall(t *testing.T) {
	rec, srv := newRecorder(t, answerJSON(200, `{}`))
	env := map[string]string{"BACKEND": srv.URL}
	r := start(t, flowOf(blockOf("          url: ${BACKEND}/search\n          query: { q: \"{{ body.q }}\" }\n          requiredQuery: [q]\n"), env), env)
	_, err := r.run(t, `{}`)
	if e := runtime.ErrorOf(err); e.Kind != runtime.KindInvalid || !strings.Contains(e.Msg, "the query parameter q is required (requiredQuery) but its value is empty") {
		t.Fatalf("err = %v (%v)", err, e.Kind)
	}
	if n := len(rec.requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	text := flowOf(blockOf("          url: http://x\n          query: { q: v }\n          requiredQuery: [qq]\n"), nil)
	if _, err := buildIn(t, t.TempDir(), text, nil, runtime.Options{}); err == nil || !strings.Contains(err.Error(), `requiredQuery names unknown query parameter "qq" (did you mean "q"?)`) {
		t.Fatalf("build: %v", err)
	}
}

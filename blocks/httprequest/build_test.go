package httprequest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime"
)

// Every mistake in the settings is found when the config is built, at its line and column.
func TestSettingsMistakesAreBuildErrors(t *testing.T) {
	const at = "flows[0].process[0].settings."
	cases := []struct {
		name, settings string
		want           []string // each "line:col: path (type): message", after the file name
	}{
		{"into that is neither body nor a variable", "url: http://x\n          into: weather",
			[]string{`9:17: ` + at + `into (http-request): into "weather": expected body or vars.NAME (NAME letters, digits and _, not starting with a digit)`}},
		{"into a variable name expressions cannot reach", "url: http://x\n          into: vars.2x",
			[]string{`9:17: ` + at + `into (http-request): into "vars.2x": expected body or vars.NAME (NAME letters, digits and _, not starting with a digit)`}},
		{"body and rawBody together", "url: http://x\n          method: POST\n          body: body\n          rawBody: text",
			[]string{`11:20: ` + at + `rawBody (http-request): set body (sent as JSON) or rawBody (sent as text), not both`}},
		{"a header name with a space", "url: http://x\n          headers: { \"X Bad\": v }",
			[]string{`9:22: ` + at + `headers["X Bad"] (http-request): header name "X Bad": only letters, digits and !#$%&'*+-.^_` + "`" + `|~ are allowed`}},
		{"a header written twice in two cases", "url: http://x\n          headers: { Accept: a, accept: b }",
			[]string{`9:33: ` + at + `headers.accept (http-request): header "accept" is written twice (as "Accept" too); header names are caseless`}},
		{"a fixed header value with a line break", "url: http://x\n          headers: { X-A: \"a\\nInjected: 1\" }",
			[]string{`9:27: ` + at + `headers.X-A (http-request): header X-A: a value must not hold a line break or NUL, which would split the request`}},
		{"a fixed url that is not http", "url: ftp://files.example.com/x",
			[]string{`8:16: ` + at + `url (http-request): the url must start with http:// or https://`}},
		{"a fixed url without a host", "url: 'http:///x'",
			[]string{`8:16: ` + at + `url (http-request): the url names no host`}},
		{"a tag in the url's host", "url: 'https://{{ body.host }}/v1'",
			[]string{`8:16: ` + at + `url (http-request): the url's scheme and host must be written out before its first {{ tag }}`}},
		{"a url that is all one tag", "url: '{{ body.url }}'",
			[]string{`8:16: ` + at + `url (http-request): the url's scheme and host must be written out before its first {{ tag }}`}},
		{"a tag right after the host", "url: 'https://api.example.com{{ body.path }}'",
			[]string{`8:16: ` + at + `url (http-request): the url's scheme and host must be written out before its first {{ tag }}`}},
		{"a misspelt scheme before a tag", "url: 'htp//api.example.com/{{ body.id }}'",
			[]string{`8:16: ` + at + `url (http-request): the url must start with http:// or https://`}},
		{"a written-out scheme that is not http, before a tag", "url: 'ftp://files.example.com/{{ body.f }}'",
			[]string{`8:16: ` + at + `url (http-request): the url must start with http:// or https://`}},
		{"an accepted status that is no status", "url: http://x\n          acceptStatus: [404, 2xy, 700]",
			[]string{`9:31: ` + at + `acceptStatus[1] (http-request): status "2xy": expected a code from 100 to 599 (404) or a class (4xx)`,
				`9:36: ` + at + `acceptStatus[2] (http-request): status "700": expected a code from 100 to 599 (404) or a class (4xx)`}},
		{"retries on a POST", "url: http://x\n          method: POST\n          retries: 2",
			[]string{`10:20: ` + at + `retries (http-request): POST is not idempotent, so it is never retried: a request whose answer was lost may have been done already; set retryNonIdempotent: true if the API ignores repeats`}},
		{"a timeout past its bound", "url: http://x\n          timeout: 1h",
			[]string{`9:20: ` + at + `timeout (http-request): timeout must be more than 0s and at most 10m0s, got 1h0m0s`}},
		{"an unknown method", "url: http://x\n          method: FETCH",
			[]string{`9:19: ` + at + `method (http-request): unknown method "FETCH"`}},
		{"a query parameter without a name", "url: http://x\n          query: { '': v }",
			[]string{`9:20: ` + at + `query[""] (http-request): a query parameter needs a name`}},
		{"every problem is reported at once", "url: ftp://x\n          into: nope\n          method: POST\n          retries: 1",
			[]string{`8:16: ` + at + `url (http-request): the url must start with http:// or https://`,
				`9:17: ` + at + `into (http-request): into "nope": expected body or vars.NAME`,
				`11:20: ` + at + `retries (http-request): POST is not idempotent`}},
		{"no url", "method: GET",
			[]string{`8:11: flows[0].process[0].settings (http-request): missing required key "url"`}},
		{"a CA file that is not there", "url: https://x\n          tls: { caFile: missing.pem }",
			[]string{`9:26: ` + at + `tls.caFile (http-request): open {dir}/missing.pem: no such file or directory`}},
		{"a CA file without a certificate", "url: https://x\n          tls: { caFile: c.yaml }",
			[]string{`9:26: ` + at + `tls.caFile (http-request): caFile c.yaml holds no PEM certificate`}},
		{"a certificate without its key", "url: https://x\n          tls: { certFile: client.pem }",
			[]string{`9:28: ` + at + `tls.certFile (http-request): certFile needs keyFile, its private key`}},
		{"a key that does not match the certificate", "url: https://x\n          tls: { certFile: client.pem, keyFile: other-key.pem }",
			[]string{`9:28: ` + at + `tls.certFile (http-request): certFile and keyFile: tls: private key does not match public key`}},
	}
	pki := newPKI(t)
	other := newPKI(t)
	copyFile(t, filepath.Join(other.dir, "client-key.pem"), filepath.Join(pki.dir, "other-key.pem"))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := flowOf(blockOf("          "+c.settings+"\n"), nil)
			_, err := buildIn(t, pki.dir, text, nil, runtime.Options{})
			if err == nil {
				t.Fatalf("built:\n%s", text)
			}
			got := strings.Split(err.Error(), "\n")
			if len(got) != len(c.want) {
				t.Fatalf("got %d problems, want %d:\n%v", len(got), len(c.want), err)
			}
			for i, w := range c.want {
				w = filepath.Join(pki.dir, "c.yaml") + ":" + strings.ReplaceAll(w, "{dir}", pki.dir)
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("got  %s\nwant %s", got[i], w)
				}
			}
		})
	}
}

// variableHost lets a url take its host from a tag, on purpose.
func TestVariableHostLetsATagChooseTheHost(t *testing.T) {
	pki := newPKI(t)
	text := flowOf(blockOf("          url: 'https://{{ body.target }}/v1'\n          variableHost: true\n"), nil)
	if _, err := buildIn(t, pki.dir, text, nil, runtime.Options{}); err != nil {
		t.Fatalf("with variableHost: %v", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	data, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, data, 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// The var an http-request sets (vars.http, or the one into names) is known to the blocks after
// it, and only that one: reading another is a build error at the name.
func TestLaterBlocksMayReadTheVarItSets(t *testing.T) {
	read := func(into, expr string) string {
		return flowOf(blockOf("          url: http://x\n          into: "+into+"\n")+
			"      - type: set-payload\n        settings: { value: '"+expr+"' }\n", nil)
	}
	dir := t.TempDir()
	for _, ok := range []string{read("body", "vars.http.status"), read("vars.weather", "vars.weather.body")} {
		if _, err := buildIn(t, dir, ok, nil, runtime.Options{}); err != nil {
			t.Errorf("%v\n%s", err, ok)
		}
	}
	cases := []struct{ into, expr, want string }{
		{"vars.weather", "vars.http.status", `11:34: flows[0].process[1].settings.value (set-payload): unknown var "http": no block before this one sets it (http-request would)`},
		{"vars.weather", "vars.wether.body", `11:34: flows[0].process[1].settings.value (set-payload): unknown var "wether" (did you mean "weather"?)`},
	}
	for _, c := range cases {
		_, err := buildIn(t, dir, read(c.into, c.expr), nil, runtime.Options{})
		if want := filepath.Join(dir, "c.yaml") + ":" + c.want; err == nil || err.Error() != want {
			t.Errorf("got  %v\nwant %s", err, want)
		}
	}
}

package httprequest

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// request is the request as compiled from the settings; render fills it in for one message.
type request struct {
	method  string
	url     *runtime.Template
	headers []header // in name order, so every request is written alike
	query   []param  // in key order
	body    *runtime.Expr
	raw     *runtime.Template
	// contentType is sent with a body unless headers set one.
	contentType []string
}

type header struct {
	name  string // canonical
	value *runtime.Template
	// fixed is the value of a template without tags, made once and sent with every request.
	fixed []string
}

type param struct {
	key      string
	value    *runtime.Template
	required bool // an empty value fails the call instead of leaving the parameter out
}

// outgoing is one message's request, rendered once and sent as it is on every attempt. What
// only a failure needs (the redacted URL, the secrets to mask) is worked out from it then.
type outgoing struct {
	method string
	url    *url.URL
	header http.Header
	host   string // a Host header's value; "" for the URL's host
	body   []byte
}

// Values of the headers the block sets itself, shared by every request: a transport never
// changes a request's headers.
var (
	userAgent = []string{"octo"}
	jsonType  = []string{"application/json"}
	textType  = []string{"text/plain; charset=utf-8"}
)

func buildRequest(b *runtime.Build, s *Settings) request {
	r := request{method: strings.ToUpper(s.Method), url: &s.URL, body: s.Body, raw: s.RawBody}
	if text, static := s.URL.Static(); static {
		if _, err := parseURL(text); err != nil {
			b.Errorf(&s.URL, "%v", err)
		}
	} else if !s.VariableHost {
		if err := checkLead(s.URL.Lead()); err != nil {
			b.Errorf(&s.URL, "%v", err)
		}
	}
	var contentType bool
	r.headers, contentType = buildHeaders(b, s)
	pos := b.Positions()
	for _, key := range slices.Sorted(maps.Keys(s.Query)) {
		if key == "" {
			b.Errorf(atKey(pos.Key(s.Query, key)), "a query parameter needs a name")
		}
		t := s.Query[key]
		r.query = append(r.query, param{key: key, value: &t, required: slices.Contains(s.RequiredQuery, key)})
	}
	for i, key := range s.RequiredQuery {
		if _, ok := s.Query[key]; !ok {
			b.Errorf(&s.RequiredQuery[i], "%s", "requiredQuery names "+config.Unknown("query parameter", key, slices.Sorted(maps.Keys(s.Query))))
		}
	}
	switch {
	case s.Body != nil && s.RawBody != nil:
		b.Errorf(&s.RawBody, "set body (sent as JSON) or rawBody (sent as text), not both")
	case contentType:
	case s.Body != nil:
		r.contentType = jsonType
	case s.RawBody != nil:
		r.contentType = textType
	}
	return r
}

// buildHeaders checks the header names and makes the values without tags once; contentType
// reports whether the headers set a Content-Type.
func buildHeaders(b *runtime.Build, s *Settings) (headers []header, contentType bool) {
	pos := b.Positions()
	seen := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(s.Headers)) {
		canonical := http.CanonicalHeaderKey(name)
		switch {
		case !httpmsg.ValidHeaderName(name):
			b.Errorf(atKey(pos.Key(s.Headers, name)), "header name %q: only letters, digits and !#$%%&'*+-.^_`|~ are allowed", name)
		case seen[canonical] != "":
			b.Errorf(atKey(pos.Key(s.Headers, name)), "header %q is written twice (as %q too); header names are caseless", name, seen[canonical])
		}
		seen[canonical] = name
		t := s.Headers[name]
		h := header{name: canonical, value: &t}
		if text, static := t.Static(); static {
			if strings.ContainsAny(text, "\r\n\x00") {
				b.Errorf(pos.Key(s.Headers, name), "header %s: a value must not hold a line break or NUL, which would split the request", name)
			}
			h.fixed = []string{text}
		}
		headers = append(headers, h)
	}
	return headers, seen["Content-Type"] != ""
}

// atKey is p moved to its key: a problem with a name, not with its value.
func atKey(p runtime.Position) runtime.Position {
	if p.KeyLine > 0 {
		p.Line, p.Col = p.KeyLine, p.KeyCol
	}
	return p
}

// render builds the request for message m. Its errors are the flow's own (a tag that fails, a
// URL that renders wrong): they name no value the request would carry.
func (r *request) render(m *runtime.Message) (*outgoing, error) {
	text, err := r.url.Render(m)
	if err != nil {
		return nil, err
	}
	u, err := parseURL(text)
	if err != nil {
		return nil, err
	}
	out := &outgoing{method: r.method, header: make(http.Header, len(r.headers)+2)}
	if err := r.addQuery(m, u, out); err != nil {
		return nil, err
	}
	if err := r.addHeaders(m, out); err != nil {
		return nil, err
	}
	if err := r.addBody(m, out); err != nil {
		return nil, err
	}
	out.url = u
	return out, nil
}

func (r *request) addQuery(m *runtime.Message, u *url.URL, out *outgoing) error {
	if len(r.query) == 0 {
		return nil
	}
	var q strings.Builder
	q.WriteString(u.RawQuery)
	for _, p := range r.query {
		v, err := p.value.Render(m)
		if err != nil {
			return err
		}
		if v == "" { // absent or empty: left out, as strict APIs refuse ?label=
			if p.required {
				return &runtime.Error{Kind: runtime.KindInvalid,
					Msg: fmt.Sprintf("the query parameter %s is required (requiredQuery) but its value is empty: give it a value", p.key)}
			}
			continue
		}
		if q.Len() > 0 {
			q.WriteByte('&')
		}
		q.WriteString(url.QueryEscape(p.key))
		q.WriteByte('=')
		q.WriteString(url.QueryEscape(v))
	}
	u.RawQuery = q.String()
	return nil
}

func (r *request) addHeaders(m *runtime.Message, out *outgoing) error {
	out.header["User-Agent"] = userAgent
	if r.contentType != nil {
		out.header["Content-Type"] = r.contentType
	}
	for _, h := range r.headers {
		if h.fixed != nil && h.name != "Host" {
			out.header[h.name] = h.fixed
			continue
		}
		v, err := h.value.Render(m)
		if err != nil {
			return err
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return fmt.Errorf("header %s renders a value with a line break or NUL, which would split the request", h.name)
		}
		if v == "" { // an optional argument not given: left out, as for query
			continue
		}
		if h.name == "Host" {
			out.host = v
			continue
		}
		out.header[h.name] = []string{v}
	}
	return nil
}

func (r *request) addBody(m *runtime.Message, out *outgoing) error {
	switch {
	case r.body != nil:
		v, err := r.body.Eval(m)
		if err != nil {
			return err
		}
		if out.body, err = json.Marshal(v); err != nil {
			return fmt.Errorf("body: %w", err)
		}
	case r.raw != nil:
		text, err := r.raw.Render(m)
		if err != nil {
			return err
		}
		out.body = []byte(text)
	}
	return nil
}

// checkLead checks what every rendering of a url with tags starts with: the scheme and the
// host, written out before the first tag, so that no caller's value can send the request, and
// the credentials in its headers and query, to a host of its choosing.
func checkLead(lead string) error {
	scheme, rest, found := strings.Cut(lead, "://")
	end := strings.IndexAny(rest, "/?#")
	if !found && strings.TrimSpace(lead) != "" { // a scheme misspelt, or left out: htp//api, api.example.com/
		return errors.New("the url must start with http:// or https://")
	}
	if !found || end < 0 {
		return errors.New("the url's scheme and host must be written out before its first {{ tag }} (https://api.example.com/{{ body.id }}): " +
			"a tag there would let a caller's value send the request, and its credentials, to another host; " +
			"set variableHost: true to take the host from a value on purpose")
	}
	_, err := parseURL(scheme + "://" + rest[:end] + "/")
	return err
}

// parseURL accepts an absolute http or https URL; its error names no part of the URL, which may
// hold a secret.
func parseURL(text string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(text))
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("the url is not a valid URL: %v", err)
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return nil, errors.New("the url must start with http:// or https://")
	}
	if u.Host == "" {
		return nil, errors.New("the url names no host")
	}
	u.Fragment, u.RawFragment = "", "" // never sent
	return u, nil
}

// sensitive reports whether a header or query parameter's name says it carries a credential,
// whose value must never show in an error.
func sensitive(name string) bool {
	n := strings.ToLower(name)
	for _, word := range []string{"auth", "token", "key", "secret", "passw", "cookie", "session", "signature", "credential"} {
		if strings.Contains(n, word) {
			return true
		}
	}
	return false
}

// shown is the request as logs and errors name it: its method and redacted URL.
func (out *outgoing) shown() string { return out.method + " " + redactURL(out.url) }

// secrets are the values the request carried that no error or log may repeat: those of the
// headers and query parameters whose names say they are credentials, and the URL's user and
// password.
func (out *outgoing) secrets() []string {
	var secrets []string
	for name, values := range out.header {
		if !sensitive(name) {
			continue
		}
		for _, v := range values {
			secrets = appendSecret(secrets, v)
			if _, cred, ok := strings.Cut(v, " "); ok { // "Bearer <token>": the token alone too
				secrets = appendSecret(secrets, strings.TrimSpace(cred))
			}
		}
	}
	if u := out.url.User; u != nil {
		pw, _ := u.Password()
		secrets = appendSecret(secrets, u.Username(), pw)
	}
	if out.url.RawQuery != "" {
		for key, values := range out.url.Query() {
			if sensitive(key) {
				secrets = appendSecret(secrets, values...)
			}
		}
	}
	return secrets
}

// minSecret is the shortest value masked: shorter ones ("1", "on") would mask ordinary words.
const minSecret = 4

func appendSecret(secrets []string, values ...string) []string {
	for _, v := range values {
		if len(v) >= minSecret && !slices.Contains(secrets, v) {
			secrets = append(secrets, v)
		}
	}
	return secrets
}

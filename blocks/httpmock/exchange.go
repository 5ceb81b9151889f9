package httpmock

import (
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/octo-run/octo/blocks/mockkit/placeholder"
	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/jsonv"
)

// transport names an HTTP mock's traffic in the log and the app's store.
const transport session.Transport = "http"

// request is what a route reads of an HTTP request.
type request struct {
	method, path string
	raw          []byte // the body as sent
	in           placeholder.Input
}

// readRequest reads the query, the headers (lower-case names, first values) and the body: a
// JSON body as its value, a form body as its fields, any other as its text.
func readRequest(ex *httpmsg.Exchange, m *runtime.Message) *request {
	r := &request{method: ex.Method, path: ex.Path, raw: m.Raw()}
	if q := ex.Query(); len(q) > 0 {
		r.in.Query = make(map[string]string, len(q))
		for k, vs := range q {
			r.in.Query[k] = vs[0]
		}
	}
	if len(ex.Header) > 0 {
		r.in.Headers = make(map[string]string, len(ex.Header))
		for k, vs := range ex.Header {
			if len(vs) > 0 {
				r.in.Headers[strings.ToLower(k)] = vs[0]
			}
		}
	}
	if len(r.raw) > 0 {
		r.in.Body = decodeBody(ex.Header.Get("Content-Type"), r.raw)
	}
	return r
}

func decodeBody(contentType string, raw []byte) any {
	media, _, _ := mime.ParseMediaType(contentType)
	if media == "application/x-www-form-urlencoded" {
		if form, err := url.ParseQuery(string(raw)); err == nil {
			fields := make(map[string]any, len(form))
			for k, vs := range form {
				fields[k] = vs[0]
			}
			return fields
		}
	}
	if v, err := jsonv.Decode(raw); err == nil {
		return v
	}
	return string(raw)
}

// event is the request as the traffic log shows it.
func (r *request) event() session.TrafficEvent {
	shown := map[string]any{"method": r.method, "path": r.path}
	if r.in.Query != nil {
		shown["query"] = r.in.Query
	}
	if r.in.Headers != nil {
		shown["headers"] = r.in.Headers
	}
	if r.in.Body != nil {
		shown["body"] = r.in.Body
	}
	msg, _ := json.Marshal(shown)
	return session.TrafficEvent{Time: time.Now(), Transport: transport, Direction: session.DirIn,
		Kind: session.TrafficRequest, Method: r.method, Summary: r.method + " " + r.path, Message: msg}
}

// answer is a rendered answer.
type answer struct {
	status int
	header http.Header
	body   []byte // nil: none
	label  string // which answer it is, for the traffic log
}

// render renders an outcome for the request's values.
func (o *outcome) render(in placeholder.Input, r *placeholder.Rand, label string) answer {
	a := answer{status: o.status, header: http.Header{}, label: label}
	for _, h := range o.headers {
		a.header.Set(h.name, o.clean(h.value.Render(in, r)))
	}
	if o.body != nil {
		a.body = []byte(o.body.Render(in, r))
	}
	return a
}

// clean keeps a rendered header value on one line: a value from the request may hold a break.
func (o *outcome) clean(v string) string {
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' || r == 0 {
			return ' '
		}
		return r
	}, v)
}

// refusal is the mock's own answer to a request no route takes.
func refusal(status int, msg string) answer {
	body, _ := json.Marshal(map[string]string{"error": msg})
	return answer{status: status, header: http.Header{"Content-Type": {"application/json"}}, body: body}
}

// write puts the answer on the exchange: status, headers, body and its media type (JSON when
// the body is JSON, else text, unless a Content-Type header says).
func (a answer) write(ex *httpmsg.Exchange, m *runtime.Message) {
	ex.Status = a.status
	if ex.ReplyHeader == nil {
		ex.ReplyHeader = http.Header{}
	}
	for k, v := range a.header {
		ex.ReplyHeader[k] = v
	}
	if a.body == nil {
		m.ClearBody()
		return
	}
	if a.header.Get("Content-Type") == "" {
		ex.ContentType = "text/plain; charset=utf-8"
		if jsonv.Valid(a.body) {
			ex.ContentType = "application/json"
		}
	}
	m.SetRaw(a.body)
}

// event is the answer as the traffic log shows it.
func (a answer) event(req *request) session.TrafficEvent {
	shown := map[string]any{"status": a.status}
	if len(a.header) > 0 {
		h := make(map[string]string, len(a.header))
		for k := range a.header {
			h[k] = a.header.Get(k)
		}
		shown["headers"] = h
	}
	if a.body != nil {
		if jsonv.Valid(a.body) {
			shown["body"] = json.RawMessage(a.body)
		} else {
			shown["body"] = string(a.body)
		}
	}
	msg, _ := json.Marshal(shown)
	kind := session.TrafficResult
	if a.status >= 400 {
		kind = session.TrafficError
	}
	summary := strconv.Itoa(a.status) + " for " + req.method + " " + req.path
	if a.label != "" {
		summary += ": " + a.label
	}
	return session.TrafficEvent{Time: time.Now(), Transport: transport, Direction: session.DirOut,
		Kind: kind, Method: req.method, Summary: summary, Message: msg, Status: a.status}
}

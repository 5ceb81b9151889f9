package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/runtime/jsonv"
	"github.com/octo-run/octo/runtime/reference"
)

// This file records an HTTP API (--http): every request is passed to the upstream base URL
// with its path and query, and each answer is kept by its method and path, and by the query
// and body that got it, as an HTTP mock's routes and answers.

// apiRecording is what an HTTP API was seen to answer.
type apiRecording struct {
	mu      sync.Mutex
	changed chan struct{}
	routes  []*routeSeen // in the order first seen
}

// routeSeen is one method and path, and each distinct request of it answered.
type routeSeen struct {
	method, path string
	answers      []apiAnswer
}

// apiAnswer is one answered request: what told it apart, and what it got.
type apiAnswer struct {
	query       url.Values
	body        []byte
	contentType string // of the request
	status      int
	replyType   string // the answer's Content-Type
	reply       []byte
}

func newAPIRecording() *apiRecording { return &apiRecording{changed: make(chan struct{}, 1)} }

// apiProxy passes every request to the upstream base URL and records its answer.
type apiProxy struct {
	base   *url.URL
	client *http.Client
	rec    *apiRecording
}

func (p *apiProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	target := *p.base
	target.Path = strings.TrimSuffix(p.base.Path, "/") + r.URL.Path
	target.RawQuery = r.URL.RawQuery
	body, resp, ok := forward(w, r, p.client, target.String(), func([]byte) {})
	if !ok {
		return
	}
	defer resp.Body.Close()
	reply, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	_, _ = w.Write(reply)
	p.rec.record(r.Method, r.URL.Path, apiAnswer{query: r.URL.Query(), body: body, contentType: r.Header.Get("Content-Type"),
		status: resp.StatusCode, replyType: resp.Header.Get("Content-Type"), reply: reply})
}

// record keeps an answer under its method and path, in place of an earlier one to the same query
// and body.
func (a *apiRecording) record(method, path string, ans apiAnswer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := slices.IndexFunc(a.routes, func(r *routeSeen) bool { return r.method == method && r.path == path })
	if i < 0 {
		a.routes = append(a.routes, &routeSeen{method: method, path: path})
		i = len(a.routes) - 1
	}
	r := a.routes[i]
	same := func(b apiAnswer) bool {
		return b.query.Encode() == ans.query.Encode() && bytes.Equal(b.body, ans.body)
	}
	if j := slices.IndexFunc(r.answers, same); j >= 0 {
		r.answers[j] = ans
	} else {
		r.answers = append(r.answers, ans)
	}
	select {
	case a.changed <- struct{}{}:
	default:
	}
}

// The saved file of an HTTP API, as the http-mock block reads it.
type (
	savedAPI struct {
		Name string `yaml:"name"`
		Kind string `yaml:"kind"`
		Port int    `yaml:"port"`
		HTTP struct {
			Routes []savedRoute `yaml:"routes"`
		} `yaml:"http"`
	}
	savedRoute struct {
		Method     string `yaml:"method"`
		Path       string `yaml:"path"`
		savedReply `yaml:",inline"`
		Answers    []savedReply `yaml:"answers,omitempty"`
	}
	savedReply struct {
		When    string            `yaml:"when,omitempty"`
		Status  int               `yaml:"status,omitempty"`
		Headers map[string]string `yaml:"headers,omitempty"`
		Body    *string           `yaml:"body,omitempty"`
	}
)

// apiFile renders the recording as the saved HTTP mock name on port.
func (w *writer) apiFile(a *apiRecording, name string, port int) ([]byte, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := savedAPI{Name: name, Kind: workspace.KindHTTP, Port: port}
	for _, r := range a.routes {
		if strings.ContainsAny(r.path, "{}") { // a route's path would read it as a parameter
			continue
		}
		sr := savedRoute{Method: r.method, Path: r.path, savedReply: w.reply(r.answers[len(r.answers)-1])}
		if len(r.answers) > 1 {
			for _, ans := range r.answers {
				rep := w.reply(ans)
				rep.When = requestWhen(ans)
				sr.Answers = append(sr.Answers, rep)
			}
		}
		f.HTTP.Routes = append(f.HTTP.Routes, sr)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# yaml-language-server: $schema=../%s\n", reference.SchemaFile(workspace.ServerSchema))
	b.WriteString("# Recorded by `octo record --http`: each route's answers by the query and body that got them.\n" +
		"# `octo serve` replays it; edit it as you like.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// reply is how the mock answers as the API did: its status, its media type, its body.
func (w *writer) reply(ans apiAnswer) savedReply {
	rep := savedReply{Status: ans.status}
	if ans.replyType != "" {
		rep.Headers = map[string]string{"Content-Type": ans.replyType}
	}
	if len(ans.reply) > 0 {
		rep.Body = w.text(string(ans.reply))
	}
	return rep
}

// requestWhen is the expression that holds for a request with exactly this query and body.
func requestWhen(ans apiAnswer) string {
	keys := make([]string, 0, len(ans.query))
	for k := range ans.query {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := []string{"len(query) == " + strconv.Itoa(len(keys))}
	for _, k := range keys {
		parts = append(parts, "query["+strconv.Quote(k)+"] == "+strconv.Quote(ans.query.Get(k)))
	}
	if len(ans.body) > 0 {
		parts = append(parts, bodyWhen(ans))
	}
	return strings.Join(parts, " && ")
}

// bodyWhen compares the body as the mock reads it: a JSON body as the JSON toJSON writes, a form
// body by its fields, any other as its text.
func bodyWhen(ans apiAnswer) string {
	media, _, _ := mime.ParseMediaType(ans.contentType)
	if media == "application/x-www-form-urlencoded" {
		if form, err := url.ParseQuery(string(ans.body)); err == nil {
			fields := map[string]any{}
			for k, vs := range form {
				fields[k] = vs[0]
			}
			b, _ := json.MarshalIndent(fields, "", "  ")
			return "toJSON(body) == " + strconv.Quote(string(b))
		}
	}
	if v, err := jsonv.Decode(ans.body); err == nil {
		b, _ := json.MarshalIndent(v, "", "  ")
		return "toJSON(body) == " + strconv.Quote(string(b))
	}
	return "body == " + strconv.Quote(string(ans.body))
}

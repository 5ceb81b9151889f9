package httpmock

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/octo-run/octo/blocks/mockkit/placeholder"
	"github.com/octo-run/octo/blocks/mockkit/vary"
	"github.com/octo-run/octo/connectors/http/httpmsg"
)

// route is one compiled route.
type route struct {
	method  string
	path    pattern
	own     outcome
	picker  *vary.Picker // nil: always own
	answers []*outcome
	failure *outcome
}

// outcome is one way a route answers: its own settings, one of its answers, or its failure.
type outcome struct {
	label   string // what the traffic log calls it; "" for the route's own when nothing varies
	status  int
	headers []header
	body    *placeholder.Template // nil: no body
	delay   time.Duration
}

// header is one header to answer with: its canonical name and its value's template.
type header struct {
	name  string
	value *placeholder.Template
}

// whenEnv is what a route answer's when reads.
type whenEnv struct {
	Method  string            `expr:"method"`
	Path    string            `expr:"path"`
	Params  map[string]string `expr:"params"`
	Query   map[string]string `expr:"query"`
	Headers map[string]string `expr:"headers"`
	Body    any               `expr:"body"`
	Call    int               `expr:"call"`
}

// simulatedFailure is the body a request picked by failureRate gets when the route names no failure.
const simulatedFailure = `{"error": "Simulated failure of %s %s (failureRate %s)"}`

// route compiles a route's settings; nil (with problems) when it cannot serve, or when it is
// switched off.
func (c *compiler) route(rc *routeConfig) *route {
	if !rc.Enabled {
		return nil
	}
	n := len(c.problems)
	r := &route{method: strings.ToUpper(rc.Method)}
	if r.method == "" {
		r.method = http.MethodGet
	}
	var problem string
	if r.path, problem = compilePattern(rc.Path); problem != "" {
		c.problem(&rc.Path, "%s", problem)
	}
	r.own = outcome{status: rc.Status, delay: time.Duration(rc.DelayMs) * time.Millisecond}
	if r.own.status == 0 {
		r.own.status = http.StatusOK
	}
	r.own.headers = c.headers(rc.Headers, nil)
	if rc.Body != nil {
		r.own.body = c.template(*rc.Body, rc.Body, r.path)
	}
	c.answers(r, rc)
	if len(c.problems) > n {
		return nil
	}
	return r
}

// answers compiles a route's answers, order and failure rate.
func (c *compiler) answers(r *route, rc *routeConfig) {
	c.checkOrder(rc)
	if rc.Failure != nil && rc.FailureRate == 0 {
		c.problem(rc.Failure, "failure answers a share of the requests: set failureRate (0 to 1)")
	}
	if len(rc.Answers) == 0 && rc.FailureRate == 0 {
		return
	}
	whens := make([]string, len(rc.Answers))
	for i := range rc.Answers {
		ac := &rc.Answers[i]
		if ac.When != "" && rc.AnswerOrder != "" && rc.AnswerOrder != vary.Match {
			c.problem(&ac.When, "when picks an answer in answerOrder match; %s takes the answers in turn, whatever the request", rc.AnswerOrder)
		}
		whens[i] = ac.When
		out := c.outcome(ac, &r.own, r.path)
		out.label = "answer " + strconv.Itoa(i+1)
		if ac.When != "" {
			out.label += " (when " + ac.When + ")"
		}
		r.answers = append(r.answers, out)
	}
	picker, errs := vary.New(vary.Settings{Order: rc.AnswerOrder, FailureRate: rc.FailureRate, Seed: c.seed,
		Stream: r.method + " " + rc.Path, Env: whenEnv{}}, whens)
	for i, err := range errs {
		if err != nil {
			c.problem(&rc.Answers[i].When, "when: %v", err)
		}
	}
	r.picker = picker
	if rc.FailureRate > 0 {
		rate := strconv.FormatFloat(rc.FailureRate, 'f', -1, 64)
		if rc.Failure != nil {
			if rc.Failure.When != "" {
				c.problem(&rc.Failure.When, "the failure answers the requests failureRate picks; it has no when")
			}
			r.failure = c.outcome(rc.Failure, &outcome{status: http.StatusInternalServerError, delay: r.own.delay}, r.path)
		} else {
			body, _ := placeholder.Compile(fmt.Sprintf(simulatedFailure, r.method, rc.Path, rate), nil)
			r.failure = &outcome{status: http.StatusInternalServerError, body: body, delay: r.own.delay}
		}
		r.failure.label = "failure (failureRate " + rate + ")"
	}
}

// checkOrder: a sequence takes answers in turn, so it needs some.
func (c *compiler) checkOrder(rc *routeConfig) {
	if o := rc.AnswerOrder; o != "" && o != vary.Match && len(rc.Answers) == 0 {
		c.problem(&rc.AnswerOrder, "answerOrder %s takes the route's answers in turn, and it has none", o)
	}
}

// outcome compiles an answer; what it does not say is base's.
func (c *compiler) outcome(ac *answerConfig, base *outcome, p pattern) *outcome {
	out := &outcome{status: base.status, body: base.body, delay: base.delay, headers: base.headers}
	if ac.Status != 0 {
		out.status = ac.Status
	}
	if ac.DelayMs != nil {
		out.delay = time.Duration(*ac.DelayMs) * time.Millisecond
	}
	if ac.Headers != nil {
		out.headers = c.headers(ac.Headers, p.params)
	}
	if ac.Body != nil {
		out.body = c.template(*ac.Body, ac.Body, p)
	}
	return out
}

// headers compiles headers in a fixed order: each name a token the connector does not own,
// each value a template without a line break.
func (c *compiler) headers(written map[string]string, params []string) []header {
	var out []header
	for _, name := range slices.Sorted(maps.Keys(written)) {
		at := c.pos.Key(written, name)
		canonical := http.CanonicalHeaderKey(name)
		switch {
		case !httpmsg.ValidHeaderName(name):
			c.problems = append(c.problems, at.Diag(fmt.Sprintf("header name %q: only letters, digits and !#$%%&'*+-.^_`|~ are allowed", name)))
			continue
		case canonical == "Content-Length" || canonical == "Transfer-Encoding" || canonical == "Connection":
			c.problems = append(c.problems, at.Diag("header "+canonical+" is the http connector's own"))
			continue
		}
		v := written[name]
		t, ds := placeholder.CompileAt(v, c.vars, at)
		c.problems = append(c.problems, ds...)
		if t != nil {
			out = append(out, header{name: canonical, value: t})
		}
	}
	return out
}

// template compiles a body, checking its {{params.x}} against the path's parameters and
// refusing {{args…}}, which an HTTP request has not.
func (c *compiler) template(text string, field *string, p pattern) *placeholder.Template {
	at := c.pos.Of(field)
	t, ds := placeholder.CompileAt(text, c.vars, at)
	c.problems = append(c.problems, ds...)
	if t == nil {
		return nil
	}
	for _, ref := range t.Refs() {
		switch {
		case ref.Source == "args":
			c.problems = append(c.problems, at.DiagInside(ref.Pos.Line, ref.Pos.Column,
				"{{args…}} are an MCP tool's arguments; an HTTP request's JSON or form body is {{body…}}"))
		case ref.Source == "params" && ref.Name != "" && !slices.Contains(p.params, ref.Name):
			c.problems = append(c.problems, at.DiagInside(ref.Pos.Line, ref.Pos.Column,
				fmt.Sprintf("{{params.%s}}: the path %s has no {%s}%s", ref.Name, p.text, ref.Name, paramsHint(p.params))))
		}
	}
	return t
}

func paramsHint(params []string) string {
	if len(params) == 0 {
		return ""
	}
	return " (it has {" + strings.Join(params, "}, {") + "})"
}

// pick returns the outcome of a request.
func (r *route) pick(req *request) *outcome {
	if r.picker == nil {
		return &r.own
	}
	switch i := r.picker.Pick("", nil, func(call int) any {
		return whenEnv{Method: req.method, Path: req.path, Params: req.in.Params, Query: req.in.Query,
			Headers: req.in.Headers, Body: req.in.Body, Call: call}
	}); i {
	case vary.Own:
		return &r.own
	case vary.Failure:
		return r.failure
	default:
		return r.answers[i]
	}
}

// label is what the traffic log says answered: an answer or the failure, or, when the route's
// answers vary, its own.
func (r *route) label(out *outcome) string {
	if out == &r.own && r.picker != nil {
		return "the route's own answer"
	}
	return out.label
}

// pattern is a route's path: literal segments and {name} parameters.
type pattern struct {
	text     string
	segments []string // a parameter is "" here, its name in names
	names    []string // per segment: the parameter's name, "" for a literal
	params   []string // the parameters' names in order
}

// compilePattern reads a path; the problem says what is wrong with it.
func compilePattern(text string) (pattern, string) {
	p := pattern{text: text}
	if !strings.HasPrefix(text, "/") {
		return p, fmt.Sprintf("path %q must start with /", text)
	}
	for _, seg := range strings.Split(text[1:], "/") {
		name, isParam := strings.CutPrefix(seg, "{")
		if isParam {
			var closed bool
			name, closed = strings.CutSuffix(name, "}")
			if !closed || name == "" || strings.ContainsAny(name, "{}") {
				return p, fmt.Sprintf("path segment %q: a parameter is a whole segment, {name}", seg)
			}
			if slices.Contains(p.params, name) {
				return p, fmt.Sprintf("path parameter {%s} is written twice", name)
			}
			p.params = append(p.params, name)
			p.segments, p.names = append(p.segments, ""), append(p.names, name)
			continue
		}
		if strings.ContainsAny(seg, "{}") {
			return p, fmt.Sprintf("path segment %q: a parameter is a whole segment, {name}", seg)
		}
		p.segments, p.names = append(p.segments, seg), append(p.names, "")
	}
	return p, ""
}

// match reports whether path fits, with the parameters' values (unescaped as the request's
// path already is).
func (p pattern) match(path string) (map[string]string, bool) {
	if !strings.HasPrefix(path, "/") {
		return nil, false
	}
	segs := strings.Split(path[1:], "/")
	if len(segs) != len(p.segments) {
		return nil, false
	}
	var params map[string]string
	for i, seg := range segs {
		if name := p.names[i]; name != "" {
			if seg == "" {
				return nil, false
			}
			if params == nil {
				params = make(map[string]string, len(p.params))
			}
			params[name] = seg
			continue
		}
		if seg != p.segments[i] {
			return nil, false
		}
	}
	return params, true
}

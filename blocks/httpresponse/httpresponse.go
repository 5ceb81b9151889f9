// Package httpresponse is the http-response block: it sets the status and headers a plain HTTP
// flow answers with, on the http connector's typed view of the message. The body is the
// message's, as the flow leaves it.
package httpresponse

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/octo-run/octo/connectors/http/httpmsg"
	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "http-response",
		Summary: "sets the HTTP status and headers of a plain HTTP flow's answer",
		Doc: "Sets the status (a number, or an expression giving one) and headers (each value a " +
			"template) that the http connector answers with once the flow has run; the body stays " +
			"the message's. Later blocks may set them again: the last one wins. Headers the " +
			"connector owns (Content-Length, Transfer-Encoding, Connection and the other hop-by-hop " +
			"headers) are refused, as is a value holding a line break: when written, at build; when " +
			"rendered, the flow fails as internal and the log says which header. An error that " +
			"ends the flow is answered with its kind's status instead. A tool's process (mcp-router, " +
			"ai-agent) answers with the tool's result, not an HTTP reply, so it refuses the block at build.",
		Example: "type: http-response\nsettings:\n  status: 201\n  headers:\n    Location: '/orders/{{ body.id }}'\n" +
			"    Cache-Control: no-store\n",
		Transports:      []string{httpmsg.Transport},
		AnswersExchange: true,
		KeepsBody:       true,
		Build:           runtime.BlockFunc(build),
	})
}

// Settings are the http-response block's settings.
type Settings struct {
	Status  *runtime.Expr               `yaml:"status" doc:"The status to answer with, 100 to 599: a number, or an expression over body, vars, headers and env that gives one (vars.http.status). Unset, the status stays what it was (200 by default)." example:"201"`
	Headers map[string]runtime.Template `yaml:"headers" doc:"Headers to answer with, each value a template; a header set earlier in the flow is replaced. Content-Type sets the media type of the body (JSON by default)." example:"{ Location: \"/orders/{{ body.id }}\", Cache-Control: no-store }"`
}

// owned are the headers the connector writes itself, from the body and the connection: a
// flow that set them would break the framing of the answer.
var owned = []string{"Connection", "Content-Length", "Keep-Alive", "Proxy-Connection", "Te",
	"Trailer", "Transfer-Encoding", "Upgrade"}

// header is one header to set: its canonical name and its value's template.
type header struct {
	name  string
	value *runtime.Template
}

// Block sets the reply's status and headers.
type Block struct {
	status  *runtime.Expr
	fixed   int // the status when it is a number, else 0
	headers []header
}

func build(b *runtime.Build, s *Settings) (runtime.Block, error) {
	blk := &Block{status: s.Status}
	if s.Status != nil {
		if n, err := strconv.Atoi(strings.TrimSpace(s.Status.Source())); err == nil {
			if checkStatus(n) != nil {
				b.Errorf(s.Status, "status %d: expected 100 to 599", n)
			}
			blk.fixed = n
		}
	}
	if s.Status == nil && len(s.Headers) == 0 {
		b.Errorf(nil, "an http-response needs a status or headers")
	}
	blk.headers = buildHeaders(b, s.Headers)
	if err := b.Err(); err != nil {
		return nil, err
	}
	return blk, nil
}

// buildHeaders checks each header's name (a token, not one the connector owns, written once)
// and a value without tags (no line break), reporting at the name or the value.
func buildHeaders(b *runtime.Build, written map[string]runtime.Template) []header {
	pos := b.Positions()
	var out []header
	seen := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(written)) {
		canonical := http.CanonicalHeaderKey(name)
		at := pos.Key(written, name)
		nameAt := at
		if at.KeyLine > 0 {
			nameAt.Line, nameAt.Col = at.KeyLine, at.KeyCol
		}
		switch {
		case !httpmsg.ValidHeaderName(name):
			b.Errorf(nameAt, "header name %q: only letters, digits and !#$%%&'*+-.^_`|~ are allowed", name)
			continue
		case slices.Contains(owned, canonical):
			b.Errorf(nameAt, "header %s is the http connector's own (it writes %s itself)", canonical, strings.Join(owned, ", "))
			continue
		case seen[canonical] != "":
			b.Errorf(nameAt, "header %q is written twice (as %q too); header names are caseless", name, seen[canonical])
			continue
		}
		seen[canonical] = name
		t := written[name]
		if text, static := t.Static(); static && hasBreak(text) {
			b.Errorf(at, "header %s: a value must not hold a line break or NUL, which would split the answer", canonical)
			continue
		}
		out = append(out, header{name: canonical, value: &t})
	}
	return out
}

// hasBreak reports whether v holds what would end a header line.
func hasBreak(v string) bool { return strings.ContainsAny(v, "\r\n\x00") }

func checkStatus(n int) error {
	if n < 100 || n > 599 {
		return fmt.Errorf("status %d is not 100 to 599", n)
	}
	return nil
}

// Process sets the status and headers on the reply. A status or header value that cannot be
// used fails the flow as internal (the answer would be broken); the log names it.
func (r *Block) Process(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
	ex, err := httpmsg.Need(m)
	if err != nil {
		return nil, err
	}
	status := r.fixed
	if status == 0 && r.status != nil {
		if status, err = r.evalStatus(m); err != nil {
			return nil, err
		}
	}
	for _, h := range r.headers {
		v, err := h.value.Render(m)
		if err != nil {
			return nil, fmt.Errorf("header %s: %w", h.name, err)
		}
		if hasBreak(v) { // the value is not logged: it may hold what the caller sent
			return nil, fmt.Errorf("header %s: the rendered value holds a line break or a NUL", h.name)
		}
		ex.SetReplyHeader(h.name, v)
	}
	if status != 0 {
		ex.Status = status
	}
	return m, nil
}

// evalStatus runs the status expression: a whole number from 100 to 599.
func (r *Block) evalStatus(m *runtime.Message) (int, error) {
	v, err := r.status.Eval(m)
	if err != nil {
		return 0, err
	}
	var n int
	switch v := v.(type) {
	case int:
		n = v
	case int64:
		n = int(v)
	case float64:
		if v != float64(int(v)) {
			return 0, fmt.Errorf("status %v is not a whole number", v)
		}
		n = int(v)
	default:
		return 0, fmt.Errorf("status: the expression gave %T, not a number", v)
	}
	return n, checkStatus(n)
}

var _ runtime.Block = (*Block)(nil)

// Package access says who may see and call an MCP tool, and how often: scopes the caller's
// token must grant or an expression over the request, and a rate limit per caller. A block
// that serves tools (mcp-router) compiles the settings once at build, hides a tool from the
// callers its rule refuses, and asks Check before each call. The limiter's counts live in
// memory, bounded, behind a small interface.
package access

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/octo-run/octo/blocks/jwtvalidate"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/runtime"
)

// Settings say who may see and call a tool.
type Settings struct {
	Scopes []string      `yaml:"scopes" doc:"OAuth scopes the caller's access token must each grant (in its scope or scp claim, as jwt-validate left them in vars.jwt): a caller without them does not see the tool, and a call is refused with HTTP 403 and WWW-Authenticate: Bearer error=\"insufficient_scope\", so a client can ask for them (step-up authorization)." example:"[weather.admin]"`
	When   *runtime.Expr `yaml:"when" doc:"An expression over vars, headers and env (not body: a call's arguments are checked in its branch): true lets the caller see and call the tool; false or null hides and refuses it." example:"vars.jwt.sub in [\"alice\", \"bob\"]"`
}

// RateSettings limit how often each caller may call a tool.
type RateSettings struct {
	Calls int           `yaml:"calls" octo:"required" min:"1" max:"1000000" doc:"How many calls a caller may make per interval; they may come at once, and come back one at a time as the interval passes (a token bucket)." example:"10"`
	Per   time.Duration `yaml:"per" octo:"required" min:">0" max:"24h" doc:"The interval calls is counted over." example:"1m"`
	By    *runtime.Expr `yaml:"by" doc:"Who a call counts against: an expression over vars, headers and env. Default: the token's subject (vars.jwt.sub); callers without a token share one count." example:"headers[\"X-Api-Key\"]"`
}

// Codes of the JSON-RPC errors a refused call gets: implementation-defined, in the range the
// spec leaves to servers.
const (
	CodeForbidden   = -32003
	CodeRateLimited = -32029
)

// Rule is compiled access settings, of a tool or of every tool of an upstream.
type Rule struct {
	scopes []string
	when   *runtime.Expr
}

// Compile checks s and compiles it; problems are reported at their setting by b.
func Compile(b *runtime.Build, s *Settings) *Rule {
	if s == nil {
		return nil
	}
	if len(s.Scopes) == 0 && s.When == nil {
		b.Errorf(s, "access needs scopes, when, or both")
		return nil
	}
	for i, sc := range s.Scopes {
		if sc == "" || strings.ContainsAny(sc, " \"\\") || !printable(sc) {
			b.Errorf(&s.Scopes[i], "scope %q: a scope is one word of printable characters, without quotes or backslashes", sc)
		}
	}
	if s.When != nil && s.When.UsesBody() {
		b.Errorf(s.When, "access.when sees vars, headers and env, not body: it decides before a call's arguments are read; check them in the tool's branch")
	}
	return &Rule{scopes: s.Scopes, when: s.When}
}

func printable(s string) bool {
	for _, r := range s {
		if r < 0x21 || r == 0x7f {
			return false
		}
	}
	return true
}

// Allows reports whether the caller of request m may see and call the tool.
func (r *Rule) Allows(m *runtime.Message) bool {
	return r == nil || r.refusal(m, "") == nil
}

// Check is nil when the caller of request m may call tool, else the refusal to answer.
func (r *Rule) Check(m *runtime.Message, tool string) *Refusal {
	if r == nil {
		return nil
	}
	return r.refusal(m, tool)
}

func (r *Rule) refusal(m *runtime.Message, tool string) *Refusal {
	claims, _ := m.Vars[jwtvalidate.ClaimsVar].(map[string]any)
	var missing []string
	for _, sc := range r.scopes {
		if claims == nil || !jwtvalidate.Granted(claims, sc) {
			missing = append(missing, sc)
		}
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("Forbidden: tool %q needs scope %s, which the caller's token does not grant", tool, strings.Join(missing, " "))
		if claims == nil {
			msg = fmt.Sprintf("Forbidden: tool %q needs scope %s, and the request carries no validated token (put jwt-validate before the router)", tool, strings.Join(missing, " "))
		}
		h := http.Header{}
		h.Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+strings.Join(r.wanted(claims), " ")+`", error_description="`+strings.ReplaceAll(msg, `"`, `'`)+`"`)
		return &Refusal{RPC: jsonrpc.NewError(CodeForbidden, "%s", msg), Status: http.StatusForbidden, Header: h}
	}
	if r.when != nil {
		v, err := r.when.Eval(m)
		if ok, _ := v.(bool); err != nil || !ok {
			return &Refusal{RPC: jsonrpc.NewError(CodeForbidden, "Forbidden: tool %q is not for this caller (its access.when)", tool), Status: http.StatusForbidden}
		}
	}
	return nil
}

// wanted is every scope the caller needs for the tool, those its token grants already
// included, as a scope challenge names them (RFC 6750 §3: the scopes the resource needs).
func (r *Rule) wanted(claims map[string]any) []string {
	out := append([]string(nil), r.scopes...)
	if claims == nil {
		return out
	}
	var granted []string
	if s, ok := claims["scope"].(string); ok {
		granted = strings.Fields(s)
	}
	for _, g := range granted {
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// Refusal is a call refused before it ran: the JSON-RPC error the client gets, and over HTTP,
// when the request was one call answered as one JSON body, the status and headers to answer
// with.
type Refusal struct {
	RPC    *jsonrpc.Error
	Status int
	Header http.Header
}

func (r *Refusal) Error() string { return r.RPC.Message }

// Unwrap lets the MCP server answer it as its JSON-RPC error.
func (r *Refusal) Unwrap() error { return r.RPC }

// retryAfter is the Retry-After header value for d: whole seconds, at least 1.
func retryAfter(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return strconv.FormatInt(s, 10)
}

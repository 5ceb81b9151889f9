package mock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/url"
	"strings"
	"time"

	"github.com/octo-run/octo/blocks/mockkit/placeholder"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime/config"
)

// urlElicit is a compiled elicit step in URL mode. The page the user is sent to is outside the
// protocol; the mock stands in for it: the interaction counts as done `after` the user accepts
// (or after -32042 was answered), and then, on 2025-11-25, the client is told so.
type urlElicit struct {
	link      *placeholder.Template
	after     time.Duration
	notify    bool
	required  bool
	onDecline *placeholder.Template // nil: a default sentence
	onCancel  *placeholder.Template
	visits    *visits // required: which sessions have completed the elicitation
}

// urlOnlyKeys are the keys only a url elicit step may have.
var urlOnlyKeys = []string{"url", "completeAfterMs", "notifyComplete", "required", "onDecline", "onCancel"}

// checkElicitMode reports keys of the other mode, and a url step without its url.
func checkElicitMode(sc *stepConfig, pos *config.Positions, ds *config.Diags) {
	if sc.Mode != mcp.ElicitURL {
		for _, k := range urlOnlyKeys {
			if p := pos.Key(sc, k); p.Written {
				*ds = append(*ds, p.KeyDiag(k+" belongs to an elicit step in mode url"))
			}
		}
		return
	}
	if p := pos.Key(sc, "schema"); p.Written {
		*ds = append(*ds, p.KeyDiag("schema belongs to an elicit step in mode form: a url step asks the user to open a link, not for values"))
	}
	if strings.TrimSpace(sc.URL) == "" {
		*ds = append(*ds, pos.Diag(sc, "an elicit step in mode url needs url: the link the user is asked to open"))
	}
}

// urlElicit compiles a url elicit step's own keys. The link must start with http:// or
// https:// as written, so that whatever the arguments fill in, clients can open it.
func (c *compiler) urlElicit(sc *stepConfig, r refs) (*urlElicit, bool) {
	u := &urlElicit{after: time.Duration(sc.CompleteAfterMs) * time.Millisecond, notify: sc.NotifyComplete, required: sc.Required}
	ok := true
	if lower := strings.ToLower(sc.URL); !strings.HasPrefix(lower, "https://") && !strings.HasPrefix(lower, "http://") {
		c.problem(&sc.URL, "url %q: write an absolute http:// or https:// URL (clients open it in a browser)", sc.URL)
		ok = false
	}
	// The link may carry the elicitationId, which is known only when the step runs: it
	// compiles as a variable whose value is a slot filled in then.
	vars := c.vars
	c.vars = maps.Clone(vars)
	if c.vars == nil {
		c.vars = map[string]string{}
	}
	c.vars["elicitationId"] = idSlot
	var lok bool
	u.link, lok = c.text(sc.URL, &sc.URL, r)
	c.vars = vars
	ok = ok && lok
	for _, t := range []struct {
		text *string
		dst  **placeholder.Template
	}{{&sc.OnDecline, &u.onDecline}, {&sc.OnCancel, &u.onCancel}} {
		if *t.text == "" {
			continue
		}
		tmpl, tok := c.text(*t.text, t.text, r)
		*t.dst, ok = tmpl, ok && tok
	}
	if u.required {
		u.visits = newVisits()
	}
	return u, ok
}

// idSlot stands for the elicitationId in a rendered link until the id is known.
const idSlot = "\x00elicitationId\x00"

// withID fills a rendered link's elicitationId slots.
func withID(link, id string) string { return strings.ReplaceAll(link, idSlot, id) }

// urlParams is the body of elicitation/create in URL mode; 2026-07-28 has no elicitationId.
type urlParams struct {
	Mode          string `json:"mode"`
	Message       string `json:"message"`
	URL           string `json:"url"`
	ElicitationID string `json:"elicitationId,omitempty"`
}

// openLink runs a url elicit step: per revision, an input request (2026-07-28), error -32042
// (required, 2025-11-25) or a request to the client during the call (2025-11-25). Revisions
// before 2025-11-25 have no URL mode: the call fails saying so.
func (s *step) openLink(ctx context.Context, rc *mcp.RequestContext, in *placeholder.Input, r *placeholder.Rand) (*mcp.CallToolResult, error) {
	u := s.url
	p := urlParams{Mode: mcp.ElicitURL, Message: s.text.Render(*in, r), URL: u.link.Render(*in, r)}
	if link := withID(p.URL, ""); !absoluteLink(link) {
		return errf("This tool's link rendered to %q, which is not an absolute http or https URL", link), nil
	}
	switch {
	case rc.Version != "" && rc.Version < mcp.Version20251125:
		return errf("This tool asks the user to open a link (elicitation in mode url), which protocol version %s does not have: it needs %s or later", rc.Version, mcp.Version20251125), nil
	case rc.Version == mcp.Version20260728: // no elicitationId: a fresh one goes in the link only
		p.URL = withID(p.URL, newElicitationID())
	case u.required:
		return u.visits.require(rc, p, u)
	default:
		p.ElicitationID = newElicitationID()
		p.URL = withID(p.URL, p.ElicitationID)
	}
	reply, failed, err := s.request(ctx, rc, "elicitation/create", p)
	if reply == nil {
		return failed, err
	}
	return s.linkAnswered(ctx, rc, in, r, reply, p)
}

// linkAnswered acts on the user's answer: decline and cancel fail the call; accept waits
// until the outside interaction counts as done, tells a 2025-11-25 client (id set) so, and
// keeps the answer as args.<as>.
func (s *step) linkAnswered(ctx context.Context, rc *mcp.RequestContext, in *placeholder.Input, r *placeholder.Rand, reply json.RawMessage, p urlParams) (*mcp.CallToolResult, error) {
	u := s.url
	var ans struct {
		Action string `json:"action"`
	}
	_ = json.Unmarshal(reply, &ans)
	switch ans.Action {
	case "accept":
	case "decline":
		return u.refusal(u.onDecline, "The user declined to open "+p.URL, *in, r), nil
	case "cancel":
		return u.refusal(u.onCancel, "The user dismissed the request to open "+p.URL, *in, r), nil
	default:
		return errf("The client answered elicitation/create with action %q; want accept, decline or cancel", ans.Action), nil
	}
	if err := wait(ctx, rc, u.after, false); err != nil {
		return nil, err
	}
	if p.ElicitationID != "" && u.notify && rc.Notifier != nil {
		_ = rc.Notifier.Notify(ctx, "notifications/elicitation/complete", completeParams{p.ElicitationID})
	}
	s.keep(in, reply)
	return nil, nil
}

func (u *urlElicit) refusal(t *placeholder.Template, fallback string, in placeholder.Input, r *placeholder.Rand) *mcp.CallToolResult {
	if t == nil {
		return errf("%s", fallback)
	}
	return errf("%s", t.Render(in, r))
}

// completeParams is the body of notifications/elicitation/complete.
type completeParams struct {
	ElicitationID string `json:"elicitationId"`
}

// absoluteLink reports whether a rendered link is an absolute http(s) URL with a host.
func absoluteLink(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// newElicitationID returns a fresh opaque elicitationId (128 random bits, hex).
func newElicitationID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

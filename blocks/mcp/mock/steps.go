package mock

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/octo-run/octo/blocks/mockkit/placeholder"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime/config"
)

type stepKind uint8

const (
	stepLog stepKind = iota
	stepProgress
	stepDelay
	stepElicit
	stepSample
	stepRoots
	stepSleep
)

// step is one compiled thing a tool does during a call.
type step struct {
	kind      stepKind
	text      *placeholder.Template // log data, progress message, elicit message, sample prompt
	level     string
	logger    string
	progress  float64
	total     float64
	delay     time.Duration
	schema    json.RawMessage // an elicitation's requestedSchema
	maxTokens int
	system    *placeholder.Template
	timeout   time.Duration // how long an asking step waits for the client over a session
	url       *urlElicit    // an elicit step in URL mode
	as        string        // where the answer goes, and the 2026-07-28 input request's key
	key       string        // the input request's key: as, else step<N>
	together  bool          // asked in the round of the input step before it (2026-07-28)
	optional  bool          // skipped for a client without the capability (2026-07-28)
	preTask   bool          // run in the call, before the tool's task starts
}

// asks reports whether the step asks the client something.
func (s *step) asks() bool {
	return s.kind == stepElicit || s.kind == stepSample || s.kind == stepRoots
}

// stepKeys names, per kind, the keys a step of that kind may have besides
// its own.
var stepKeys = map[string][]string{
	"log":      {"level", "logger"},
	"progress": {"total", "message"},
	"delayMs":  {},
	"elicit": {"schema", "as", "together", "optional", "timeoutMs",
		"mode", "url", "completeAfterMs", "notifyComplete", "required", "onDecline", "onCancel"},
	"sample":    {"maxTokens", "systemPrompt", "as", "together", "optional", "timeoutMs"},
	"listRoots": {"as", "together", "optional", "timeoutMs"},
	"sleep":     {},
}

// stepKindKeys are the kinds of step; any of them may also be beforeTask.
var stepKindKeys = []string{"log", "progress", "delayMs", "elicit", "sample", "listRoots", "sleep"}

// defaultMaxTokens is what a sample step asks for when it names no limit.
const defaultMaxTokens = 1000

// checkStep reports load errors in a step: one kind, its own keys only,
// a positive maxTokens, an `as` name used once (the decoder checks levels and delays).
func checkStep(sc *stepConfig, pos *config.Positions, names map[string]bool, ds *config.Diags) {
	var kinds []string
	for i, set := range []bool{sc.Log != nil, sc.Progress != nil, sc.DelayMs != nil, sc.Elicit != nil, sc.Sample != nil, sc.ListRoots, sc.Sleep != nil} {
		if set {
			kinds = append(kinds, stepKindKeys[i])
		}
	}
	if len(kinds) != 1 {
		msg := "a step needs one of: " + strings.Join(stepKindKeys, ", ")
		if len(kinds) > 1 {
			msg = "a step does one thing (" + strings.Join(stepKindKeys, ", ") + "); this one has " + strings.Join(kinds, " and ")
		}
		*ds = append(*ds, pos.Diag(sc, "%s", msg))
		return
	}
	kind := kinds[0]
	for _, k := range allStepKeys() {
		if p := pos.Key(sc, k); p.Written && k != kind && !slices.Contains(stepKeys[kind], k) {
			*ds = append(*ds, p.KeyDiag(fmt.Sprintf("%q does not belong to a %s step", k, kind)))
		}
	}
	if kind == "elicit" {
		checkElicitMode(sc, pos, ds)
	}
	if kind == "sample" && sc.MaxTokens < 0 {
		*ds = append(*ds, pos.Diag(&sc.MaxTokens, "maxTokens must be positive"))
	}
	if sc.As != "" {
		if !validAs(sc.As) {
			*ds = append(*ds, pos.Diag(&sc.As, "as %q: use letters, digits and _, starting with a letter", sc.As))
		} else if names[sc.As] {
			*ds = append(*ds, pos.Diag(&sc.As, "as %q is already used by an earlier step", sc.As))
		}
		names[sc.As] = true
	}
}

func allStepKeys() []string {
	out := slices.Clone(stepKindKeys)
	for _, ks := range stepKeys {
		out = append(out, ks...)
	}
	return out
}

func validAs(s string) bool {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		letter := ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z'
		if !letter && (i == 0 || ch != '_' && (ch < '0' || ch > '9')) {
			return false
		}
	}
	return s != ""
}

// steps compiles a tool's steps; props are the input schema's properties,
// which an `as` name must not shadow.
func (c *compiler) steps(t *tool, confs []stepConfig, props map[string]bool, r refs) bool {
	ok := true
	for i := range confs {
		sc := &confs[i]
		if sc.As != "" && props[sc.As] {
			c.problem(&sc.As, "as %q is also an argument of the tool; pick another name", sc.As)
			ok = false
			continue
		}
		s, sok := c.step(sc, r)
		if !sok {
			ok = false
			continue
		}
		if s.key = s.as; s.key == "" {
			s.key = fmt.Sprintf("step%d", i+1)
		}
		t.steps = append(t.steps, s)
	}
	return ok
}

func (c *compiler) step(sc *stepConfig, r refs) (*step, bool) {
	s := &step{as: sc.As, together: sc.Together, optional: sc.Optional, preTask: sc.BeforeTask,
		timeout: time.Duration(sc.TimeoutMs) * time.Millisecond}
	var ok bool
	switch {
	case sc.ListRoots:
		s.kind, ok = stepRoots, true
	case sc.Log != nil:
		s.kind, s.level, s.logger = stepLog, sc.Level, sc.Logger
		s.text, ok = c.text(*sc.Log, sc.Log, r)
	case sc.Progress != nil:
		s.kind, s.progress, s.total = stepProgress, *sc.Progress, sc.Total
		s.text, ok = c.text(sc.Message, &sc.Message, r)
	case sc.DelayMs != nil:
		s.kind, s.delay, ok = stepDelay, time.Duration(*sc.DelayMs)*time.Millisecond, true
	case sc.Sleep != nil:
		s.kind = stepSleep
		s.text, ok = c.text(*sc.Sleep, sc.Sleep, r)
	case sc.Elicit != nil && sc.Mode == mcp.ElicitURL:
		s.kind = stepElicit
		s.text, ok = c.text(*sc.Elicit, sc.Elicit, r)
		var uok bool
		s.url, uok = c.urlElicit(sc, r)
		ok = ok && uok
	case sc.Elicit != nil:
		s.kind = stepElicit
		s.text, ok = c.text(*sc.Elicit, sc.Elicit, r)
		s.schema = json.RawMessage(`{"type":"object","properties":{}}`)
		switch {
		case sc.Schema.Err != nil:
			c.schemaProblem(&sc.Schema)
			ok = false
		case sc.Schema.Schema != nil:
			s.schema = sc.Schema.Raw()
		}
	case sc.Sample != nil:
		s.kind, s.maxTokens = stepSample, sc.MaxTokens
		if s.maxTokens == 0 {
			s.maxTokens = defaultMaxTokens
		}
		s.text, ok = c.text(*sc.Sample, sc.Sample, r)
		if sc.SystemPrompt != "" {
			var sok bool
			s.system, sok = c.text(sc.SystemPrompt, &sc.SystemPrompt, r)
			ok = ok && sok
		}
	}
	return s, ok
}

// elicitParams is the body of elicitation/create (form mode).
type elicitParams struct {
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
}

// sampleParams is the body of sampling/createMessage with one user message.
type sampleParams struct {
	Messages     []sampleMessage `json:"messages"`
	SystemPrompt string          `json:"systemPrompt,omitempty"`
	MaxTokens    int             `json:"maxTokens"`
}

type sampleMessage struct {
	Role    string      `json:"role"`
	Content mcp.Content `json:"content"`
}

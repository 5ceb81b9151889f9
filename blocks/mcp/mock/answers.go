package mock

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/octo-run/octo/blocks/mockkit/placeholder"
	"github.com/octo-run/octo/blocks/mockkit/vary"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/runtime/config"
)

// This file is a tool's answers that vary (the picking is package vary's): which of them
// answered a call goes to the traffic log as a note beside it.

// outcome is one way a tool answers: its own settings, one of its answers, or its failure.
type outcome struct {
	label    string // what the traffic note calls it
	result   *placeholder.Template
	content  []*content // when the answer is items rather than one result text
	isError  bool
	delay    time.Duration
	protoErr *jsonrpc.Error // the JSON-RPC error the call answers with, nil: a result
}

// whenEnv is what a tool answer's when reads.
type whenEnv struct {
	Args    map[string]any    `expr:"args"`
	Headers map[string]string `expr:"headers"`
	Session string            `expr:"session"`
	Call    int               `expr:"call"`
}

// variation is a tool's answers and what picks among them.
type variation struct {
	picker  *vary.Picker
	answers []*outcome
	failure *outcome
}

// simulatedFailure is what a call picked by failureRate answers when the tool names no failure.
const simulatedFailure = "Simulated failure of tool %s (failureRate %s)"

// compileAnswers compiles a tool's answers, order and failure rate; nil when it has none.
func (c *compiler) compileAnswers(t *tool, tc *toolConfig, r refs, seed *int64) (*variation, bool) {
	if len(tc.Answers) == 0 && tc.FailureRate == 0 {
		return nil, true
	}
	v := &variation{}
	ok := true
	whens := make([]string, len(tc.Answers))
	for i := range tc.Answers {
		ac := &tc.Answers[i]
		whens[i] = ac.When
		out, aok := c.outcome(ac, t.own.delay, r)
		ok = ok && aok
		out.label = "answer " + strconv.Itoa(i+1)
		if ac.When != "" {
			out.label += " (when " + ac.When + ")"
		}
		v.answers = append(v.answers, out)
	}
	picker, errs := vary.New(vary.Settings{Order: tc.AnswerOrder, FailureRate: tc.FailureRate, Seed: seed,
		Stream: t.def.Name, Env: whenEnv{}}, whens)
	for i, err := range errs {
		if err != nil {
			c.problem(&tc.Answers[i].When, "when: %v", err)
			ok = false
		}
	}
	v.picker = picker
	if tc.FailureRate > 0 {
		rate := strconv.FormatFloat(tc.FailureRate, 'f', -1, 64)
		if tc.Failure != nil {
			out, fok := c.outcome(tc.Failure, t.own.delay, r)
			ok = ok && fok
			v.failure = out
		} else {
			text, _ := placeholder.Compile(fmt.Sprintf(simulatedFailure, t.def.Name, rate), nil)
			v.failure = &outcome{result: text, isError: true, delay: t.own.delay}
		}
		v.failure.label = "failure (failureRate " + rate + ")"
	}
	return v, ok
}

// outcome compiles an answer's settings; its delay is the tool's unless it says otherwise.
func (c *compiler) outcome(ac *answerConfig, delay time.Duration, r refs) (*outcome, bool) {
	out := &outcome{isError: ac.IsError, delay: delay}
	if ac.DelayMs != nil {
		out.delay = time.Duration(*ac.DelayMs) * time.Millisecond
	}
	if pe := ac.ProtocolError; pe != nil {
		out.protoErr = &jsonrpc.Error{Code: pe.Code, Message: pe.Message}
	}
	ok := c.answer(out, ac.Result, ac.Content, r)
	return out, ok
}

// pick returns the outcome of a call: the one the tool's answers pick, else its own (nil v:
// always its own). Calls are counted per session.
func (v *variation) pick(own *outcome, rc *mcp.RequestContext, args map[string]any) *outcome {
	if v == nil {
		return own
	}
	id, done := sessionOf(rc)
	switch i := v.picker.Pick(id, done, func(call int) any {
		return whenEnv{Args: args, Headers: headersOf(rc), Session: id, Call: call}
	}); i {
	case vary.Own:
		return own
	case vary.Failure:
		return v.failure
	default:
		return v.answers[i]
	}
}

// note tells the traffic log which outcome answered the call, when the tool has answers that
// vary (its own outcome is then "the tool's own answer").
func (p *provider) note(t *tool, out *outcome, rc *mcp.RequestContext) {
	if t.vary == nil || p.observe == nil {
		return
	}
	label := out.label
	if out == &t.own {
		label = "the tool's own answer"
	}
	id, _ := sessionOf(rc)
	ev := session.TrafficEvent{Time: time.Now(), Session: id, Transport: session.TransportStreamable,
		Direction: session.DirOut, Kind: session.TrafficNote, Method: "tools/call", Summary: "tools/call " + t.def.Name + ": " + label}
	if rc != nil {
		ev.ID, ev.Version = rc.RequestID, rc.Version
		if s, ok := rc.Session.(*session.Session); ok {
			ev.Transport = s.Transport()
		}
	}
	p.observe(ev)
}

// sessionOf is the call's session id and end ("" and nil without one: 2026-07-28).
func sessionOf(rc *mcp.RequestContext) (string, <-chan struct{}) {
	if rc == nil || rc.Session == nil {
		return "", nil
	}
	var done <-chan struct{}
	if s, ok := rc.Session.(interface{ Done() <-chan struct{} }); ok {
		done = s.Done()
	}
	return rc.Session.ID(), done
}

// headersOf is the request's headers for a when expression: lower-case names, the first value.
func headersOf(rc *mcp.RequestContext) map[string]string {
	if rc == nil || len(rc.Header) == 0 {
		return nil
	}
	h := make(map[string]string, len(rc.Header))
	for k, vs := range rc.Header {
		if len(vs) > 0 {
			h[strings.ToLower(k)] = vs[0]
		}
	}
	return h
}

// checkAnswers reports load errors in a tool's answers: each answers one way, a when belongs
// to answerOrder match, a sequence needs answers, and a failure needs a failure rate.
func checkAnswers(tc *toolConfig, pos *config.Positions, ds *config.Diags) {
	order := tc.AnswerOrder
	if order != "" && order != vary.Match && len(tc.Answers) == 0 {
		*ds = append(*ds, pos.Diag(&tc.AnswerOrder, "answerOrder %s takes the tool's answers in turn, and it has none", order))
	}
	for i := range tc.Answers {
		ac := &tc.Answers[i]
		checkAnswer(ac, pos, ds)
		if ac.When != "" && order != "" && order != vary.Match {
			*ds = append(*ds, pos.Diag(&ac.When, "when picks an answer in answerOrder match; %s takes the answers in turn, whatever the call", order))
		}
	}
	if tc.Failure != nil {
		checkAnswer(tc.Failure, pos, ds)
		if tc.Failure.When != "" {
			*ds = append(*ds, pos.Diag(&tc.Failure.When, "the failure answers the calls failureRate picks; it has no when"))
		}
		if tc.FailureRate == 0 {
			*ds = append(*ds, pos.Diag(tc.Failure, "failure answers a share of the calls: set failureRate (0 to 1)"))
		}
	}
}

// checkAnswer: an answer says what it answers, one way.
func checkAnswer(ac *answerConfig, pos *config.Positions, ds *config.Diags) {
	ways := 0
	for _, set := range []bool{ac.Result != nil, len(ac.Content) > 0, ac.ProtocolError != nil} {
		if set {
			ways++
		}
	}
	switch {
	case ways == 0:
		*ds = append(*ds, pos.Diag(ac, "an answer needs result, content or protocolError"))
	case ways > 1:
		*ds = append(*ds, pos.Diag(ac, "an answer answers with one of result, content or protocolError"))
	case ac.ProtocolError != nil && ac.IsError:
		*ds = append(*ds, pos.Diag(&ac.IsError, "an answer answers with protocolError (a JSON-RPC error) or isError (a failed result), not both"))
	}
	for i := range ac.Content {
		checkContentShape(&ac.Content[i], pos, ds)
	}
}

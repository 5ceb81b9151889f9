package mock

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"

	"github.com/octo-run/octo/blocks/mcp/mock/placeholder"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/runtime/config"
)

// This file is a tool's answers that vary: a list of answers picked by a when expression over
// the call or by the call's place in its session, and a share of calls answered with a
// failure, drawn from the server's seed so a run repeats. Which one answered goes to the
// traffic log as a note beside the call.

// The orders answers are picked in (toolConfig.AnswerOrder).
const (
	orderMatch    = "match"
	orderSequence = "sequence"
	orderCycle    = "cycle"
)

// outcome is one way a tool answers: its own settings, one of its answers, or its failure.
type outcome struct {
	label    string      // what the traffic note calls it
	when     *vm.Program // nil: always
	result   *placeholder.Template
	content  []*content // when the answer is items rather than one result text
	isError  bool
	delay    time.Duration
	protoErr *jsonrpc.Error // the JSON-RPC error the call answers with, nil: a result
}

// whenEnv is what a when expression reads; a struct lets expr-lang check the names at load.
type whenEnv struct {
	Args    map[string]any    `expr:"args"`
	Headers map[string]string `expr:"headers"`
	Session string            `expr:"session"`
	Call    int               `expr:"call"`
}

// variation picks a call's outcome among a tool's answers.
type variation struct {
	answers     []*outcome
	order       string
	failureRate float64
	failure     *outcome
	counted     bool // calls are counted: a sequence, or a when that reads call
	calls       callCounts

	mu  sync.Mutex // rng is not safe for concurrent draws
	rng *rand.Rand
}

// simulatedFailure is what a call picked by failureRate answers when the tool names no failure.
const simulatedFailure = "Simulated failure of tool %s (failureRate %s)"

// compileAnswers compiles a tool's answers, order and failure rate; nil when it has none.
func (c *compiler) compileAnswers(t *tool, tc *toolConfig, r refs, seed *int64) (*variation, bool) {
	if len(tc.Answers) == 0 && tc.FailureRate == 0 {
		return nil, true
	}
	v := &variation{order: tc.AnswerOrder, failureRate: tc.FailureRate}
	if v.order == "" {
		v.order = orderMatch
	}
	v.counted = v.order != orderMatch
	ok := true
	for i := range tc.Answers {
		ac := &tc.Answers[i]
		rep, aok := c.outcome(ac, t.own.delay, r)
		if !aok {
			ok = false
			continue
		}
		rep.label = "answer " + strconv.Itoa(i+1)
		if ac.When != "" {
			rep.label += " (when " + ac.When + ")"
			prog, err := expr.Compile(ac.When, expr.Env(whenEnv{}), expr.AsBool())
			if err != nil {
				c.problem(&ac.When, "when: %s", oneLine(err.Error()))
				ok = false
				continue
			}
			rep.when = prog
			v.counted = v.counted || readsCall(ac.When)
		}
		v.answers = append(v.answers, rep)
	}
	if v.failureRate > 0 {
		rate := strconv.FormatFloat(v.failureRate, 'f', -1, 64)
		if tc.Failure != nil {
			rep, fok := c.outcome(tc.Failure, t.own.delay, r)
			if !fok {
				ok = false
			}
			v.failure = rep
		} else {
			text, _ := placeholder.Compile(fmt.Sprintf(simulatedFailure, t.def.Name, rate), nil)
			v.failure = &outcome{result: text, isError: true, delay: t.own.delay}
		}
		v.failure.label = "failure (failureRate " + rate + ")"
		v.rng = rand.New(rand.NewPCG(drawSeed(seed), nameHash(t.def.Name)))
	}
	return v, ok
}

// outcome compiles an answer's settings; its delay is the tool's unless it says otherwise.
func (c *compiler) outcome(ac *answerConfig, delay time.Duration, r refs) (*outcome, bool) {
	rep := &outcome{isError: ac.IsError, delay: delay}
	if ac.DelayMs != nil {
		rep.delay = time.Duration(*ac.DelayMs) * time.Millisecond
	}
	if pe := ac.ProtocolError; pe != nil {
		rep.protoErr = &jsonrpc.Error{Code: pe.Code, Message: pe.Message}
	}
	ok := c.answer(rep, ac.Result, ac.Content, r)
	return rep, ok
}

// readsCall reports whether a when expression mentions call; a cheap look at the text is
// enough, since counting calls that are never read only costs a map entry.
func readsCall(src string) bool { return strings.Contains(src, "call") }

// drawSeed is the failure draws' seed: the server's when it has one, else the clock's.
func drawSeed(seed *int64) uint64 {
	if seed != nil {
		return uint64(*seed)
	}
	return uint64(time.Now().UnixNano())
}

// nameHash tells the tools' draws apart, so one tool's calls do not move another's sequence.
func nameHash(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// pick returns the outcome of a call: a failure when the draw says so, else the answer the
// order picks, else the tool's own (nil v: always the tool's own). A when that fails to
// evaluate does not hold.
func (v *variation) pick(own *outcome, rc *mcp.RequestContext, args map[string]any) *outcome {
	if v == nil {
		return own
	}
	env := whenEnv{Args: args, Session: sessionID(rc)}
	if v.counted {
		env.Call = v.calls.next(rc, env.Session)
	}
	if v.failureRate > 0 && v.draw() < v.failureRate {
		return v.failure
	}
	switch {
	case len(v.answers) == 0:
		return own
	case v.order == orderSequence:
		return v.answers[min(env.Call, len(v.answers))-1]
	case v.order == orderCycle:
		return v.answers[(env.Call-1)%len(v.answers)]
	}
	env.Headers = headersOf(rc)
	for _, a := range v.answers {
		if a.when == nil {
			return a
		}
		if out, err := vm.Run(a.when, env); err == nil && out == true {
			return a
		}
	}
	return own
}

func (v *variation) draw() float64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.rng.Float64()
}

// note tells the traffic log which outcome answered the call, when the tool has answers that
// vary (its own outcome is then "the tool's own answer").
func (p *provider) note(t *tool, rep *outcome, rc *mcp.RequestContext) {
	if t.vary == nil || p.observe == nil {
		return
	}
	label := rep.label
	if rep == &t.own {
		label = "the tool's own answer"
	}
	ev := session.TrafficEvent{Time: time.Now(), Session: sessionID(rc), Transport: session.TransportStreamable,
		Direction: session.DirOut, Kind: session.TrafficNote, Method: "tools/call", Summary: "tools/call " + t.def.Name + ": " + label}
	if rc != nil {
		ev.ID, ev.Version = rc.RequestID, rc.Version
		if s, ok := rc.Session.(*session.Session); ok {
			ev.Transport = s.Transport()
		}
	}
	p.observe(ev)
}

func sessionID(rc *mcp.RequestContext) string {
	if rc == nil || rc.Session == nil {
		return ""
	}
	return rc.Session.ID()
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

// callCounts counts a tool's calls per session. A session's count goes when the session ends;
// calls without one (2026-07-28, which has no sessions) share the count of "".
type callCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// next counts a call in the session id and returns how many it made, this one included.
func (cc *callCounts) next(rc *mcp.RequestContext, id string) int {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.n == nil {
		cc.n = map[string]int{}
	}
	n, known := cc.n[id]
	cc.n[id] = n + 1
	if !known && id != "" {
		if done, ok := rc.Session.(interface{ Done() <-chan struct{} }); ok {
			go cc.forget(done.Done(), id)
		}
	}
	return n + 1
}

func (cc *callCounts) forget(done <-chan struct{}, id string) {
	<-done
	cc.mu.Lock()
	delete(cc.n, id)
	cc.mu.Unlock()
}

// checkAnswers reports load errors in a tool's answers: each answers one way, a when belongs
// to answerOrder match, a sequence needs answers, and a failure needs a failure rate.
func checkAnswers(tc *toolConfig, pos *config.Positions, ds *config.Diags) {
	order := tc.AnswerOrder
	if order != "" && order != orderMatch && len(tc.Answers) == 0 {
		*ds = append(*ds, pos.Diag(&tc.AnswerOrder, "answerOrder %s takes the tool's answers in turn, and it has none", order))
	}
	for i := range tc.Answers {
		ac := &tc.Answers[i]
		checkAnswer(ac, pos, ds)
		if ac.When != "" && order != "" && order != orderMatch {
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

// oneLine keeps an expr-lang message's first line: the rest points at the column in a copy of
// the source, which the diagnostic's own position already does.
func oneLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

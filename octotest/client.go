package octotest

import (
	"encoding/json"
	"fmt"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime/jsonv"
)

// Methods of the questions a server asks its client.
const (
	methodElicit = "elicitation/create"
	methodSample = "sampling/createMessage"
	methodRoots  = "roots/list"
)

// script is a case's client as it answers the server: its scripted answers, used in order, and
// what the server asked and notified, for the case's checks. It is used by one goroutine at a
// time (the one reading the call's answer), so it needs no lock.
type script struct {
	declared any // client.capabilities, nil when the answers say them
	answers  []Answer
	lines    []int // each answer's line in the test file
	where    string
	next     int

	asked    []any // {method, params} of each question, ping left out
	notified []any // {method, params} of each notification
	failures []string
}

// newScript is the client case c describes (the default one when c has no client key).
func newScript(c *loaded) *script {
	s := &script{where: c.where(), lines: c.answerLines}
	if c.Client != nil {
		s.answers = c.Client.Answers
		if c.Client.Capabilities != nil {
			s.declared, _ = valueOf(c.Client.Capabilities) // checked when the file was loaded
		}
	}
	return s
}

// protocolOf is the revision client c speaks (nil: the default one).
func protocolOf(c *Client) string {
	if c == nil || c.Protocol == "" {
		return mcp.Version20250618
	}
	return c.Protocol
}

// capabilities are client.capabilities, else what the answers imply: elicitation in the modes
// they name (both when one names none; 2025-06-18 has only form, declared as {}), sampling,
// roots.
func (s *script) capabilities(version string) any {
	if s.declared != nil {
		return s.declared
	}
	caps := map[string]any{}
	modes := map[string]any{}
	for _, a := range s.answers {
		switch {
		case a.Elicit != "" && a.Mode == "":
			modes["form"], modes["url"] = map[string]any{}, map[string]any{}
		case a.Elicit != "":
			modes[a.Mode] = map[string]any{}
		case a.Sample != nil:
			caps["sampling"] = map[string]any{}
		default:
			caps["roots"] = map[string]any{}
		}
	}
	if len(modes) > 0 {
		if version < mcp.Version20251125 {
			modes = map[string]any{}
		}
		caps["elicitation"] = modes
	}
	return caps
}

// notice keeps a notification of the server's.
func (s *script) notice(m rpcMessage) {
	s.notified = append(s.notified, map[string]any{"method": m.Method, "params": paramsOf(m.Params)})
}

// answer is the JSON-RPC answer to request m of the server's: ping's {}, the next scripted
// answer, or an error when there is none of the kind asked (which fails the case).
func (s *script) answer(m rpcMessage) []byte {
	if m.Method == "ping" {
		return rpcResult(m.ID, map[string]any{})
	}
	result, problem := s.question(m.Method, paramsOf(m.Params))
	if problem != "" {
		msg, _ := json.Marshal("octo test's client has no answer to " + m.Method + ": " + problem)
		return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":` + string(msg) + `}}`)
	}
	return rpcResult(m.ID, result)
}

// question keeps a question of the server's and takes its answer; a question the script has
// no answer for fails the case, and problem says why.
func (s *script) question(method string, params any) (result any, problem string) {
	s.asked = append(s.asked, map[string]any{"method": method, "params": params})
	result, problem = s.take(method, params)
	if problem != "" {
		s.failures = append(s.failures, fmt.Sprintf("the server asked %s (%s): %s", method, clip(show(params), 200), problem))
	}
	return result, problem
}

// take uses the next answer for a question of method with params, or says why it cannot.
func (s *script) take(method string, params any) (any, string) {
	if s.next >= len(s.answers) {
		return nil, fmt.Sprintf("the case (%s) has no client answer left for it: add one to client.answers", s.where)
	}
	i := s.next
	a := &s.answers[i]
	name := fmt.Sprintf("client.answers[%d] (line %d)", i, s.lines[i])
	if kind := answerMethod(a); kind != method {
		return nil, fmt.Sprintf("the next answer, %s, answers %s", name, kind)
	}
	mode := elicitMode(params)
	if a.Elicit != "" && a.Mode != "" && a.Mode != mode {
		return nil, fmt.Sprintf("the next answer, %s, answers a %s elicitation, and this one is in mode %s", name, a.Mode, mode)
	}
	s.next++
	switch {
	case a.Elicit != "":
		return elicitResult(a, mode), ""
	case a.Sample != nil:
		return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": *a.Sample},
			"model": "octo-test", "stopReason": "endTurn"}, ""
	}
	roots := make([]any, len(a.Roots))
	for j, r := range a.Roots {
		root := map[string]any{"uri": r.URI}
		if r.Name != "" {
			root["name"] = r.Name
		}
		roots[j] = root
	}
	return map[string]any{"roots": roots}, ""
}

// elicitMode is the mode of an elicitation with params: form unless it says otherwise.
func elicitMode(params any) string {
	p, _ := params.(map[string]any)
	if mode, _ := p["mode"].(string); mode != "" {
		return mode
	}
	return "form"
}

// elicitResult is answer a to an elicitation in mode; a form's content only when accepted.
func elicitResult(a *Answer, mode string) any {
	r := map[string]any{"action": a.Elicit}
	if a.Elicit == "accept" && mode == "form" {
		content := any(map[string]any{})
		if a.Content != nil {
			content, _ = valueOf(a.Content) // checked when the file was loaded
		}
		r["content"] = content
	}
	return r
}

// answerMethod is the method answer a is for.
func answerMethod(a *Answer) string {
	switch {
	case a.Elicit != "":
		return methodElicit
	case a.Sample != nil:
		return methodSample
	}
	return methodRoots
}

// unused names the answers the server asked nothing for, once every question had its answer
// (after one that had not, the rest are out of step: that failure says it).
func (s *script) unused() []string {
	if len(s.failures) > 0 {
		return nil
	}
	var out []string
	for i := s.next; i < len(s.answers); i++ {
		out = append(out, fmt.Sprintf("client.answers[%d] (line %d): the server never asked %s", i, s.lines[i], answerMethod(&s.answers[i])))
	}
	return out
}

// check adds to o what the client saw that the case does not expect: questions it could not
// answer, answers left over, and expect.asked and expect.notified.
func (s *script) check(e *Expect, o *outcome) {
	o.failures = append(o.failures, s.failures...)
	o.failures = append(o.failures, s.unused()...)
	if len(e.Asked) > 0 {
		want, err := messagesOf(e.Asked)
		if err != nil {
			o.failf("asked: %v", err)
		}
		for _, mm := range compare("asked", want, s.asked, true) {
			o.failf("%s", mm)
		}
	}
	for i, n := range e.Notified {
		want, err := messagesOf([]Message{n})
		if err != nil {
			o.failf("notified[%d]: %v", i, err)
			continue
		}
		if !s.wasNotified(want[0]) {
			o.failf("notified[%d]: expected a notification like %s, got %s", i, clip(show(want[0]), 200), clip(show(s.notified), 400))
		}
	}
}

// wasNotified reports whether a notification matches want.
func (s *script) wasNotified(want any) bool {
	for _, n := range s.notified {
		if len(compare("", want, n, true)) == 0 {
			return true
		}
	}
	return false
}

// messagesOf is expected messages as JSON values: {method, params} (params when written).
func messagesOf(ms []Message) ([]any, error) {
	out := make([]any, len(ms))
	for i, m := range ms {
		v := map[string]any{"method": m.Method}
		if m.Params != nil {
			p, err := valueOf(m.Params)
			if err != nil {
				return nil, err
			}
			v["params"] = p
		}
		out[i] = v
	}
	return out, nil
}

// paramsOf is params as a JSON value ({} when there are none or they are not JSON).
func paramsOf(params json.RawMessage) any {
	if len(params) == 0 {
		return map[string]any{}
	}
	v, err := jsonv.Decode(params)
	if err != nil {
		return map[string]any{}
	}
	return v
}

// rpcResult is a JSON-RPC result answering id.
func rpcResult(id json.RawMessage, result any) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	return b
}

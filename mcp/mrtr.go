package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"

	"github.com/octo-run/octo/mcp/tasks"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// This file holds 2026-07-28's multi-round-trip requests: a server that needs the client
// (elicitation, sampling, roots) answers an input_required result naming what it needs; the
// client asks its user or model and sends the request again with inputResponses and the
// requestState it was given. The server keeps nothing between rounds: requestState carries the
// answers of earlier rounds, signed so that a client cannot change them.

// ErrInputRequired is what a provider returns when RequestContext.Ask has recorded a question
// for the client: the request is answered with an input_required result.
var ErrInputRequired = errors.New("input required from the client")

// inputRounds is what one 2026-07-28 request knows of its rounds.
type inputRounds struct {
	caps   []byte                     // the client's capabilities (params._meta)
	client []byte                     // the client's clientInfo (params._meta), nil when it sent none
	target string                     // method and name, which a requestState is bound to
	given  map[string]json.RawMessage // inputResponses, then the earlier rounds' answers
	used   map[string]json.RawMessage // the answers the provider took
	asked  []tasks.InputRequest       // what this round asks, in order
	srv    *Server                    // the server, for the tasks a tools/call may become
	inTask bool                       // the round runs in a task (it cannot become another)
	args   json.RawMessage            // a tools/call's arguments, for a task's work
	detach func(any) any              // HTTPRequest.Detach, for the Caller of a task
}

// capabilityFor names the client capability a server→client method needs.
func capabilityFor(method string) string {
	switch method {
	case "elicitation/create":
		return "elicitation"
	case "sampling/createMessage":
		return "sampling"
	case "roots/list":
		return "roots"
	}
	return ""
}

// Ask gets the client's answer to method for the question named key. On an older revision it
// sends the request over the session (Request). On 2026-07-28 it returns the answer the client
// sent along with the request, or records the question and returns ErrInputRequired, which the
// provider returns in turn once it has asked what it can ask in this round; a client that did
// not declare the capability the method needs is -32021.
func (rc *RequestContext) Ask(ctx context.Context, key, method string, params any) (json.RawMessage, error) {
	if rc == nil || rc.rounds == nil {
		return rc.Request(ctx, method, params)
	}
	t := rc.rounds
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	if c := capabilityFor(method); c != "" {
		if v, ok := jsonscan.Member(t.caps, c); !ok || v[0] != '{' {
			return nil, missingCapability(c, method, struct{}{})
		}
	}
	if mode := ElicitMode(method, b); mode == ElicitURL && !DeclaresElicitMode(t.caps, mode) {
		return nil, missingCapability("elicitation.url", method, map[string]any{"url": struct{}{}})
	}
	if v, ok := t.given[key]; ok {
		t.used[key] = v
		return v, nil
	}
	t.asked = append(t.asked, tasks.InputRequest{Key: key, Method: method, Params: b})
	return nil, ErrInputRequired
}

// startRounds reads a 2026-07-28 request's inputResponses and requestState into rc; a
// requestState this server did not sign for this method and name is -32602.
func (s *Server) startRounds(m *jsonrpc.Message, meta []byte, rc *RequestContext) *jsonrpc.Error {
	t := &inputRounds{given: map[string]json.RawMessage{}, used: map[string]json.RawMessage{}, srv: s}
	t.caps, _ = jsonscan.Member(meta, MetaClientCapabilities)
	t.client, _ = jsonscan.Member(meta, MetaClientInfo)
	t.target = m.Method
	if key := NameKey(m.Method); key != "" {
		raw, _ := jsonscan.Member(m.Params, key)
		name, _ := jsonscan.Unquote(raw)
		t.target += "\x00" + name
	}
	if raw, ok := jsonscan.Member(m.Params, "requestState"); ok {
		state, _ := jsonscan.Unquote(raw)
		if !s.openState(state, t) {
			return invalidParams("requestState failed its integrity check; start the request again without it")
		}
	}
	if raw, ok := jsonscan.Member(m.Params, "inputResponses"); ok {
		if raw[0] != '{' {
			return invalidParams("inputResponses must be an object, got %s", jsonscan.Kind(raw))
		}
		jsonscan.EachMember(raw, func(k, v []byte) bool {
			t.given[string(jsonscan.KeyText(k))] = json.RawMessage(v)
			return true
		})
	}
	rc.rounds = t
	return nil
}

// inputRequired encodes the input_required result of a round that asked something.
func (s *Server) inputRequired(t *inputRounds) (json.RawMessage, error) {
	reqs := appendInputRequests(make([]byte, 0, 256), t.asked)
	state, err := s.sealState(t)
	if err != nil {
		return nil, err
	}
	out := append([]byte(`{"resultType":"input_required","inputRequests":`), reqs...)
	out = append(out, `,"requestState":`...)
	out = jsonscan.AppendString(out, state)
	return append(out, '}'), nil
}

// appendInputRequests writes an inputRequests object: each question by its key.
func appendInputRequests(out []byte, asked []tasks.InputRequest) []byte {
	out = append(out, '{')
	for i, a := range asked {
		if i > 0 {
			out = append(out, ',')
		}
		out = jsonscan.AppendString(out, a.Key)
		out = append(out, `:{"method":`...)
		out = jsonscan.AppendString(out, a.Method)
		out = append(out, `,"params":`...)
		out = append(out, a.Params...)
		out = append(out, '}')
	}
	return append(out, '}')
}

// sealedState is what a requestState carries: the request it belongs to and the answers so far.
type sealedState struct {
	Target  string                     `json:"t"`
	Answers map[string]json.RawMessage `json:"a"`
}

func (s *Server) stateMAC(payload string) string {
	s.stateOnce.Do(func() {
		if _, err := rand.Read(s.stateKey[:]); err != nil {
			panic("mcp: no randomness for the requestState key: " + err.Error())
		}
	})
	mac := hmac.New(sha256.New, s.stateKey[:])
	mac.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// sealState signs the answers the provider took, bound to the request's method and name.
func (s *Server) sealState(t *inputRounds) (string, error) {
	b, err := json.Marshal(sealedState{t.target, t.used})
	if err != nil {
		return "", err
	}
	payload := base64.RawURLEncoding.EncodeToString(b)
	return payload + "." + s.stateMAC(payload), nil
}

// openState checks a requestState's signature and target and adds its answers to t.given.
func (s *Server) openState(state string, t *inputRounds) bool {
	payload, mac, ok := strings.Cut(state, ".")
	if !ok || !hmac.Equal([]byte(mac), []byte(s.stateMAC(payload))) {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return false
	}
	var st sealedState
	if json.Unmarshal(b, &st) != nil || st.Target != t.target {
		return false
	}
	for k, v := range st.Answers {
		t.given[k] = v
	}
	return true
}

package octotest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/octo-run/octo/mcp"
)

// maxRounds bounds the input_required rounds of one call: a server that keeps asking past it
// fails the case rather than loop until the timeout.
const maxRounds = 16

// statelessCall sends a 2026-07-28 request: no session, the revision and the client's
// capabilities in params._meta (and, over HTTP, the headers mirroring the body). An
// input_required result is answered from the script, and the request sent again with
// inputResponses and the requestState it carried, until the server answers; a question the
// script cannot answer ends the rounds, and the input_required result is the call's answer.
func (c *mcpClient) statelessCall(ctx context.Context, method string, params any) (*rpcAnswer, error) {
	p, _ := params.(map[string]any)
	if p == nil {
		p = map[string]any{}
	}
	meta, _ := p["_meta"].(map[string]any) // a progress token the case asked for stays
	if meta == nil {
		meta = map[string]any{}
	}
	meta[mcp.MetaProtocolVersion] = c.version
	meta[mcp.MetaClientCapabilities] = c.script.capabilities(c.version)
	p["_meta"] = meta
	name, _ := p[mcp.NameKey(method)].(string)
	c.conn.stateless(c.version, method, name)
	for round := 0; ; round++ {
		a, err := c.send(ctx, method, p)
		if err != nil || a.err != nil || a.refused() {
			return a, err
		}
		var ir struct {
			ResultType    string          `json:"resultType"`
			InputRequests json.RawMessage `json:"inputRequests"`
			RequestState  *string         `json:"requestState"`
		}
		if json.Unmarshal(a.result, &ir) != nil || ir.ResultType != "input_required" {
			return a, nil
		}
		if round == maxRounds {
			return nil, fmt.Errorf("%s: the server still asked for input after %d rounds", method, maxRounds)
		}
		responses, ok, err := c.script.inputs(ir.InputRequests)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", method, err)
		}
		if !ok {
			return a, nil
		}
		p["inputResponses"] = responses
		delete(p, "requestState")
		if ir.RequestState != nil {
			p["requestState"] = *ir.RequestState
		}
	}
}

// inputs answers an input_required result's inputRequests, in the order the server wrote
// them: the answers by key, or ok false when the script has no answer to one (the case fails).
func (s *script) inputs(raw json.RawMessage) (map[string]any, bool, error) {
	keys, values, err := members(raw)
	if err != nil {
		return nil, false, fmt.Errorf("inputRequests: %v", err)
	}
	out := make(map[string]any, len(keys))
	for i, k := range keys {
		var q struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(values[i], &q); err != nil {
			return nil, false, fmt.Errorf("inputRequests.%s: %v", k, err)
		}
		result, problem := s.question(q.Method, paramsOf(q.Params))
		if problem != "" {
			return nil, false, nil
		}
		out[k] = result
	}
	return out, true, nil
}

// members are the keys of a JSON object and their values, in the order written.
func members(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, fmt.Errorf("expected an object, got %s", clip(string(raw), 100))
	}
	var (
		keys   []string
		values []json.RawMessage
	)
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys, values = append(keys, t.(string)), append(values, v)
	}
	return keys, values, nil
}

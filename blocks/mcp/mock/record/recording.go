// Package record is `octo record`: it stands between an MCP client and a real MCP server,
// passing every message on unchanged, and keeps what the server said as a saved mock server:
// its name, version and instructions, its tools, resources, templates and prompts as listed,
// and each answer by the request that got it, replayed by `octo serve` through the answers'
// when. Credentials are never kept: no header is saved, and a secret workspace variable's value
// met in what the server said is written as its {{tag}}.
package record

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/octo-run/octo/mcp/jsonrpc"
)

// Recording is what the server was seen to say. It is safe for concurrent use: the exchanges
// of a client's sessions are recorded as they happen.
type Recording struct {
	mu      sync.Mutex
	changed chan struct{} // cap 1: something new was recorded

	name, version, instructions string
	tools                       []*toolSeen
	resources                   []*resourceSeen
	templates                   []*resourceSeen
	prompts                     []*promptSeen
}

// toolSeen is a tool as tools/list gave it, and the calls of it answered.
type toolSeen struct {
	def   map[string]json.RawMessage // the tools/list entry
	calls []call                     // one per distinct arguments, the latest answer kept
}

// call is one answered tools/call: its arguments and the result or error it got.
type call struct {
	args   json.RawMessage // canonical: keys sorted, no spaces
	result json.RawMessage // nil when err
	err    *jsonrpc.Error
}

// resourceSeen is a resource or template as listed, and what a read of it gave.
type resourceSeen struct {
	def      map[string]json.RawMessage
	contents json.RawMessage // the first contents item of a read; nil: never read
}

// promptSeen is a prompt as listed, and the messages a prompts/get of it gave.
type promptSeen struct {
	def      map[string]json.RawMessage
	messages json.RawMessage // nil: never got
}

// NewRecording returns an empty recording.
func NewRecording() *Recording { return &Recording{changed: make(chan struct{}, 1)} }

// Changed delivers after something new was recorded.
func (r *Recording) Changed() <-chan struct{} { return r.changed }

// Exchange pairs the requests a client sent with the answers the server gave in one exchange
// (a POST and its answer, or a stdio session's lines), recording each answered request.
type Exchange struct {
	r       *Recording
	mu      sync.Mutex
	pending map[string]*jsonrpc.Request // by id
}

// NewExchange starts an exchange of r.
func (r *Recording) NewExchange() *Exchange {
	return &Exchange{r: r, pending: map[string]*jsonrpc.Request{}}
}

// Sent notes what the client sent: a message or a batch; requests wait for their answers.
func (e *Exchange) Sent(body []byte) {
	msgs, _, err := jsonrpc.Decode(body)
	if err != nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range msgs {
		if m := &msgs[i]; m.Kind == jsonrpc.KindRequest {
			req := m.Request
			e.pending[m.ID.String()] = &req
		}
	}
}

// Answered notes what the server sent: answers to requests sent are recorded; its own
// requests and notifications are passed on unrecorded.
func (e *Exchange) Answered(body []byte) {
	msgs, _, err := jsonrpc.Decode(body)
	if err != nil {
		return
	}
	for i := range msgs {
		m := &msgs[i]
		if m.Kind != jsonrpc.KindResponse {
			continue
		}
		e.mu.Lock()
		req := e.pending[m.ID.String()]
		delete(e.pending, m.ID.String())
		e.mu.Unlock()
		if req != nil {
			e.r.record(req, m)
		}
	}
}

// record keeps what one answered request says of the server.
func (r *Recording) record(req *jsonrpc.Request, resp *jsonrpc.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var res map[string]json.RawMessage
	if resp.Error == nil && json.Unmarshal(resp.Result, &res) != nil {
		return
	}
	switch req.Method {
	case "initialize":
		var info struct {
			ServerInfo   struct{ Name, Version string }
			Instructions string
		}
		_ = json.Unmarshal(resp.Result, &info)
		r.name, r.version, r.instructions = info.ServerInfo.Name, info.ServerInfo.Version, info.Instructions
	case "server/discover": // 2026-07-28: serverInfo is in _meta
		var info struct {
			Meta struct {
				ServerInfo struct{ Name, Version string } `json:"io.modelcontextprotocol/serverInfo"`
			} `json:"_meta"`
			Instructions string
		}
		_ = json.Unmarshal(resp.Result, &info)
		r.name, r.version, r.instructions = info.Meta.ServerInfo.Name, info.Meta.ServerInfo.Version, info.Instructions
	case "tools/list":
		for _, def := range entries(res["tools"]) {
			t := find(r.tools, def, "name", func(t *toolSeen) map[string]json.RawMessage { return t.def })
			if t == nil {
				r.tools = append(r.tools, &toolSeen{def: def})
			} else {
				t.def = def
			}
		}
	case "resources/list":
		r.resources = mergeResources(r.resources, entries(res["resources"]), "uri")
	case "resources/templates/list":
		r.templates = mergeResources(r.templates, entries(res["resourceTemplates"]), "uriTemplate")
	case "prompts/list":
		for _, def := range entries(res["prompts"]) {
			if p := find(r.prompts, def, "name", func(p *promptSeen) map[string]json.RawMessage { return p.def }); p == nil {
				r.prompts = append(r.prompts, &promptSeen{def: def})
			} else {
				p.def = def
			}
		}
	case "tools/call":
		r.recordCall(req, resp)
	case "resources/read":
		r.recordRead(req, res)
	case "prompts/get":
		var p struct{ Name string }
		_ = json.Unmarshal(req.Params, &p)
		for _, ps := range r.prompts {
			if str(ps.def["name"]) == p.Name && ps.messages == nil && res != nil {
				ps.messages = res["messages"]
			}
		}
	default:
		return
	}
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *Recording) recordCall(req *jsonrpc.Request, resp *jsonrpc.Message) {
	var p struct {
		Name      string
		Arguments json.RawMessage
	}
	if json.Unmarshal(req.Params, &p) != nil || p.Name == "" {
		return
	}
	c := call{args: canonical(p.Arguments), err: resp.Error}
	if resp.Error == nil {
		c.result = resp.Result
	}
	i := slices.IndexFunc(r.tools, func(t *toolSeen) bool { return str(t.def["name"]) == p.Name })
	if i < 0 { // called before it was listed: known by its name only
		name, _ := json.Marshal(p.Name)
		r.tools = append(r.tools, &toolSeen{def: map[string]json.RawMessage{"name": name}})
		i = len(r.tools) - 1
	}
	t := r.tools[i]
	if j := slices.IndexFunc(t.calls, func(k call) bool { return string(k.args) == string(c.args) }); j >= 0 {
		t.calls[j] = c
		return
	}
	t.calls = append(t.calls, c)
}

func (r *Recording) recordRead(req *jsonrpc.Request, res map[string]json.RawMessage) {
	var p struct{ URI string }
	_ = json.Unmarshal(req.Params, &p)
	var contents []json.RawMessage
	if json.Unmarshal(res["contents"], &contents) != nil || len(contents) == 0 {
		return
	}
	for _, rs := range r.resources {
		if str(rs.def["uri"]) == p.URI {
			rs.contents = contents[0]
			return
		}
	}
	// Read in a session that never listed it (a client that knew the URI): kept all the
	// same, named by its URI until a list says more, so the replay answers the read.
	uri, _ := json.Marshal(p.URI)
	def := map[string]json.RawMessage{"uri": uri, "name": uri}
	var item struct {
		MimeType json.RawMessage `json:"mimeType"`
	}
	if json.Unmarshal(contents[0], &item) == nil && item.MimeType != nil {
		def["mimeType"] = item.MimeType
	}
	r.resources = append(r.resources, &resourceSeen{def: def, contents: contents[0]})
}

// entries decodes a list's entries.
func entries(raw json.RawMessage) []map[string]json.RawMessage {
	var out []map[string]json.RawMessage
	_ = json.Unmarshal(raw, &out)
	return out
}

// find is the item whose key equals def's, or nil.
func find[T any](items []T, def map[string]json.RawMessage, key string, defOf func(T) map[string]json.RawMessage) T {
	var zero T
	for _, it := range items {
		if str(defOf(it)[key]) == str(def[key]) {
			return it
		}
	}
	return zero
}

func mergeResources(have []*resourceSeen, listed []map[string]json.RawMessage, key string) []*resourceSeen {
	for _, def := range listed {
		if rs := find(have, def, key, func(r *resourceSeen) map[string]json.RawMessage { return r.def }); rs != nil {
			rs.def = def
			continue
		}
		have = append(have, &resourceSeen{def: def})
	}
	return have
}

// str is a JSON string's value, "" for anything else.
func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// canonical is a JSON value with object keys sorted and no spaces: the same arguments written
// two ways are one call.
func canonical(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage(`{}`)
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, _ := json.Marshal(v)
	return b
}

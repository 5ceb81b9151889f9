package mcp

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/octo-run/octo/mcp/jsonrpc"
)

// Probe is told how one request ended; the runtime's probes (runtime.Probe) have this shape,
// so the MCP blocks hand theirs in.
type Probe interface {
	// Done records a request begun at start: fail is "" when it was answered with a result,
	// else one word of a fixed set (see failure).
	Done(start time.Time, fail string)
}

// Probes gives the probe of requests for method, and for tools/call of one tool (tool is ""
// for other methods). The server asks for each method's once, and for a tool's the first time
// a call of it is answered, so a request costs no lookup of its labels but a tool's.
type Probes func(method, tool string) Probe

// otherMethod labels the methods a server does not serve: clients choose their names, and
// labels must stay bounded.
const otherMethod = "other"

// coreOrder numbers the core methods, for coreIndex.
var coreOrder = [...]string{"initialize", "ping", "tools/list", "tools/call", "resources/list",
	"resources/templates/list", "resources/read", "prompts/list", "prompts/get"}

// coreIndex is method's place in coreOrder, or -1: a switch, so the busiest requests find their
// probe without hashing their method's name.
func coreIndex(method string) int {
	switch method {
	case "initialize":
		return 0
	case "ping":
		return 1
	case "tools/list":
		return 2
	case "tools/call":
		return 3
	case "resources/list":
		return 4
	case "resources/templates/list":
		return 5
	case "resources/read":
		return 6
	case "prompts/list":
		return 7
	case "prompts/get":
		return 8
	}
	return -1
}

// probes holds a server's probes, made once.
type probeSet struct {
	once    sync.Once
	core    [len(coreOrder)]Probe
	methods map[string]Probe // each handler's, and otherMethod
	tools   atomic.Pointer[toolProbes]
	mu      sync.Mutex // adds tools one at a time
}

// toolProbes are the probes of the tools called so far; a new tool copies them.
type toolProbes struct {
	slot   map[string]int32 // 1 + the tool's place in probes
	probes []Probe
}

// probe returns the probe of a request for method, or nil when the server is not observed.
func (s *Server) probe(method string) Probe {
	if s.Probes == nil {
		return nil
	}
	p := &s.probeSet
	p.once.Do(func() {
		for i, m := range coreOrder {
			p.core[i] = s.Probes(m, "")
		}
		p.methods = make(map[string]Probe, len(s.Handlers)+1)
		for m := range s.Handlers {
			p.methods[m] = s.Probes(m, "")
		}
		p.methods[otherMethod] = s.Probes(otherMethod, "")
		p.tools.Store(&toolProbes{})
	})
	if i := coreIndex(method); i >= 0 {
		return p.core[i]
	}
	if pr, ok := p.methods[method]; ok {
		return pr
	}
	return p.methods[otherMethod]
}

// toolSlot returns the slot of tool's probe (RequestContext.tool), made on its first call.
func (s *Server) toolSlot(tool string) int32 {
	p := &s.probeSet
	if i, ok := p.tools.Load().slot[tool]; ok {
		return i
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.tools.Load()
	if i, ok := old.slot[tool]; ok {
		return i
	}
	next := &toolProbes{slot: make(map[string]int32, len(old.slot)+1), probes: append(old.probes[:len(old.probes):len(old.probes)], s.Probes("tools/call", tool))}
	for k, v := range old.slot {
		next.slot[k] = v
	}
	next.slot[tool] = int32(len(next.probes))
	p.tools.Store(next)
	return next.slot[tool]
}

// observe records how a request ended: by its tool when it called a tool the server has, by
// its method otherwise.
func (s *Server) observe(pr Probe, start time.Time, rc *RequestContext, resp *jsonrpc.Response) {
	if rc.tool > 0 {
		pr = s.probeSet.tools.Load().probes[rc.tool-1]
	}
	pr.Done(start, failure(resp, rc))
}

// failure names how a request failed: its JSON-RPC error's, or "tool error" for a tool's
// isError result; "" when it succeeded.
func failure(resp *jsonrpc.Response, rc *RequestContext) string {
	if resp.Error == nil {
		if rc.toolError {
			return "tool error"
		}
		return ""
	}
	switch resp.Error.Code {
	case jsonrpc.CodeParseError:
		return "parse error"
	case jsonrpc.CodeInvalidRequest:
		return "invalid request"
	case jsonrpc.CodeMethodNotFound:
		return "method not found"
	case jsonrpc.CodeInvalidParams:
		return "invalid params"
	case jsonrpc.CodeInternalError:
		return "internal error"
	case jsonrpc.CodeResourceNotFound:
		return "resource not found"
	}
	return "error"
}

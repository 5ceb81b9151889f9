package runtime

import (
	"context"
	"time"
)

// Observer is told how the things a service runs went, for metrics: each flow and block run,
// the operations a block declares (an MCP server's methods and tools) and a connector's levels
// and refusals. The runtime never imports a metrics library; ops implements Observer with the
// Prometheus client. Everything is asked for once, when a service is built, so observing a
// message costs no lookup: a probe is bound to its labels already.
type Observer interface {
	// Probe returns the probe of the runs of what key names.
	Probe(key Key) Probe
	// Gauge returns a level that goes up and down (requests in flight).
	Gauge(key Key) Gauge
	// Counter returns a count of events (requests refused).
	Counter(key Key) Counter
}

// Key names what an Observer observes: a kind (a metric's family) and labels from the config,
// never from a request (so the number of series stays bounded by the config).
type Key struct {
	// Kind is what is observed: ProbeFlow, ProbeBlock, or a name a block or connector chose
	// ("mcp", "http_in_flight", "http_rejected").
	Kind string
	// Service, Flow and Block (an address, flows.mcp.process[0]) and Type (the block type)
	// say where; Name is the block's name (its name key), Tool the tool whose branch it is in
	// (BranchNamer); a block's own operations fill what they need of Method, Target and Reason.
	Service, Flow, Block, Type string
	Name, Tool                 string
	// Connector names a connector for its own kinds.
	Connector string
	// Method and Target name an operation and what it acts on (an MCP method and a tool).
	Method, Target string
	// Reason says why an event happened (a refusal's cause).
	Reason string
}

// The kinds the runtime observes itself.
const (
	ProbeFlow  = "flow"
	ProbeBlock = "block"
)

// Probe records runs of one thing.
type Probe interface {
	// Done records a run that began at start: fail is "" when it succeeded, else what went
	// wrong, a short word from a fixed set (an ErrorKind's name).
	Done(start time.Time, fail string)
}

// Gauge is a level.
type Gauge interface{ Add(delta float64) }

// Counter counts events.
type Counter interface{ Inc() }

// probed runs a block and records each run with its probe: the runtime's one place of
// observation, so every block of every flow is measured alike and blocks measure nothing.
type probed struct {
	*step
	probe Probe
}

func (p probed) Process(ctx context.Context, m *Message) (*Message, error) {
	start := time.Now()
	out, err := p.step.Process(ctx, m)
	p.probe.Done(start, failure(err))
	return out, err
}

// failure is how an error is counted: "" for none, else the name of its kind.
func failure(err error) string {
	if err == nil {
		return ""
	}
	return ErrorOf(err).Kind.String()
}

// Probe returns a probe of the block's own operations of kind (an MCP server's methods and
// tools: kind "mcp", method and target), labelled with the block's service, flow, address and
// type; nil when the service is built without an Observer. Ask for it while building, or keep
// the func from Probes to ask later for targets only known then.
func (b *Build) Probe(kind, method, target string) Probe {
	if p := b.Probes(kind); p != nil {
		return p(method, target)
	}
	return nil
}

// Probes returns what makes the probes of the block's operations of kind (see Probe), for use
// after the build too; nil when the service is built without an Observer.
func (b *Build) Probes(kind string) func(method, target string) Probe {
	o := b.bd.observer
	if o == nil {
		return nil
	}
	key := Key{Kind: kind, Service: b.bd.cfg.Service.Name, Flow: b.Flow, Block: b.addr, Type: b.Type}
	return func(method, target string) Probe {
		k := key
		k.Method, k.Target = method, target
		return o.Probe(k)
	}
}

// Gauge returns a level of kind kept by the connector (requests in flight); nil when the
// service is built without an Observer.
func (c *ConnectorBuild) Gauge(kind string) Gauge {
	if c.bd.observer == nil {
		return nil
	}
	return c.bd.observer.Gauge(c.key(kind, ""))
}

// Counter returns a count of kind kept by the connector, for reason (a refusal's cause); nil
// when the service is built without an Observer.
func (c *ConnectorBuild) Counter(kind, reason string) Counter {
	if c.bd.observer == nil {
		return nil
	}
	return c.bd.observer.Counter(c.key(kind, reason))
}

func (c *ConnectorBuild) key(kind, reason string) Key {
	return Key{Kind: kind, Service: c.bd.cfg.Service.Name, Connector: c.Name, Reason: reason}
}

// observe wraps a built block in its probe when the service has an Observer, and in a span
// when a tracer is installed.
func (bd *builder) observe(s *step, b *Build) Block {
	var blk Block = s
	if bd.observer != nil {
		blk = probed{step: s, probe: bd.observer.Probe(Key{Kind: ProbeBlock, Service: bd.cfg.Service.Name, Flow: b.Flow,
			Block: b.addr, Type: b.Type, Name: s.name, Tool: bd.tool})}
	}
	if _, owns := s.block.(SpanOwner); Tracing() && !owns {
		name := s.typ
		if s.name != "" {
			name += " " + s.name
		}
		blk = traced{Block: blk, span: NewSpanType(name, SpanInternal, b.SpanAttrs()...)}
	}
	return blk
}

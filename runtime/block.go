package runtime

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// Block processes messages. It is built once from its settings (everything
// compilable is compiled then) and called for every message.
type Block interface {
	Process(ctx context.Context, msg *Message) (*Message, error)
}

// Starter is implemented by blocks and connectors that need to start work
// (listen, fetch keys, watch files) before the service takes traffic.
type Starter interface {
	Start(ctx context.Context) error
}

// Stopper is implemented by blocks and connectors that hold resources. Stop
// must be safe to call without Start having run.
type Stopper interface {
	Stop(ctx context.Context) error
}

// BlockSpec registers a block type.
type BlockSpec struct {
	// Type is the kebab-case name users write as `type:`.
	Type string
	// Summary is one line for `octo blocks`.
	Summary string
	// Composite blocks take keys at the block's top level besides type, name
	// and settings (e.g. mcp-router's tools); others get an error for them.
	Composite bool
	// SharedByName makes blocks of this type with the same name in one
	// service one instance (built once, started once), as several flows
	// serving the paths of one stateful server need; their settings must
	// be the same, else the build fails. Unnamed blocks are never shared.
	SharedByName bool
	// Build compiles a block from its settings; problems are reported on b
	// (or returned) and the block is not used.
	Build func(b *Build) (Block, error)
}

// ConnectorSpec registers a connector type.
type ConnectorSpec struct {
	Type    string
	Summary string
	Build   func(b *ConnectorBuild) (Connector, error)
}

// Connector moves messages between the outside world and flows. Each flow
// whose source names the connector is attached once, before Start.
type Connector interface {
	Attach(src *SourceBuild, flow *Flow) error
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
}

var registry = struct {
	sync.RWMutex
	blocks     map[string]BlockSpec
	connectors map[string]ConnectorSpec
}{blocks: map[string]BlockSpec{}, connectors: map[string]ConnectorSpec{}}

// RegisterBlock adds a block type; call it from the block package's init.
// Registering a name twice is a programming error and panics.
func RegisterBlock(spec BlockSpec) {
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.blocks[spec.Type]; dup {
		panic(fmt.Sprintf("runtime: block type %q registered twice", spec.Type))
	}
	registry.blocks[spec.Type] = spec
}

// RegisterConnector adds a connector type; call it from an init function.
func RegisterConnector(spec ConnectorSpec) {
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.connectors[spec.Type]; dup {
		panic(fmt.Sprintf("runtime: connector type %q registered twice", spec.Type))
	}
	registry.connectors[spec.Type] = spec
}

// BlockTypes lists the registered block types by name.
func BlockTypes() []BlockSpec {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]BlockSpec, 0, len(registry.blocks))
	for _, s := range registry.blocks {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Type < out[j].Type })
	return out
}

// ConnectorTypes lists the registered connector types by name.
func ConnectorTypes() []ConnectorSpec {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]ConnectorSpec, 0, len(registry.connectors))
	for _, s := range registry.connectors {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Type < out[j].Type })
	return out
}

func lookupBlock(name string) (BlockSpec, bool) {
	registry.RLock()
	defer registry.RUnlock()
	s, ok := registry.blocks[name]
	return s, ok
}

func lookupConnector(name string) (ConnectorSpec, bool) {
	registry.RLock()
	defer registry.RUnlock()
	s, ok := registry.connectors[name]
	return s, ok
}

func blockNames() []string {
	specs := BlockTypes()
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Type
	}
	return names
}

func connectorNames() []string {
	specs := ConnectorTypes()
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Type
	}
	return names
}

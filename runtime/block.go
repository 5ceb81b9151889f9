package runtime

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/octo-run/octo/runtime/config"
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

// Leaver is implemented by connectors that can tell their clients to go elsewhere before the
// service stops (octo run --drain-delay): from Leave on they keep serving, but an http
// connector answers with Connection: close, so a balancer's kept-alive connections end cleanly
// after an answer instead of being cut when the port closes.
type Leaver interface {
	Leave()
}

// Readier is implemented by blocks that act once the whole service serves, every connector
// listening: Start runs before the connectors start, so a block that tells where it can be
// reached (the console writes its login address, through Build.SourceAddr) does it here. A
// failure stops the service as a failed Start does.
type Readier interface {
	Ready(ctx context.Context) error
}

// HeaderReader is implemented by blocks that read request headers of their own (an MCP block
// reads Mcp-Session-Id, Mcp-Method and the Mcp-Param headers its tools mirror): a connector
// answering a browser's CORS preflight lets them through for the block's flow (Flow.Headers).
// It is asked at each preflight, so a block that takes edits in place answers with its
// current list.
type HeaderReader interface {
	ReadsHeaders() []string
}

// Updater is implemented by blocks that take edited settings while they serve, keeping what they
// hold (the mock keeps its MCP sessions and tells them what changed). On any reload — --watch,
// SIGHUP, a workspace edit — a build that differs from the running one only in such blocks'
// settings is handed to them (Service.UpdateFrom) instead of replacing the running build.
// Update returns the items it left out (logged by the block), a config.Diags error when the
// settings cannot be used (the running version keeps serving), or ErrRebuild when the edit
// touched what only a new build changes.
type Updater interface {
	Update(Decoded) (left config.Diags, err error)
}

// ErrRebuild says an edit changed settings a running block cannot take in place: the service
// is built anew.
var ErrRebuild = errors.New("these settings change only when the block is built again")

// BlockSpec registers a block type.
type BlockSpec struct {
	// Type is the kebab-case name users write as `type:`.
	Type string
	// Summary is one line for `octo blocks`.
	Summary string
	// Doc is what the block does, in a paragraph or two, for its reference.
	Doc string
	// Example is the block as a user writes it in a process list, in YAML.
	Example string
	// ExampleConnectors are the connectors the Example names, as items of a config's connectors
	// list in YAML ("{ name: bus, type: nats }"): a block that sends through a connector
	// (nats-publish) is shown, and tested, with it.
	ExampleConnectors string
	// Composite blocks take their settings at the block's top level besides type and name
	// (e.g. mcp-router's tools); others take them under settings.
	Composite bool
	// SharedByName makes blocks of this type with the same name in one
	// service one instance (built once, started once), as several flows
	// serving the paths of one stateful server need; their settings must
	// be the same, else the build fails. Unnamed blocks are never shared.
	SharedByName bool
	// Transports are the transports whose typed view the block needs (ConnectorSpec.Transport:
	// "http", "stdio"); empty, it works on any message. A block of this type in a flow whose
	// source's connector gives another transport is a build error.
	Transports []string
	// StreamsOn are the transports on which the block answers with a stream the connector
	// writes for as long as the client stays (a stdio session's lines: mcp-router, mcp-mock).
	// Nothing may follow such a block in a flow whose source gives one of them: a later block
	// would get the stream instead of a message, and the client would wait for answers never
	// written. That is a build error at the later block.
	StreamsOn []string
	// AnswersExchange says the block answers its flow's source itself, beyond the body: an
	// HTTP status and headers (http-response), a whole reply (mcp-router, oauth-metadata). A
	// branch whose blocks' answer is something else (a tool's process, whose body becomes the
	// tool's result: its field is tagged answers:"…") refuses such a block at build, as what
	// it sets would be lost.
	AnswersExchange bool
	// KeepsBody says a block of this type passes the body on as it came (a log, a progress
	// step): where the body's keys are known before it, they are after it too (see body.go).
	KeepsBody bool
	// Build compiles a block from its decoded settings: BlockFunc(build).
	Build BlockBuilder
}

// Settings describes the block's settings type.
func (s BlockSpec) Settings() *SettingsSpec { return s.Build.settings.Spec() }

// BlockBuilder builds a block from its settings once the runtime has decoded and compiled them;
// BlockFunc makes one.
type BlockBuilder struct {
	settings SettingsType
	build    func(b *Build, settings any) (Block, error)
}

// BlockFunc is the builder of a block whose settings are an S: build gets them decoded, defaults
// applied, enums and bounds checked and typed settings compiled, and reports what only it can
// check with b.Errorf. Problems are reported, never panicked; the block is not used when any is.
func BlockFunc[S any](build func(b *Build, s *S) (Block, error)) BlockBuilder {
	return BlockBuilder{settings: SettingsTypeOf[S](), build: func(b *Build, s any) (Block, error) { return build(b, s.(*S)) }}
}

// ConnectorSpec registers a connector type.
type ConnectorSpec struct {
	Type    string
	Summary string
	Doc     string
	Example string
	// Build compiles a connector from its decoded settings: ConnectorFunc(build).
	Build ConnectorBuilder
	// Transport names the typed view the connector sets on the messages it delivers
	// (Message.Transport: "http" for an *httpmsg.Exchange, "stdio" for a *stdiomsg.Event), so
	// a block that needs another is refused at build time; "" promises none.
	Transport string
	// Source names the settings of a flow's source on this connector (SettingsTypeOf), which
	// Attach finds decoded in SourceBuild.Settings; unset when a source takes none.
	Source SettingsType
	// OnePerService says a config may declare one connector of this type: it serves what the
	// process has once (stdio: its standard input and output), so a second could never start.
	OnePerService bool
}

// Settings describes the connector's settings type.
func (s ConnectorSpec) Settings() *SettingsSpec { return s.Build.settings.Spec() }

// ConnectorBuilder builds a connector from its decoded settings; ConnectorFunc makes one.
type ConnectorBuilder struct {
	settings SettingsType
	build    func(c *ConnectorBuild, settings any) (Connector, error)
}

// ConnectorFunc is the builder of a connector whose settings are an S (see BlockFunc).
func ConnectorFunc[S any](build func(c *ConnectorBuild, s *S) (Connector, error)) ConnectorBuilder {
	return ConnectorBuilder{settings: SettingsTypeOf[S](), build: func(c *ConnectorBuild, s any) (Connector, error) { return build(c, s.(*S)) }}
}

// Connector moves messages between the outside world and flows. Each flow
// whose source names the connector is attached once, before Start.
type Connector interface {
	Attach(src *SourceBuild, flow *Flow) error
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
}

// Locator is a connector that can say where a client reaches a flow it serves, once started:
// an http connector's URL with the flow's path. The MCP blocks print it with how to connect.
type Locator interface {
	URLOf(flow string) string
}

var registry = struct {
	sync.RWMutex
	blocks     map[string]BlockSpec
	connectors map[string]ConnectorSpec
	adapters   map[string]AdapterSpec
	cluster    *ClusterSpec
}{blocks: map[string]BlockSpec{}, connectors: map[string]ConnectorSpec{}, adapters: map[string]AdapterSpec{}}

// RegisterBlock adds a block type; call it from the block package's init.
// Registering a name twice is a programming error and panics.
func RegisterBlock(spec BlockSpec) {
	if spec.Type == "" || spec.Build.build == nil {
		panic(fmt.Sprintf("runtime: block type %q registered without a name or a builder (Build: runtime.BlockFunc(build))", spec.Type))
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.blocks[spec.Type]; dup {
		panic(fmt.Sprintf("runtime: block type %q registered twice", spec.Type))
	}
	registry.blocks[spec.Type] = spec
}

// RegisterConnector adds a connector type; call it from an init function.
func RegisterConnector(spec ConnectorSpec) {
	if spec.Type == "" || spec.Build.build == nil {
		panic(fmt.Sprintf("runtime: connector type %q registered without a name or a builder (Build: runtime.ConnectorFunc(build))", spec.Type))
	}
	if spec.Source.spec == nil {
		spec.Source = SettingsTypeOf[struct{}]()
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.connectors[spec.Type]; dup {
		panic(fmt.Sprintf("runtime: connector type %q registered twice", spec.Type))
	}
	registry.connectors[spec.Type] = spec
}

// BlockTypes lists the registered block types by name.
func BlockTypes() []BlockSpec { return byName(registry.blocks) }

// ConnectorTypes lists the registered connector types by name.
func ConnectorTypes() []ConnectorSpec { return byName(registry.connectors) }

// byName returns the specs registered in m, in the order of their names.
func byName[S any](m map[string]S) []S {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]S, 0, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[name])
	}
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

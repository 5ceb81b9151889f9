package runtime

import (
	"fmt"
	"log/slog"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/config"
)

// AdapterSpec registers a config adapter: a folder format (a workspace of saved mock servers)
// that the adapter turns into the runtime's config model. Its files' settings types are
// described as blocks' are, for the reference and the schema.
type AdapterSpec struct {
	Type    string
	Summary string
	Files   []AdapterFile
	// Is reports whether a --config path is a folder in this format (octo run, octo validate);
	// nil for an adapter whose files are not a config to serve (octo test's cases).
	Is func(path string) bool
	// Open reads such a folder as the units it declares, served and reloaded as any config's
	// (runtime/reload). The source may also say what became of its units in its own words
	// (reload.Teller).
	Open func(path string, o AdapterOptions) (UnitSource, error)
	// Validate builds every unit of such a folder without serving it, and returns the titles
	// of those that build cleanly and every problem.
	Validate func(path string) ([]string, config.Diags)
}

// AdapterOptions are what a command hands an adapter's Open.
type AdapterOptions struct {
	// Logger is the command's: what the source says of its units goes there.
	Logger *slog.Logger
}

// AdapterFile is one kind of file an adapter reads.
type AdapterFile struct {
	// Name is what `octo schema NAME` and the reference call the file (server, workspace).
	Name string
	// Pattern names the files, relative to the adapter's folder: workspace.yaml, servers/*.yaml.
	Pattern  string
	Doc      string
	Settings SettingsType
}

// RegisterAdapter adds a config adapter; call it from the adapter package's init.
func RegisterAdapter(spec AdapterSpec) {
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.adapters[spec.Type]; dup || spec.Type == "" {
		panic(fmt.Sprintf("runtime: config adapter %q registered twice or without a name", spec.Type))
	}
	if spec.Is != nil && (spec.Open == nil || spec.Validate == nil) {
		panic(fmt.Sprintf("runtime: config adapter %q tells its folders (Is) but cannot Open or Validate them", spec.Type))
	}
	registry.adapters[spec.Type] = spec
}

// AdapterTypes lists the registered config adapters by name.
func AdapterTypes() []AdapterSpec { return byName(registry.adapters) }

// AdapterOf returns the adapter whose format the --config path is, if any: a flow config is
// none.
func AdapterOf(path string) (AdapterSpec, bool) {
	for _, spec := range AdapterTypes() {
		if spec.Is != nil && spec.Is(path) {
			return spec, true
		}
	}
	return AdapterSpec{}, false
}

// Decoded is a block's settings decoded by a config adapter outside a service build, for a
// running block to take in place (a live edit): the settings and where each was written.
type Decoded struct {
	Settings  any // a pointer to the block's settings type
	Positions *Positions
}

// DecodeBlockSettings decodes n as the settings of block type blockType, located at `at`, as a
// build would but outside one: there are no variables, template resources or branches.
func DecodeBlockSettings(blockType string, n *yaml.Node, at Where) (Decoded, config.Diags) {
	spec, ok := lookupBlock(blockType)
	if !ok {
		return Decoded{}, config.Diags{{File: at.File, Path: at.Path, Msg: config.Unknown("block type", blockType, blockNames())}}
	}
	so := &settingsOf{bd: &builder{cfg: &config.Config{}}}
	owner := n
	if owner == nil {
		owner = &yaml.Node{}
	}
	settings, _ := so.decode(spec.Settings(), n, at, owner, nil)
	if len(so.bd.diags) > 0 {
		return Decoded{}, so.bd.diags
	}
	return Decoded{Settings: settings, Positions: so.pos}, nil
}

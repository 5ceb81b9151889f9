package runtime

import (
	"fmt"

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
}

// AdapterFile is one kind of file an adapter reads.
type AdapterFile struct {
	// Name is what `octo schema NAME` and the reference call the file (server, workspace).
	Name string
	// Pattern names the files, relative to the adapter's folder: workspace.yaml, servers/*.yaml.
	Pattern  string
	Doc      string
	Settings *SettingsSpec
}

// RegisterAdapter adds a config adapter; call it from the adapter package's init.
func RegisterAdapter(spec AdapterSpec) {
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.adapters[spec.Type]; dup || spec.Type == "" {
		panic(fmt.Sprintf("runtime: config adapter %q registered twice or without a name", spec.Type))
	}
	registry.adapters[spec.Type] = spec
}

// AdapterTypes lists the registered config adapters by name.
func AdapterTypes() []AdapterSpec { return byName(registry.adapters) }

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

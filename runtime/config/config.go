// Package config owns the user's YAML: it finds the files of a config, parses them keeping every
// node's position, interpolates `${VAR}`, checks the shape of the document (sections, required
// keys, duplicate names, references between items) and offers the strict decoder the runtime
// decodes every component's settings with: struct tags give keys, docs, defaults, enums and
// bounds (fields.go), and a table keeps where each decoded field was written (positions.go).
// Every problem is reported at once, as `file:line:col: path (kind "name"): what is wrong`.
//
// It must not import other octo packages and knows nothing of HTTP, MCP or any block type:
// settings and the extra keys of composite blocks are kept as *yaml.Node for the runtime, which
// decides what each block accepts.
package config

import "gopkg.in/yaml.v3"

// Config is one loaded configuration, possibly spread over several files of a folder.
type Config struct {
	Dir        string   // resources are read relative to it
	Files      []string // the YAML files read, in order
	Service    Service
	Env        []EnvVar
	Templates  map[string]*Template // by alias
	Connectors []*Connector
	Flows      []*Flow
	// Interpolated holds, for each scalar whose `${VAR}`s were replaced, the text as written:
	// expressions and templates are compiled from it, taking each variable as a value.
	Interpolated map[*yaml.Node]Interpolation
	// Sources holds the text of each file read, for positions inside a setting's text.
	Sources Sources
	// Missing, on a config LoadPartial returned with problems, says which names may be declared
	// in the parts it left out.
	Missing Missing
}

// Service names the running service.
type Service struct {
	Name string
	At   Where
	Node *yaml.Node // nil when no file has a service section
	// Cluster is the service's cluster section, nil when it has none.
	Cluster *yaml.Node
	// Tracing is the service's tracing section, nil when it has none.
	Tracing *TracingKeys
}

// EnvVar is a declared variable, usable as `${NAME}` in values.
type EnvVar struct {
	Name        string
	Default     *string // nil when there is none
	Description string
	At          Where
	Node        *yaml.Node
}

// Template is a text resource read from a file beside the config.
type Template struct {
	Alias string
	File  string // the path read, relative as the config path was given
	Text  string
	At    Where
	Node  *yaml.Node
}

// Connector is a declared connector; its settings are decoded by its type.
type Connector struct {
	Name, Type string
	Settings   *yaml.Node // nil when absent
	At         Where
	Node       *yaml.Node
}

// Flow binds a source on a connector to a process pipeline.
type Flow struct {
	Name    string
	Source  Source
	Process []*Block
	At      Where
	Node    *yaml.Node
}

// Source is where a flow's messages come from.
type Source struct {
	Connector, Type string
	Settings        *yaml.Node // nil when absent
	At              Where
	Node            *yaml.Node
}

// Block is one step of a process list.
type Block struct {
	Type, Name string
	Settings   *yaml.Node // nil when absent
	Extra      []Field    // other top-level keys, in order, for composite blocks
	At         Where
	Node       *yaml.Node
	// SettingsAt locates Settings when they are not At's settings key: a config adapter sets it
	// for settings written elsewhere in its files (a saved server's mcp section).
	SettingsAt Where
}

// Field is one extra key of a block with its value.
type Field struct {
	Key            string
	KeyNode, Value *yaml.Node
}

package config

import "gopkg.in/yaml.v3"

// The keys of a config file, as users write them. The loader decodes each section and item into
// these types, and their tags document every key, so `octo schema` and the reference describe
// the file from the types that read it. A value the loader reads item by item, to name each
// item in diagnostics, or leaves to the runtime (a component's settings, a list of blocks) is
// kept as a *yaml.Node: the schema says what it holds.

// FileKeys are the sections of one config file. Every section is optional: the files of a folder
// together form one config.
type FileKeys struct {
	Service    ServiceKeys     `yaml:"service" doc:"Names the service in logs. At most one file of a folder has this section."`
	Env        []EnvKeys       `yaml:"env" doc:"The variables that values use as ${NAME}, each with an optional default; the process environment wins over the default."`
	Resources  ResourcesKeys   `yaml:"resources" doc:"Files beside the config that blocks use by alias."`
	Connectors []ConnectorKeys `yaml:"connectors" doc:"Where messages come from: each connector has a name, a type and the settings of that type."`
	Flows      []FlowKeys      `yaml:"flows" doc:"Each flow binds a source on a connector to a process list of blocks."`
}

// ServiceKeys are the keys of the service section.
type ServiceKeys struct {
	Name string `yaml:"name" doc:"The service's name, for logs." example:"weather"`
	// Cluster is decoded by the cluster provider this octo is built with (runtime.RegisterCluster).
	Cluster *yaml.Node   `yaml:"cluster" doc:"The cluster the replicas of this service share state through (NATS JetStream): where MCP tasks live, so that any replica answers for any task and a task whose replica dies is run by another. Its keys are under service.cluster below. Without it, every replica keeps its own, as one process does."`
	Tracing *TracingKeys `yaml:"tracing" doc:"Export OpenTelemetry traces of the requests served, the flows and blocks they ran and the calls made, over OTLP/HTTP. Its keys win over the OTEL_* variables that say the same; the others (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_TIMEOUT…) still apply, and OTEL_SDK_DISABLED=true turns tracing off. Without it, the OTEL_* variables alone decide."`
}

// TracingKeys are the keys of service.tracing.
type TracingKeys struct {
	Endpoint    string            `yaml:"endpoint" octo:"required" doc:"The collector's OTLP/HTTP address, as OTEL_EXPORTER_OTLP_ENDPOINT takes it: spans are posted to its path /v1/traces." example:"http://127.0.0.1:4318"`
	Headers     map[string]string `yaml:"headers" doc:"Headers sent with every export, such as a vendor's API key; write secrets as ${VARIABLES}."`
	SampleRatio *float64          `yaml:"sampleRatio" min:"0" max:"1" doc:"The share of the traces started here that are recorded, from 0 to 1 (1 when left out); a request whose caller sent a traceparent follows the caller's choice." example:"0.25"`
}

// EnvKeys are the keys of one env item.
type EnvKeys struct {
	Name        string  `yaml:"name" octo:"required" doc:"The variable's name: letters, digits and _, not starting with a digit; used as ${NAME}." example:"HTTP_PORT"`
	Default     *string `yaml:"default" doc:"The value when the process environment does not set the variable; without one, an unset variable that is used is an error." example:"8080"`
	Description string  `yaml:"description" doc:"What the variable is for, for people reading the config."`
}

// ResourcesKeys are the keys of the resources section.
type ResourcesKeys struct {
	Templates *yaml.Node `yaml:"templates" doc:"Text files read once at start, each named by an alias that blocks use (an mcp-router resource or prompt)."`
}

// TemplateKeys are the keys of one resources.templates item.
type TemplateKeys struct {
	Resource string `yaml:"resource" octo:"required" doc:"The file, relative to the config's folder (or absolute); at most 16 MiB." example:"guide.md"`
	As       string `yaml:"as" octo:"required" doc:"The alias blocks name the template by, unique in the config." example:"guide"`
}

// ConnectorKeys are the keys of one connectors item.
type ConnectorKeys struct {
	Name     string     `yaml:"name" octo:"required" doc:"The connector's name, unique in the config; a flow's source names it." example:"api"`
	Type     string     `yaml:"type" octo:"required" doc:"The connector type (http, stdio)." example:"http"`
	Settings *yaml.Node `yaml:"settings" doc:"The connector's settings, as its type takes them."`
}

// FlowKeys are the keys of one flows item.
type FlowKeys struct {
	Name    string     `yaml:"name" octo:"required" doc:"The flow's name, unique in the config; logs and diagnostics use it." example:"mcp"`
	Source  *yaml.Node `yaml:"source" octo:"required" doc:"Where the flow's messages come from: a connector and the source settings its type takes."`
	Process *yaml.Node `yaml:"process" doc:"The blocks each message passes through, in order; the last one's message is the answer."`
}

// SourceKeys are the keys of a flow's source.
type SourceKeys struct {
	Connector string     `yaml:"connector" octo:"required" doc:"The name of the connector the flow takes its messages from." example:"api"`
	Type      string     `yaml:"type" doc:"The connector's type, written for readers (and so the schema knows the settings); it must match the connector's." example:"http"`
	Settings  *yaml.Node `yaml:"settings" doc:"The source's settings, as the connector's type takes them (an http path)."`
}

// BlockKeys are the keys every item of a process list takes. The loader reads them itself,
// because a composite block's other keys are its settings.
type BlockKeys struct {
	Type     string     `yaml:"type" octo:"required" doc:"The block type." example:"set-payload"`
	Name     string     `yaml:"name" doc:"A name for logs and diagnostics; blocks of a shared type (mcp-mock) with one name are one instance."`
	Settings *yaml.Node `yaml:"settings" doc:"The block's settings, as its type takes them; a composite block (mcp-router) takes its keys beside type and name instead."`
}

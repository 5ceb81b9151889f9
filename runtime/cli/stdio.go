package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// stdioType is the connector type and transport `--stdio` serves a flow on: standard input
// and output, one message per line (connectors/stdio, registered by name like any other).
const stdioType = "stdio"

// ServeOnStdio rewrites cfg for `run --stdio` (and `validate --stdio`, `test --stdio`): the
// one flow whose process holds a block that answers on stdio (mcp-router, mcp-mock) takes its
// messages from a stdio connector instead of its own source, so an MCP client that starts octo
// as a command talks to it over the pipe. The other flows keep their sources (a backend API on http keeps serving); a connector
// left with no flow is dropped, so a port it would have bound stays free. It returns the name
// of the stdio connector.
func ServeOnStdio(cfg *config.Config) (string, error) {
	flow, err := stdioFlow(cfg)
	if err != nil {
		return "", err
	}
	if spec, ok := connectorType(cfg, flow.Source.Connector); ok && spec == stdioType {
		return flow.Source.Connector, nil // already served on stdio
	}
	for _, c := range cfg.Connectors {
		if c.Type == stdioType {
			return "", config.Diags{c.At.Diag(c.Node, "--stdio serves the flow "+strconv.Quote(flow.Name)+
				" on standard input and output, which this connector serves already; take it out, or run without --stdio")}
		}
	}
	name := uniqueConnectorName(cfg, stdioType)
	was := flow.Source.Connector
	cfg.Connectors = append(cfg.Connectors, &config.Connector{Name: name, Type: stdioType,
		At: flow.Source.At, Node: flow.Source.Node})
	flow.Source = config.Source{Connector: name, Type: stdioType, At: flow.Source.At, Node: flow.Source.Node}
	if !slices.ContainsFunc(cfg.Flows, func(f *config.Flow) bool { return f.Source.Connector == was }) {
		cfg.Connectors = slices.DeleteFunc(cfg.Connectors, func(c *config.Connector) bool { return c.Name == was })
	}
	return name, nil
}

// ownStdio is the name of the config's own stdio connector when a flow takes its messages from
// it, else "": a session on standard input and output ends when the client closes its end, and
// the process with it, as under --stdio (an API flow on another connector ends with it).
func ownStdio(cfg *config.Config) string {
	for _, f := range cfg.Flows {
		if t, ok := connectorType(cfg, f.Source.Connector); ok && t == stdioType {
			return f.Source.Connector
		}
	}
	return ""
}

// stdioFlow finds the one flow whose process holds a block that answers on stdio.
func stdioFlow(cfg *config.Config) (*config.Flow, error) {
	speaks := map[string]bool{}
	for _, spec := range runtime.BlockTypes() {
		speaks[spec.Type] = slices.Contains(spec.Transports, stdioType)
	}
	var found []*config.Flow
	var types []string
	for _, f := range cfg.Flows {
		for _, b := range f.Process {
			if speaks[b.Type] {
				found = append(found, f)
				types = append(types, b.Type)
				break
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		var kinds []string
		for t, ok := range speaks {
			if ok {
				kinds = append(kinds, t)
			}
		}
		slices.Sort(kinds)
		return nil, fmt.Errorf("--stdio serves a flow that answers over standard input and output, and no flow of %s holds a block that does (%s)",
			cfgName(cfg), strings.Join(kinds, ", "))
	}
	names := make([]string, len(found))
	for i, f := range found {
		names[i] = strconv.Quote(f.Name)
	}
	var ds config.Diags
	for i, f := range found {
		ds = append(ds, f.At.Diag(f.Node, fmt.Sprintf("--stdio serves one flow over standard input and output, and flows %s "+
			"each hold a block that answers on it (here %s); keep one in this config, or serve it from a config of its own",
			strings.Join(names, " and "), types[i])))
	}
	return nil, ds
}

func connectorType(cfg *config.Config, name string) (string, bool) {
	for _, c := range cfg.Connectors {
		if c.Name == name {
			return c.Type, true
		}
	}
	return "", false
}

// uniqueConnectorName is base, or base-2, base-3… when a connector has that name already.
func uniqueConnectorName(cfg *config.Config, base string) string {
	name := base
	for i := 2; slices.ContainsFunc(cfg.Connectors, func(c *config.Connector) bool { return c.Name == name }); i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	return name
}

func cfgName(cfg *config.Config) string {
	if len(cfg.Files) == 1 {
		return cfg.Files[0]
	}
	return cfg.Dir
}

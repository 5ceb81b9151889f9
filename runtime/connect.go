package runtime

import (
	"log/slog"
	"strconv"

	"github.com/octo-run/octo/runtime/config"
)

// ConnectorBuild is what a connector's constructor gets besides its settings.
type ConnectorBuild struct {
	Name string
	At   Where
	settingsOf
}

// Logger returns a logger naming the connector.
func (c *ConnectorBuild) Logger() *slog.Logger {
	return c.bd.logger.With("connector", c.Name)
}

// SourceBuild is what a connector gets when a flow attaches to it: the source's settings,
// decoded into the connector's Source type.
type SourceBuild struct {
	Flow string
	At   Where
	settingsOf
	settings any
}

// Settings returns the source's decoded settings: a pointer to the connector's Source type.
func (s *SourceBuild) Settings() any { return s.settings }

// buildConnector builds the connector cc declares; ok is false when it has problems, which are
// reported.
func (bd *builder) buildConnector(cc *config.Connector) (conn Connector, spec ConnectorSpec, ok bool) {
	spec, ok = lookupConnector(cc.Type)
	if !ok {
		bd.report(cc.Node, cc.At.Field("type"), "%s", config.Unknown("connector type", cc.Type, connectorNames()))
		return nil, spec, false
	}
	if !bd.onePerService(cc, spec) {
		return nil, spec, false
	}
	cb := &ConnectorBuild{Name: cc.Name, At: cc.At, settingsOf: newSettingsOf(bd)}
	before := len(bd.diags)
	settings, ok := cb.decode(spec.Settings(), cc.Settings, cc.At.Field("settings"), cc.Node, nil)
	if !ok {
		return nil, spec, false
	}
	conn, err := spec.Build.build(cb, settings)
	switch {
	case err != nil:
		bd.fail(cc.Node, cc.At, err)
		return nil, spec, false
	case conn == nil:
		bd.report(cc.Node, cc.At, "connector type %s built no connector and returned no error (a bug in the connector: its build must return c.Err())", cc.Type)
		return nil, spec, false
	}
	return conn, spec, len(bd.diags) == before
}

// onePerService reports a second connector of a OnePerService type, at its type.
func (bd *builder) onePerService(cc *config.Connector, spec ConnectorSpec) bool {
	if !spec.OnePerService {
		return true
	}
	first := bd.single[spec.Type]
	if first == nil {
		if bd.single == nil {
			bd.single = map[string]*config.Connector{}
		}
		bd.single[spec.Type] = cc
		return true
	}
	where := first.At.File
	if first.Node != nil {
		where += ":" + strconv.Itoa(first.Node.Line)
	}
	bd.report(cc.Node, cc.At.Field("type"), "a config has one connector of type %s, and connector %q (%s) is it: "+
		"it serves what the process has once; attach the flow there, or serve it from a config of its own",
		spec.Type, first.Name, where)
	return false
}

// attach decodes a flow's source settings into the connector's Source type and attaches the
// flow; problems are reported.
func (bd *builder) attach(conn Connector, spec ConnectorSpec, fc *config.Flow, flow *Flow) {
	src := &SourceBuild{Flow: fc.Name, At: fc.Source.At, settingsOf: newSettingsOf(bd)}
	settings, ok := src.decode(spec.Source.Spec(), fc.Source.Settings, fc.Source.At.Field("settings"), fc.Source.Node, nil)
	if !ok {
		return
	}
	src.settings = settings
	if err := conn.Attach(src, flow); err != nil {
		bd.fail(fc.Source.Node, fc.Source.At, err)
	}
}

package runtime

import (
	"slices"
	"strings"

	"github.com/octo-run/octo/runtime/config"
)

// flowSource is what the blocks of a flow can know of its source at build time: the connector
// and the transport whose typed view its messages carry.
type flowSource struct {
	connector, typ, transport string
}

// sourceOf finds the source of flow fc among the connectors built so far; zero when its
// connector is unknown or failed to build (that is reported on its own).
func sourceOf(fc *config.Flow, specs map[string]ConnectorSpec) flowSource {
	spec, ok := specs[fc.Source.Connector]
	if !ok {
		return flowSource{}
	}
	return flowSource{connector: fc.Source.Connector, typ: spec.Type, transport: spec.Transport}
}

// checkTransport reports a block that needs a transport its flow's source does not give:
// jwt-validate behind a stdio connector has no request headers to read, ever.
func (bd *builder) checkTransport(spec BlockSpec, cb *config.Block) {
	src := bd.source
	if len(spec.Transports) == 0 || src.transport == "" || slices.Contains(spec.Transports, src.transport) {
		return
	}
	bd.report(cb.Node, cb.At.Field("type"), "needs messages from a connector of type %s; the flow's source, connector %q, is of type %s",
		strings.Join(spec.Transports, " or "), src.connector, src.typ)
}

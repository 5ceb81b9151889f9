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

// checkAnswers reports cb when it answers its flow's exchange itself in a branch whose answer
// is something else (BlockSpec.AnswersExchange): a tool branch's http-response would add its
// headers to the MCP answer of the call and lose its status.
func (bd *builder) checkAnswers(spec BlockSpec, cb *config.Block) {
	if bd.answers == "" || !spec.AnswersExchange {
		return
	}
	bd.report(cb.Node, cb.At.Field("type"), "answers the flow's exchange itself, but the blocks of this process answer with %s, not an HTTP reply: "+
		"what it sets would be lost; leave it out, or end the call with a fail block", bd.answers)
}

// checkFollows reports cb when the block before it answers this flow's source with a stream
// (BlockSpec.StreamsOn): cb would get that stream, and the client would wait for ever.
func (bd *builder) checkFollows(prev, cb *config.Block) {
	spec, ok := lookupBlock(prev.Type)
	src := bd.source
	if !ok || src.transport == "" || !slices.Contains(spec.StreamsOn, src.transport) {
		return
	}
	bd.report(cb.Node, cb.At.Field("type"), "follows %s, which answers the flow's %s source (connector %q) with the session's stream of messages: "+
		"a block after it would get that stream and the client no answers; move this block before %s, or end the flow there",
		prev.Type, src.typ, src.connector, prev.Type)
}

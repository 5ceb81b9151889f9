// Package mcp is the transport-free core of the Model Context Protocol as octo
// serves it: JSON-RPC 2.0 messages and error codes, protocol versions and their
// negotiation, the method dispatcher over small tool, resource and prompt
// providers, input-schema validation, RFC 6570 level-1 URI templates, and the
// Streamable HTTP rules a stateless server needs.
//
// It owns the protocol and nothing else: it must not know about the octo
// runtime, flows, YAML, connectors or sockets. Blocks (mcp-router, mcp-mock)
// and the agent bridge adapt to it, never the other way round. Stateful
// concerns (sessions, SSE streams, stdio framing) plug in through the seams it
// leaves: [RequestContext.Session], [Notifier] and [Server.Handlers].
package mcp

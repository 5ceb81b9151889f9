// Package mcp is the transport-free core of the Model Context Protocol as octo
// serves it: JSON-RPC 2.0 messages and error codes, protocol versions and their
// negotiation, the method dispatcher over small tool, resource and prompt
// providers, input-schema validation, RFC 6570 level-1 URI templates, and the
// Streamable HTTP rules a stateless server needs; and its stateful front,
// [Stateful]: sessions, Streamable HTTP with SSE answers and a standalone
// stream, legacy HTTP+SSE, stdio lines, server→client requests,
// cancellation, log levels, subscriptions and a traffic log.
//
// It owns the protocol and nothing else: it must not know about the octo
// runtime, flows, YAML, connectors or sockets. Blocks (mcp-router, mcp-mock)
// and the agent bridge adapt to it, never the other way round. The stateful
// side reaches the dispatcher only through the seams it leaves
// ([RequestContext.Session], [Notifier], [Server.Handlers]), and its
// transports take bytes and hand back bodies or event streams: connectors
// move them.
package mcp

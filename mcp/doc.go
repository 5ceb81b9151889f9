// Package mcp is the transport-free core of the Model Context Protocol as octo
// serves it: protocol versions and their negotiation, the method dispatcher over small tool,
// resource and prompt providers, input-schema checks, the Streamable HTTP rules a stateless
// server needs (and 2026-07-28's, which are stateless), subscriptions/listen streams, tasks
// and the questions a request may ask its client.
//
// It owns the protocol and nothing else: it must not know about the octo runtime, flows,
// YAML, connectors or sockets. Blocks (mcp-router, mcp-mock) and the agent bridge adapt to
// it, never the other way round. Beside it, each a package of its own:
//
//   - jsonrpc: JSON-RPC 2.0 messages, ids and error codes, decoded and encoded;
//   - schema, uritemplate: JSON Schema for tool arguments, RFC 6570 level-1 templates;
//   - tasks: the task store (memory here; a cluster's in blocks/mcp/cluster);
//   - stream: the bounded event queue behind every stream written to a client;
//   - session: the stateful front over a Server: sessions, Streamable HTTP with SSE answers
//     and a standalone stream, legacy HTTP+SSE, stdio lines, server→client requests,
//     cancellation, log levels, subscriptions, live changes and a traffic log;
//   - logsafe: what a client wrote made fit for a log line;
//   - client: the client library.
//
// The stateful front reaches the dispatcher only through the seams it leaves
// ([RequestContext.Session], [KeepingSession], [Notifier], [Requester], [Server.Handlers],
// [Server.Listen]), and its transports take bytes and hand back bodies or event streams:
// connectors move them.
package mcp

// Package mock is the mcp-mock block: a complete, stateful MCP server
// answered from settings instead of code. It turns the settings (a saved
// server's `mcp:` section) into tools, resources and prompts whose answers
// are placeholder templates, serves them through the stateful transports of
// mcp (Streamable HTTP, legacy HTTP+SSE, stdio lines), logs every
// message as a traffic event and swaps in edited settings while sessions
// stay open, telling clients what changed.
//
// It owns the settings, their compilation and the live server built from
// them. The protocol itself (sessions, streams, negotiation) belongs to
// mcp and the answer language to the placeholder package; the
// workspace folder format belongs to the workspace package, which turns
// saved servers into flows running this block. It knows nothing of
// sockets: connectors hand it messages. REFERENCE.md documents the settings.
package mock

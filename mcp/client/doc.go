// Package mcpclient is octo's MCP client: it dials another MCP server over
// Streamable HTTP (JSON or SSE answers, Mcp-Session-Id), the legacy HTTP+SSE
// transport or a stdio child process, initializes a session and calls its
// tools, resources and prompts.
//
// It speaks the protocol with the core's types (mcp: Message, ID,
// Error, Tool, CallToolResult, Content, …) and must not know about the octo
// runtime, flows or YAML: the mcp-client block and the agent bridge's
// call_server tool adapt to it. What a server sends back is untrusted: every
// answer, event and line is bounded (Options.MaxMessageBytes), every request
// is timed out (Options.Timeout), and a failure is a typed error: *HTTPError
// for an HTTP status, *mcp.Error (wrapped) for a JSON-RPC error, and
// ErrProtocol for an answer that breaks the protocol.
package client

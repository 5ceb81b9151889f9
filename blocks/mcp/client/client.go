// Package client is the mcp-client block: a flow calls a tool, reads a resource or gets a
// prompt on another MCP server (Streamable HTTP, legacy HTTP+SSE, or a stdio command), through
// octo's MCP client (mcp/client). One initialized session per server is shared,
// through the runtime's resource table, by every block and message that names the same
// server, and dialled again when it breaks. It knows MCP as a client only; serving MCP is the
// router's and the mock's.
package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "mcp-client",
		Summary: "calls a tool, reads a resource or gets a prompt on another MCP server",
		Doc: "Connects to an MCP server (a URL over Streamable HTTP, falling back to the legacy " +
			"HTTP+SSE transport, or a command started over stdio), initializes one session, and " +
			"does one thing per message: calls tool with arguments (an expression, the body by " +
			"default), reads resource (a URI template), or gets prompt with arguments. The result " +
			"becomes the body (see result) and vars.mcp holds the details: the server's name, " +
			"the content blocks, structuredContent, isError. A tool result with isError fails the " +
			"block with the tool's text (kind upstream), so a router tool that calls it answers " +
			"isError with the same text; a catch block can handle it. The session is shared by " +
			"every block naming the same server and settings, kept across messages, dialled " +
			"again when it breaks and closed when the flow stops. A caller that asked for " +
			"progress hears the server's progress; a caller that leaves cancels the call " +
			"(notifications/cancelled).",
		Example: "type: mcp-client\nsettings:\n  server:\n    url: http://127.0.0.1:3004/mcp\n" +
			"  tool: get_weather\n  arguments: '{\"city\": body.city}'\n",
		Build: runtime.BlockFunc(build),
	})
}

// Settings are the mcp-client block's settings.
type Settings struct {
	Server    ServerSettings    `yaml:"server" octo:"required" doc:"The MCP server to call and how to reach it."`
	Tool      string            `yaml:"tool" doc:"Call this tool (tools/call). Set one of tool, resource or prompt." example:"get_weather"`
	Resource  *runtime.Template `yaml:"resource" doc:"Read the resource at this URI (resources/read): a template over body, vars, headers and env." example:"stations://{{ body.station }}"`
	Prompt    string            `yaml:"prompt" doc:"Get this prompt (prompts/get)." example:"plan_trip"`
	Arguments *runtime.Expr     `yaml:"arguments" doc:"The tool's or the prompt's arguments: an expression whose value is an object (prompt argument values are sent as strings). Default: the body (null is no arguments)." example:"{\"city\": body.city}"`
	Result    string            `yaml:"result" default:"auto" enum:"auto,structured,text" doc:"What becomes the body. auto: a tool's structuredContent when it has one, else the text of the content (decoded when it is JSON, else a string). structured: the structuredContent, which must be there. text: the text, always a string. A resource's text contents and a prompt's messages are read the same way (a prompt's messages as JSON)."`
}

// ServerSettings name the server; they are also the key its shared session is found by.
type ServerSettings struct {
	URL       string                      `yaml:"url" doc:"The server's HTTP endpoint: the Streamable HTTP endpoint, or a legacy server's SSE URL. Set url or command." example:"http://127.0.0.1:3004/mcp"`
	Command   []string                    `yaml:"command" doc:"Start the server as this program and arguments, spoken to over stdio. A program named octo is this octo binary. Set url or command." example:"[octo, serve, ../weather-mock, Weather mock, --stdio]"`
	Env       map[string]string           `yaml:"env" doc:"Environment variables for the command. It gets PATH, HOME and the few others a program needs from octo's environment, not the rest (which may hold secrets): pass what it needs here, ${NAME} for a value of octo's." example:"{ WEATHER_TOKEN: \"${WEATHER_TOKEN}\" }"`
	Dir       string                      `yaml:"dir" doc:"The command's working folder, relative to the config file; default: the config file's folder."`
	Transport string                      `yaml:"transport" default:"auto" enum:"auto,streamable,sse,stdio" doc:"How to reach the server. auto: stdio for a command; for a url, Streamable HTTP, falling back to legacy HTTP+SSE when the server answers initialize with a 4xx (other than 401, 403 or 429)."`
	Headers   map[string]runtime.Template `yaml:"headers" doc:"HTTP headers sent with every request to the server, each value a template over env, rendered once when the block starts: the session is shared by every message, so it carries no caller's values." example:"{ Authorization: \"Bearer {{ env.WEATHER_TOKEN }}\" }"`
	Timeout   time.Duration               `yaml:"timeout" default:"30s" min:">0" max:"1h" doc:"The longest one request may wait for its answer, connecting and initializing included; the call is then cancelled on the server and the block fails (kind timeout)."`
	MaxBytes  int                         `yaml:"maxMessageBytes" default:"16777216" min:"1024" max:"268435456" doc:"The largest answer, event or line read from the server, in bytes (default 16 MiB); a larger one fails the call."`
}

// SetsVars says the blocks after an mcp-client may read vars.mcp.
func (*Settings) SetsVars() []string { return []string{"mcp"} }

// Block is a built mcp-client block. Its session is acquired at Start and released at Stop.
type Block struct {
	op      operation
	args    *runtime.Expr
	result  string
	timeout time.Duration
	server  serverSpec

	pool    *pool
	release runtime.Release
}

func build(b *runtime.Build, s *Settings) (runtime.Block, error) {
	blk := &Block{args: s.Arguments, result: s.Result, timeout: s.Server.Timeout}
	blk.op = buildOperation(b, s)
	blk.server = buildServer(b, s)
	if err := b.Err(); err != nil {
		return nil, err
	}
	return blk, nil
}

// Start takes the server's shared session from the runtime's table (dialled on first use, so
// a server that starts after octo is still reached).
func (blk *Block) Start(context.Context) error {
	p, release, err := runtime.Acquire(blk.server.shared, blk.server.key, blk.server.open)
	if err != nil {
		return fmt.Errorf("mcp-client: %w", err)
	}
	blk.pool, blk.release = p, release
	return nil
}

// Stop gives the session back; the last holder closes it.
func (blk *Block) Stop(ctx context.Context) error {
	if blk.release != nil {
		return blk.release(ctx)
	}
	return nil
}

var errNotStarted = errors.New("mcp-client is not started")

// Process does the block's one thing on the server and puts the result into m.
func (blk *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	if blk.pool == nil {
		return nil, errNotStarted
	}
	c, err := blk.pool.client(ctx)
	if err != nil {
		return nil, blk.failed(ctx, "connecting", err)
	}
	if err := blk.op.run(ctx, blk, c, m); err != nil {
		return nil, err
	}
	return m, nil
}

var (
	_ runtime.Block      = (*Block)(nil)
	_ runtime.Starter    = (*Block)(nil)
	_ runtime.Stopper    = (*Block)(nil)
	_ runtime.VarsSetter = (*Settings)(nil)
)

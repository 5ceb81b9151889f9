// Package bridge is the agent-bridge block and the `octo mcp` command: the stdio MCP server
// that AI coding agents start. It answers the handshake, the tool list and its prompts itself,
// at once, and hands each tool call to the running octo app over loopback (reading agent.json
// and proving the token with the handshake), starting the app when it is not running, or, when
// the user let agents work without it, running the tools in-process on the last workspace.
//
// It owns the agent's side of that conversation: what the agent is told when the app cannot
// be reached, progress while the app starts, cancellation passed on at once. The protocol is
// mcp's, the data folder and handshake agentlink/appdata's and handshake's, the tools
// blocks/agent/agenttools', the app blocks/agent/app's; the stdio connector moves the lines.
package bridge

import (
	"context"
	"time"

	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/blocks/mcp/mcpmsg"
	"github.com/octo-run/octo/connectors/stdio/stdiomsg"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/cli"
)

// Type is the block's type, as configs name it.
const Type = "agent-bridge"

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    Type,
		Summary: "the MCP server AI coding agents start (octo mcp): hands their tool calls to the octo app",
		Doc: "Serves one MCP session over stdio for an AI coding agent. It answers initialize, ping, " +
			"tools/list, prompts/list and prompts/get itself, without the app, so starting an agent never " +
			"starts octo. On the first tool call it reads agent.json in the data folder, connects to the app " +
			"on 127.0.0.1 and proves it knows the token without sending it; when the app is not running it " +
			"starts it (OCTO_APP, else `octo app`) and waits up to 30 seconds, reporting progress. With " +
			"agents.withoutApp and agents.allow on in settings.yaml, it runs the tools itself instead, " +
			"refusing whatever would need the user's approval. `octo mcp` runs this block on the stdio connector.",
		Example:    "type: agent-bridge\nsettings:\n  dataDir: /home/me/.local/share/octo\n",
		Transports: []string{stdiomsg.Transport},
		StreamsOn:  []string{stdiomsg.Transport},
		Build:      runtime.BlockFunc(build),
	})
}

// Settings are the agent-bridge block's settings.
type Settings struct {
	DataDir string `yaml:"dataDir" doc:"The app's data folder, where agent.json and settings.yaml are. Empty: OCTO_DATA_DIR, else the system's place for it (octo mcp sets it from --data-dir)." example:"/home/me/.local/share/octo"`
}

// startTimeout is how long a tool call waits for the app it started. Not a setting: the agent
// is told "30 seconds" in so many words (msgStartTimeout).
const startTimeout = 30 * time.Second

// Block is a built agent-bridge: one stateful MCP server whose stdio session is the agent.
type Block struct {
	st    *session.Front
	stdio *mcpmsg.Stdio
	fwd   *forwarder
}

func build(b *runtime.Build, s *Settings) (runtime.Block, error) {
	fwd := newForwarder(s.DataDir, startTimeout, b.Logger())
	srv := newServer(fwd)
	srv.OnPanic = func(method string, recovered any, stack []byte) {
		b.Logger().Error("panic in MCP method", "method", method, "panic", recovered, "stack", string(stack))
	}
	if err := srv.Check(); err != nil {
		return nil, err
	}
	st := session.New(srv, session.Options{AllowBatch: true, BatchInEveryVersion: true})
	return &Block{st: st, stdio: mcpmsg.NewStdio(st), fwd: fwd}, nil
}

// newServer is the bridge's MCP server: its own tool list and prompts, empty resource lists
// (answered, not declared), and tool calls handed to fwd.
func newServer(fwd *forwarder) *mcp.Server {
	return &mcp.Server{
		Info:                agenttools.ServerInfo(cli.Version()),
		Instructions:        agenttools.Instructions,
		Versions:            mcp.MockVersions,
		Tools:               &tools{list: agenttools.Definitions(), fwd: fwd},
		Prompts:             prompts{},
		Resources:           noResources{},
		ResourcesUndeclared: true,
		UnknownTool:         mcp.UnknownToolAsError,
		CacheLists:          true,
		ShutdownCause:       runtime.ErrShuttingDown,
	}
}

// Process answers an event of the stdio session.
func (b *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	ev, ok := stdiomsg.From(m)
	if !ok {
		return nil, &runtime.Error{Kind: runtime.KindInvalid, Msg: "agent-bridge serves a stdio session"}
	}
	return b.stdio.Process(ctx, m, ev)
}

// Stop ends the session, cancelling calls still running, and lets go of the app: its
// connection, or the tools run in-process.
func (b *Block) Stop(ctx context.Context) error {
	b.st.Close()
	return b.fwd.Close(ctx)
}

// noResources answers resources/list and resources/templates/list with empty lists: the bridge
// has none, and some clients list them whatever the capabilities say.
type noResources struct{}

func (noResources) ListResources(context.Context, *mcp.RequestContext, string) ([]mcp.Resource, string, error) {
	return []mcp.Resource{}, "", nil
}

func (noResources) ListResourceTemplates(context.Context, *mcp.RequestContext, string) ([]mcp.ResourceTemplate, string, error) {
	return []mcp.ResourceTemplate{}, "", nil
}

func (noResources) ReadResource(context.Context, *mcp.RequestContext, string) ([]mcp.ResourceContents, error) {
	return nil, mcp.ErrResourceNotFound
}

var (
	_ runtime.Block        = (*Block)(nil)
	_ runtime.Stopper      = (*Block)(nil)
	_ mcp.ResourceProvider = noResources{}
)

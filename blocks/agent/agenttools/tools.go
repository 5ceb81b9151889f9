package agenttools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/mcp"
)

// Tools runs the agent tools over a host; share one between every caller of the host (each
// agent, the console's user), since its lock is what keeps their saves apart.
type Tools struct {
	host Host
	opts Options
	// writing makes each save or delete check and change the workspace alone in this process,
	// so two saves cannot both take the same free port or name; the workspace's write lock
	// (workspace.Lock) does the same between processes.
	writing sync.Mutex
}

// DefaultLockWait is how long a save or delete waits for another writer of the workspace.
const DefaultLockWait = 30 * time.Second

// Options tune New.
type Options struct {
	// LockWait bounds the wait for the workspace's write lock, which every save and delete
	// holds so that another process writing to the same workspace (octo new mcp-mock, another
	// app, an agent's bridge working without it) does not change it at the same time; 0 means
	// DefaultLockWait.
	LockWait time.Duration
}

// errWriteBusy is the cause of a wait for the write lock that ran out of time.
var errWriteBusy = errors.New("another octo process (the app, octo new, or an agent's bridge working without the app) " +
	"is still writing to this workspace; nothing was changed, try again")

// New returns the tools acting on host.
func New(host Host, opts Options) *Tools {
	if opts.LockWait <= 0 {
		opts.LockWait = DefaultLockWait
	}
	return &Tools{host: host, opts: opts}
}

// Writing runs write with the workspace to itself, as a save or a delete has it: for a caller
// that writes workspace files itself (the console), through w, so that a name or port it picks
// is not picked by a save at the same time, here or in another process. write must not call
// the tools. It fails, without running write, when another process kept the workspace past
// the wait (Options.LockWait) or ctx ended first.
func (t *Tools) Writing(ctx context.Context, write func(w *workspace.Writer)) error {
	w, unlock, err := t.lockWrites(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	write(w)
	return nil
}

// lockWrites takes this process's write lock, then the workspace's, and returns the writer
// and what lets both go.
func (t *Tools) lockWrites(ctx context.Context) (w *workspace.Writer, unlock func(), err error) {
	t.writing.Lock()
	ctx, cancel := context.WithTimeoutCause(ctx, t.opts.LockWait, errWriteBusy)
	defer cancel()
	w, err = workspace.Lock(ctx, t.host.Workspace())
	if err != nil {
		t.writing.Unlock()
		return nil, nil, err
	}
	return w, func() {
		_ = w.Unlock() // the system lets go of it with the file anyway
		t.writing.Unlock()
	}, nil
}

// Call is one tool call.
type Call struct {
	Agent string // the agent's clientInfo name, for the user
	Name  string
	Args  json.RawMessage // the arguments object; empty means {}
	// Progress reports how far a long call has come; nil when the agent asked for none.
	Progress func(progress, total float64, message string)
	// ByUser marks the user's own call (the console): the host is not asked to authorize it.
	// Calls that come from agents never set it.
	ByUser bool
}

// op is a tool call ready to run: what the user is told, and the run itself. Preparing one
// checks the arguments and changes nothing, so nothing happens before the host authorizes it.
type op struct {
	summary string
	detail  []string // more for the user to judge by, a line each (a save: what the server answers)
	run     func(ctx context.Context) *mcp.CallToolResult
	// check, when set, says why the call would fail as things stand (a server that does not
	// exist, a save whose file has problems), so the user is not asked to approve what cannot
	// happen; nil means it would run.
	check func(ctx context.Context) *mcp.CallToolResult
	// again, when set, is the summary as things stand once the user answered: if the action
	// changed meanwhile (the server it replaces appeared, or started), the user is asked again.
	again func() string
}

// maxAsks bounds how often one call is asked again because what it does kept changing.
const maxAsks = 3

// prepare turns a call's checked arguments into an op; an error is the agent's mistake, told
// as a failed call.
type prepare func(t *Tools, c Call) (op, error)

// dispatch holds the tools that run; a listed tool missing here is answered as unknown.
var dispatch = map[string]prepare{
	GetWorkspace: (*Tools).getWorkspace,
	ListServers:  (*Tools).listServers,
	GetServer:    (*Tools).getServer,
	SaveServer:   (*Tools).saveServer,
	DeleteServer: (*Tools).deleteServer,
	StartServer:  (*Tools).startServer,
	StopServer:   (*Tools).stopServer,
	GetTraffic:   (*Tools).getTraffic,
	CallServer:   (*Tools).callServer,
}

// Call runs a tool: it checks the arguments against the tool's schema and its own rules, asks
// the host to authorize the call, then runs it. Mistakes in the arguments, refusals and
// failures are results with isError, which the agent reads; an unknown tool is
// mcp.ErrUnknownTool.
func (t *Tools) Call(ctx context.Context, c Call) (*mcp.CallToolResult, error) {
	def, prep := definitionOf(c.Name), dispatch[c.Name]
	if def == nil || prep == nil {
		return nil, fmt.Errorf("%w: %s", mcp.ErrUnknownTool, c.Name)
	}
	if len(c.Args) == 0 {
		c.Args = json.RawMessage("{}")
	}
	if err := def.schema.Validate(c.Args); err != nil {
		return mcp.ToolError(err.Error()), nil
	}
	o, err := prep(t, c)
	if err != nil {
		return mcp.ToolError(err.Error()), nil
	}
	if o.check != nil {
		if res := o.check(ctx); res != nil {
			return res, nil
		}
	}
	if c.ByUser {
		return o.run(ctx), nil
	}
	if err := t.authorize(ctx, c, def, o); err != nil {
		return mcp.ToolError(err.Error()), nil
	}
	return mask(t.secretMask(), o.run(ctx)), nil // an agent never reads a secret value
}

// authorize asks the host to authorize o, and asks again, up to maxAsks times, while what o
// does changes under the user's eyes.
func (t *Tools) authorize(ctx context.Context, c Call, def *definition, o op) error {
	summary := o.summary
	for range maxAsks {
		if err := t.host.Authorize(ctx, Action{Agent: c.Agent, Tool: c.Name, Changes: def.changes, Summary: summary, Detail: o.detail}); err != nil {
			return err
		}
		if o.again == nil {
			return nil
		}
		now := o.again()
		if now == summary {
			return nil
		}
		summary = now
	}
	return fmt.Errorf("What %s would do kept changing while the user was asked (now: %s); nothing was done. Try again.", c.Name, summary)
}

// argError is a mistake in the argument name, worded as the schema checks word theirs.
func argError(name, format string, args ...any) error {
	return fmt.Errorf("argument %q: %s", name, fmt.Sprintf(format, args...))
}

// decode reads checked arguments into v.
func decode(args json.RawMessage, v any) error {
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("arguments: %w", err)
	}
	return nil
}

// jsonResult answers v as indented JSON text.
func jsonResult(v any) *mcp.CallToolResult {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return mcp.ToolError("cannot encode the answer: " + err.Error())
	}
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(string(b))}}
}

// textResult answers sentences.
func textResult(lines ...string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(strings.Join(lines, "\n"))}}
}

// errResult answers a failure the agent should read.
func errResult(err error) *mcp.CallToolResult { return mcp.ToolError(err.Error()) }

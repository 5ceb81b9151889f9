package agenttools

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/octo-run/octo/mcp"
)

// gate is a Host for the authorization and argument tests only: it records what it is asked
// and refuses or allows as told. It serves nothing; the tools' work is tested over the app.
type gate struct {
	dir    string
	refuse error
	states []ServerState // the saved servers it says it has

	mu      sync.Mutex
	actions []Action
	queries []TrafficQuery
	starts  int
}

func (g *gate) Workspace() string     { return g.dir }
func (g *gate) States() []ServerState { return g.states }
func (g *gate) Start(context.Context, string) (ServerState, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.starts++
	return ServerState{}, errors.New("the gate serves nothing")
}
func (g *gate) Stop(context.Context, string) error { return errors.New("the gate serves nothing") }
func (g *gate) Traffic(q TrafficQuery) []TrafficEntry {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.queries = append(g.queries, q)
	return nil
}
func (g *gate) Authorize(_ context.Context, a Action) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.actions = append(g.actions, a)
	return g.refuse
}

func call(t *testing.T, tools *Tools, name, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := tools.Call(context.Background(), Call{Agent: "claude-code", Name: name, Args: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func TestAnUnknownToolIsTheCoresUnknownTool(t *testing.T) {
	tools := New(&gate{dir: t.TempDir()}, Options{})
	for _, name := range []string{"nope", "", "Get_workspace"} {
		_, err := tools.Call(context.Background(), Call{Name: name})
		if !errors.Is(err, mcp.ErrUnknownTool) {
			t.Errorf("%q: error %v, want unknown tool", name, err)
		}
	}
}

func TestBadArgumentsAreToldNamingTheFieldBeforeAnythingIsAsked(t *testing.T) {
	g := &gate{dir: t.TempDir()}
	tools := New(g, Options{})
	for _, c := range []struct{ tool, args, want string }{
		{StartServer, `{}`, `missing required argument "name"`},
		{StartServer, `{"name": ""}`, `argument "name"`},
		{StopServer, `{"name": 1}`, `argument "name": expected string`},
		{GetTraffic, `{"since": "yesterday"}`, `argument "since"`},
		{GetTraffic, `{"since": "2026-12-31T23:59:60Z"}`, `argument "since"`},
		{GetTraffic, `{"limit": 5000}`, `argument "limit"`},
		{SaveServer, `{"name": "../escape", "kind": "mcp", "mcp": {}}`, `argument "name": server name "../escape" cannot be a file name`},
		{SaveServer, `{"name": ".hidden", "kind": "mcp", "mcp": {}}`, `argument "name"`},
		{SaveServer, `{"name": "a{{b}}", "kind": "mcp", "mcp": {}}`, `argument "name"`},
		{SaveServer, `{"name": "a", "kind": "mcp", "mcp": []}`, `argument "mcp": expected object`},
		{CallServer, `{"server": "a"}`, `give exactly one of "tool", "resource" and "prompt"`},
		{CallServer, `{"server": "a", "tool": "t", "prompt": "p"}`, `give exactly one of "tool", "resource" and "prompt"`},
		{CallServer, `{"server": "a", "resource": "docs://x", "arguments": {}}`, `argument "arguments": a resource is read by its URI alone`},
		{CallServer, `{"server": "a", "prompt": "p", "arguments": {"n": 1}}`, `argument "arguments": a prompt's arguments are text`},
		{CallServer, `{"server": "a", "tool": "t", "arguments": [1]}`, `argument "arguments": expected object`},
		{SaveServer, `{"name": "a", "kind": "mcp", "mcp": ` + strings.Repeat(`{"a":`, 70) + `1` + strings.Repeat(`}`, 70) + `}`, `argument "mcp": nests deeper than 64 levels`},
	} {
		res := call(t, tools, c.tool, c.args)
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%s %.60s: %v %q, want an error with %q", c.tool, c.args, res.IsError, text(res), c.want)
		}
	}
	if len(g.actions) != 0 {
		t.Fatalf("asked to authorize %v for calls with bad arguments", g.actions)
	}
}

func TestEveryCallIsAuthorizedFirstWithALineTheUserCanJudge(t *testing.T) {
	g := &gate{dir: t.TempDir(), refuse: errors.New("The user declined this action in Octo.")}
	g.states = []ServerState{{Name: "Weather mock", File: filepath.Join(g.dir, "servers", "Weather mock.yaml")}}
	tools := New(g, Options{})
	for _, c := range []struct {
		tool, args string
		want       Action
	}{
		{GetWorkspace, `{}`, Action{Tool: GetWorkspace, Summary: "get_workspace"}},
		{ListServers, ``, Action{Tool: ListServers, Summary: "list_servers"}},
		{GetServer, `{"name": "Weather mock"}`, Action{Tool: GetServer, Summary: `get_server "Weather mock"`}},
		{SaveServer, `{"name": "Weather mock", "kind": "mcp", "mcp": {"tools": [{"name": "a"}, {"name": "b"}], "prompts": [{"name": "p"}]}}`,
			Action{Tool: SaveServer, Changes: true, Summary: `save_server "Weather mock" (replaces servers/Weather mock.yaml, 2 tools, 1 prompt)`}},
		{DeleteServer, `{"name": "Weather mock"}`, Action{Tool: DeleteServer, Changes: true, Summary: `delete_server "Weather mock"`}},
		{StartServer, `{"name": "Weather mock"}`, Action{Tool: StartServer, Changes: true, Summary: `start_server "Weather mock"`}},
		{StopServer, `{"name": "Weather mock"}`, Action{Tool: StopServer, Changes: true, Summary: `stop_server "Weather mock"`}},
		{GetTraffic, `{"server": "Weather mock"}`, Action{Tool: GetTraffic, Summary: `get_traffic of "Weather mock"`}},
		{CallServer, `{"server": "Weather mock", "tool": "get_weather", "arguments": {"city": "Oslo"}}`,
			Action{Tool: CallServer, Summary: `call_server "Weather mock" tools/call "get_weather"`}},
	} {
		g.actions = nil
		res := call(t, tools, c.tool, c.args)
		if !res.IsError || text(res) != "The user declined this action in Octo." {
			t.Errorf("%s: %v %q, want the host's refusal", c.tool, res.IsError, text(res))
		}
		c.want.Agent = "claude-code"
		if len(g.actions) != 1 || g.actions[0].Tool != c.want.Tool || g.actions[0].Agent != c.want.Agent || g.actions[0].Changes != c.want.Changes || g.actions[0].Summary != c.want.Summary {
			t.Errorf("%s: asked %+v, want %+v", c.tool, g.actions, c.want)
		}
	}
	if g.starts != 0 || len(g.queries) != 0 {
		t.Fatalf("refused calls ran: %d starts, %d traffic queries", g.starts, len(g.queries))
	}
}

func TestTrafficArgumentsReachTheHost(t *testing.T) {
	g := &gate{dir: t.TempDir()}
	tools := New(g, Options{})
	call(t, tools, GetTraffic, `{}`)
	call(t, tools, GetTraffic, `{"server": "A", "session": "s1", "method": "tools/call", "since": "2026-01-02T15:04:05.5+01:00", "limit": 7}`)
	since := time.Date(2026, 1, 2, 14, 4, 5, 5e8, time.UTC)
	want := []TrafficQuery{{Limit: DefaultTrafficLimit}, {Server: "A", Session: "s1", Method: "tools/call", Since: since, Limit: 7}}
	if len(g.queries) != 2 || g.queries[0] != want[0] || g.queries[1].Server != "A" || !g.queries[1].Since.Equal(since) ||
		g.queries[1].Limit != 7 || g.queries[1].Method != "tools/call" || g.queries[1].Session != "s1" {
		t.Fatalf("queries %+v, want %+v", g.queries, want)
	}
}

// A call that cannot happen as things stand is told why without asking the user: a server
// that does not exist, a save whose file would have problems.
func TestACallThatWouldFailIsRefusedBeforeTheUserIsAsked(t *testing.T) {
	g := &gate{dir: t.TempDir()}
	tools := New(g, Options{})
	for _, c := range []struct{ tool, args, want string }{
		{StartServer, `{"name": "Nothing"}`, `unknown saved server "Nothing"`},
		{DeleteServer, `{"name": "Nothing"}`, `unknown saved server "Nothing"`},
		{StopServer, `{"name": "Nothing"}`, `unknown saved server "Nothing"`},
		{SaveServer, `{"name": "Twins", "kind": "mcp", "port": 0, "mcp": {"tools": [{"name": "a", "result": "x"}, {"name": "a", "result": "y"}]}}`,
			"Nothing was saved"},
	} {
		res := call(t, tools, c.tool, c.args)
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%s: %v %q, want an error with %q", c.tool, res.IsError, text(res), c.want)
		}
	}
	if len(g.actions) != 0 {
		t.Fatalf("the user was asked to approve %+v", g.actions)
	}
}

// changing is a host whose saved server appears while the user is asked to approve a save of
// a new one: the save is asked again, saying it now replaces the file.
type changing struct {
	gate
	asked int
}

func (c *changing) Authorize(ctx context.Context, a Action) error {
	c.asked++
	if c.asked == 1 {
		c.states = []ServerState{{Name: "Weather mock", File: filepath.Join(c.dir, "servers", "Weather mock.yaml")}}
	}
	return c.gate.Authorize(ctx, a)
}

func TestWhatChangedWhileTheUserWasAskedIsAskedAgain(t *testing.T) {
	h := &changing{gate: gate{dir: t.TempDir()}}
	tools := New(h, Options{})
	res := call(t, tools, SaveServer, `{"name": "Weather mock", "kind": "mcp", "port": 0, "mcp": {"tools": [{"name": "a", "result": "x"}]}}`)
	if res.IsError {
		t.Fatalf("save_server: %s", text(res))
	}
	if len(h.actions) != 2 || !strings.Contains(h.actions[0].Summary, "(new, 1 tool)") ||
		!strings.Contains(h.actions[1].Summary, "(replaces servers/Weather mock.yaml, 1 tool)") {
		t.Fatalf("asked %+v, want the new save, then the replacing one", h.actions)
	}
}

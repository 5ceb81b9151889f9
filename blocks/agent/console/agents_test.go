package console_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/agentlink/handshake"
)

// agent is an AI agent's bridge as the app sees it: the handshake, then MCP lines.
type agent struct {
	t    *testing.T
	conn net.Conn
	in   *bufio.Reader
	next int
}

func dialAgent(t *testing.T, dataDir, name string) *agent {
	t.Helper()
	info, err := appdata.ReadInfo(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := handshake.Dial(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	g := &agent{t: t, conn: conn, in: bufio.NewReader(conn)}
	g.send(`"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"`+name+`","version":"1"}}`, true)
	g.read()
	g.send(`"method":"notifications/initialized"`, false)
	return g
}

func (g *agent) send(body string, request bool) {
	g.t.Helper()
	line := `{"jsonrpc":"2.0",` + body + "}\n"
	if request {
		g.next++
		line = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s}`+"\n", g.next, body)
	}
	if _, err := g.conn.Write([]byte(line)); err != nil {
		g.t.Fatal(err)
	}
}

// read returns the next line the app sends.
func (g *agent) read() string {
	g.t.Helper()
	_ = g.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	line, err := g.in.ReadString('\n')
	if err != nil {
		g.t.Fatalf("reading from the app: %v", err)
	}
	return line
}

// call sends tools/call without waiting for the answer.
func (g *agent) call(tool string, args any) {
	data, _ := json.Marshal(map[string]any{"name": tool, "arguments": args})
	g.send(`"method":"tools/call","params":`+string(data), true)
}

var saveArgs = map[string]any{"name": "Agent mock", "kind": "mcp", "port": 0,
	"mcp": map[string]any{"tools": []any{map[string]any{"name": "hello", "result": "hi"}}}}

// An agent's save_server waits in the console until the user approves it; a denied one is
// told so; "always" lets the next one through unasked; the history keeps the decisions; the
// event stream tells the page at each step.
func TestAnAgentsActionWaitsForTheUsersAnswerInTheConsole(t *testing.T) {
	f := newFixture(t)
	f.must(200, "POST", "/api/settings", map[string]any{"allow": true}, nil)
	events := f.openEvents("")
	events.waitFor(t, "hello")
	g := dialAgent(t, f.dir, "test-agent")

	answerNext := func(answer string) {
		t.Helper()
		events.waitFor(t, "agents") // the agent connected, or its question waits
		s := f.state()
		for deadline := time.Now().Add(10 * time.Second); len(s.Pending) == 0 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
			s = f.state()
		}
		if len(s.Pending) != 1 || s.Pending[0].Agent != "test-agent" || s.Pending[0].Tool != "save_server" ||
			!strings.Contains(s.Pending[0].Summary, `"Agent mock"`) {
			t.Fatalf("pending %+v", s.Pending)
		}
		f.must(200, "POST", "/api/answer", map[string]any{"id": s.Pending[0].ID, "answer": answer}, nil)
	}

	g.call("save_server", saveArgs)
	answerNext("deny")
	if line := g.read(); !strings.Contains(line, `"isError":true`) || !strings.Contains(line, "declined") {
		t.Fatalf("denied: %s", line)
	}
	g.call("save_server", saveArgs)
	answerNext("always")
	if line := g.read(); strings.Contains(line, `"isError":true`) || !strings.Contains(line, "Saved") {
		t.Fatalf("approved: %s", line)
	}
	g.call("save_server", saveArgs) // save_server is now always allowed: no question
	if line := g.read(); !strings.Contains(line, "Saved") {
		t.Fatalf("always: %s", line)
	}
	g.call("list_servers", map[string]any{}) // a read: no question, but in the history too
	g.read()
	s := f.state()
	want := []struct{ outcome, by, summary string }{
		{"denied", "console", `save_server "Agent mock"`}, {"always", "console", `save_server "Agent mock"`},
		{"not asked: always allowed", "", `save_server "Agent mock"`}, {"not asked: changes nothing", "", "list_servers"},
	}
	if len(s.Pending) != 0 || len(s.History) != len(want) {
		t.Fatalf("history %+v pending %+v", s.History, s.Pending)
	}
	for i, w := range want {
		if h := s.History[i]; h.Outcome != w.outcome || h.By != w.by || h.Agent != "test-agent" || !strings.HasPrefix(h.Summary, w.summary) {
			t.Errorf("history[%d] = %+v, want %+v", i, h, w)
		}
	}
}

// The user disconnects an agent: it is told octo/disconnected and its connection closes.
func TestTheUserDisconnectsAnAgent(t *testing.T) {
	f := newFixture(t)
	g := dialAgent(t, f.dir, "leaving-agent")
	var s struct {
		Agents []struct {
			ID   uint64
			Name string
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(s.Agents) == 0 && time.Now().Before(deadline) {
		f.must(200, "GET", "/api/state", nil, &s)
		time.Sleep(20 * time.Millisecond)
	}
	if len(s.Agents) != 1 || s.Agents[0].Name != "leaving-agent" {
		t.Fatalf("agents %+v", s.Agents)
	}
	f.must(200, "POST", "/api/disconnect", map[string]any{"id": s.Agents[0].ID}, nil)
	if line := g.read(); !strings.Contains(line, "octo/disconnected") {
		t.Fatalf("told %s", line)
	}
	f.must(404, "POST", "/api/disconnect", map[string]any{"id": s.Agents[0].ID}, nil)
}

// Traffic of a started server reaches the page live, filtered; it is listed, exported as JSON
// lines and cleared.
func TestTrafficIsLiveFilteredExportedAndCleared(t *testing.T) {
	f := newFixture(t)
	f.must(200, "POST", "/api/call", map[string]any{"tool": "start_server", "arguments": map[string]string{"name": "Weather"}}, nil)
	live := f.openEvents("&server=weather&tool=get_weather&only=traffic")
	live.waitFor(t, "hello")
	f.must(200, "POST", "/api/call", map[string]any{"tool": "call_server",
		"arguments": map[string]any{"server": "Weather", "tool": "get_weather", "arguments": map[string]string{"city": "Oslo"}}}, nil)
	var batch []struct{ Server, Method, Summary string }
	if err := json.Unmarshal([]byte(live.waitFor(t, "traffic")), &batch); err != nil || len(batch) == 0 {
		t.Fatalf("batch %v %v", batch, err)
	}
	for _, e := range batch {
		if e.Server != "Weather" || !strings.Contains(e.Summary, "tools/call get_weather") {
			t.Fatalf("the filter let %+v through", e)
		}
	}
	var listed struct{ Entries []struct{ Method string } }
	f.must(200, "GET", "/api/traffic?method=initialize", nil, &listed)
	if len(listed.Entries) == 0 {
		t.Fatal("no initialize listed")
	}
	code, data := f.do("GET", "/api/traffic/export", nil)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if code != 200 || len(lines) < 3 {
		t.Fatalf("export %d: %s", code, data)
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("export line %q is not JSON", l)
		}
	}
	f.must(200, "POST", "/api/traffic/clear", map[string]any{}, nil)
	f.must(200, "GET", "/api/traffic", nil, &listed)
	if len(listed.Entries) != 0 {
		t.Fatalf("after clear: %+v", listed)
	}
}

// An edit of a server's file from outside reaches the page as a "workspace" event.
func TestOutsideEditsAreAnnounced(t *testing.T) {
	f := newFixture(t)
	events := f.openEvents("")
	events.waitFor(t, "hello")
	f.must(201, "POST", "/api/new", map[string]any{}, nil)
	events.waitFor(t, "workspace")
}

// The Agents page shows how to register octo mcp: each agent's command with this binary's full
// path, and, the app's data folder not being the one octo mcp finds by itself, the variable
// that leads it there.
func TestTheConsoleShowsHowToConnectAnAgent(t *testing.T) {
	f := newFixture(t)
	var s struct {
		Binary  string
		Connect []struct{ Agent, Text string }
	}
	f.must(200, "GET", "/api/state", nil, &s)
	bin := s.Binary
	if strings.ContainsAny(bin, " '\"$`\\") {
		bin = "'" + bin + "'"
	}
	want := map[string]string{
		"Claude Code": "claude mcp add --scope user -e OCTO_DATA_DIR=" + f.dir + " octo -- " + bin + " mcp",
		"Codex":       "codex mcp add --env OCTO_DATA_DIR=" + f.dir + " octo -- " + bin + " mcp",
		"Gemini CLI":  "gemini mcp add --scope user -e OCTO_DATA_DIR=" + f.dir + " octo " + bin + " mcp",
	}
	if len(s.Connect) != 4 || !filepath.IsAbs(s.Binary) {
		t.Fatalf("connect %+v, binary %q", s.Connect, s.Binary)
	}
	for _, c := range s.Connect[:3] {
		if c.Text != want[c.Agent] {
			t.Errorf("%s: %q, want %q", c.Agent, c.Text, want[c.Agent])
		}
	}
	var js struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
			Env     map[string]string
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(s.Connect[3].Text), &js); err != nil || js.MCPServers["octo"].Command != s.Binary ||
		js.MCPServers["octo"].Env["OCTO_DATA_DIR"] != f.dir || js.MCPServers["octo"].Args[0] != "mcp" {
		t.Fatalf("mcpServers JSON %s: %v", s.Connect[3].Text, err)
	}
}

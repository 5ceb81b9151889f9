package console

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/blocks/agent/app"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime/printable"
)

// stateView is everything the page shows besides traffic and a server's file.
type stateView struct {
	Workspace       string         `json:"workspace"`
	Binary          string         `json:"binary"`  // the octo binary, for the stdio command
	Connect         []connectView  `json:"connect"` // how to register octo mcp with agents
	Servers         []serverView   `json:"servers"`
	Settings        settingsView   `json:"settings"`
	Agents          []agentView    `json:"agents"`
	CanApprove      bool           `json:"canApprove"` // the console answers the app's questions
	Pending         []waitingView  `json:"pending"`
	History         []decisionView `json:"history"`
	ApprovalSeconds int            `json:"approvalTimeoutSeconds"`
	TrafficLast     uint64         `json:"trafficLast"`
}

// connectView is how one kind of agent registers octo mcp.
type connectView struct {
	Agent string `json:"agent"`
	Text  string `json:"text"` // a shell command, or the mcpServers JSON
}

// connectCommands are the registration commands of Claude Code, Codex and Gemini CLI, and the
// mcpServers JSON of other MCP clients, with the full path of this octo binary (it may not be
// on PATH) and, when the app's data folder is not the one octo mcp finds by itself, the
// OCTO_DATA_DIR that leads it there.
func connectCommands(bin, dataDir string) []connectView {
	if bin == "" {
		bin = "octo"
	}
	var env map[string]string
	var claudeEnv, codexEnv, geminiEnv string
	if def, err := appdata.DataDir(""); err != nil || def != dataDir || os.Getenv(appdata.EnvDataDir) != "" {
		kv := appdata.EnvDataDir + "=" + printable.ShellQuote(dataDir)
		env = map[string]string{appdata.EnvDataDir: dataDir}
		claudeEnv, codexEnv, geminiEnv = " -e "+kv, " --env "+kv, " -e "+kv
	}
	q := printable.ShellQuote(bin)
	server := map[string]any{"command": bin, "args": []string{"mcp"}}
	if env != nil {
		server["env"] = env
	}
	js, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"octo": server}}, "", "  ")
	return []connectView{
		{"Claude Code", "claude mcp add --scope user" + claudeEnv + " octo -- " + q + " mcp"},
		{"Codex", "codex mcp add" + codexEnv + " octo -- " + q + " mcp"},
		{"Gemini CLI", "gemini mcp add --scope user" + geminiEnv + " octo " + q + " mcp"},
		{"Cursor, VS Code and other MCP clients (their MCP settings)", string(js)},
	}
}

type serverView struct {
	Name    string `json:"name"`
	File    string `json:"file"`
	Kind    string `json:"kind,omitempty"` // mcp, or http for an HTTP API
	Running bool   `json:"running"`
	URL     string `json:"url,omitempty"`
	Problem string `json:"problem,omitempty"`
}

type settingsView struct {
	Allow      bool   `json:"allow"`
	WithoutApp bool   `json:"withoutApp"`
	Approve    string `json:"approve"`
}

type agentView struct {
	ID    uint64    `json:"id"`
	Name  string    `json:"name"`
	Since time.Time `json:"since"`
}

type waitingView struct {
	ID          uint64    `json:"id"`
	Agent       string    `json:"agent"`
	Tool        string    `json:"tool"`
	Summary     string    `json:"summary"`
	Detail      []string  `json:"detail,omitempty"`
	Text        string    `json:"text"`
	AllowAgents bool      `json:"allowAgents"`
	Asked       time.Time `json:"asked"`
	Deadline    time.Time `json:"deadline,omitzero"`
}

type decisionView struct {
	waitingView
	Outcome string    `json:"outcome"`
	By      string    `json:"by,omitempty"` // console or terminal, for an answer
	At      time.Time `json:"at"`
}

func (c *api) state(context.Context, *request) reply {
	a := c.app
	s := a.Settings()
	v := stateView{Workspace: a.Workspace(), Servers: c.servers(),
		Settings: settingsView{Allow: s.Agents.Allow, WithoutApp: s.Agents.WithoutApp, Approve: s.Agents.Approve},
		Agents:   []agentView{}, Pending: []waitingView{}, History: []decisionView{},
		ApprovalSeconds: int(a.ApprovalTimeout() / time.Second), TrafficLast: a.Store().Last()}
	if bin, err := os.Executable(); err == nil {
		v.Binary = bin
	}
	v.Connect = connectCommands(v.Binary, a.DataDir())
	for _, g := range a.Agents() {
		v.Agents = append(v.Agents, agentView{ID: g.ID, Name: g.Name, Since: g.Since})
	}
	if p := a.Pending(); p != nil {
		v.CanApprove = true
		for _, w := range p.Waiting() {
			v.Pending = append(v.Pending, waitingOf(w))
		}
		for _, d := range p.History() {
			v.History = append(v.History, decisionView{waitingView: waitingOf(d.Waiting), Outcome: d.Outcome, By: d.By, At: d.At})
		}
	}
	return ok(v)
}

func waitingOf(w app.Waiting) waitingView {
	q := w.Question
	return waitingView{ID: w.ID, Agent: q.Agent, Tool: q.Tool, Summary: q.Summary, Detail: q.Detail, Text: q.Text(),
		AllowAgents: q.AllowAgents, Asked: w.Asked, Deadline: w.Deadline}
}

// servers lists the saved servers, files relative to the workspace.
func (c *api) servers() []serverView {
	out := []serverView{}
	for _, s := range c.app.States() {
		v := serverView{Name: s.Name, File: c.rel(s.File), Kind: s.Kind, Running: s.Running, Problem: s.Problem}
		if s.Running {
			v.URL = s.URL
		}
		out = append(out, v)
	}
	return out
}

func (c *api) rel(file string) string {
	if r, err := filepath.Rel(c.app.Workspace(), file); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return file
}

// callArgs are /api/call's: an agent tool and its arguments.
type callArgs struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	// Progress asks for the answer as a stream with the call's progress first (callStream).
	Progress bool `json:"progress"`
}

// callView is a tool's answer: its text, and the whole result.
type callView struct {
	IsError bool                `json:"isError"`
	Text    string              `json:"text"`
	Result  *mcp.CallToolResult `json:"result"`
}

// ConsoleAgent is the name the user's own calls carry (in the app's log).
const ConsoleAgent = "you, in the console"

// call runs an agent tool as the user.
func (c *api) call(ctx context.Context, r *request) reply {
	var a callArgs
	if err := args(r, &a); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	if a.Progress {
		return c.callStreamed(a)
	}
	res, err := c.runTool(ctx, a.Tool, a.Arguments)
	if errors.Is(err, mcp.ErrUnknownTool) {
		return failf(http.StatusNotFound, "no agent tool %s", quoteLog(a.Tool))
	}
	if err != nil {
		return fail(http.StatusInternalServerError, err.Error())
	}
	return ok(callView{IsError: res.IsError, Text: resultText(res), Result: res})
}

func (c *api) runTool(ctx context.Context, tool string, arguments json.RawMessage) (*mcp.CallToolResult, error) {
	return c.app.Tools().Call(ctx, agenttools.Call{Agent: ConsoleAgent, Name: tool, Args: arguments, ByUser: true})
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, ct := range res.Content {
		if ct.Type == mcp.ContentText {
			parts = append(parts, ct.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// settingsArgs change settings; the keys left out stay.
type settingsArgs struct {
	Allow      *bool   `json:"allow"`
	WithoutApp *bool   `json:"withoutApp"`
	Approve    *string `json:"approve"`
}

func (c *api) setSettings(_ context.Context, r *request) reply {
	var a settingsArgs
	if err := args(r, &a); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	if a.Approve != nil && *a.Approve != appdata.ApproveChanges && *a.Approve != appdata.ApproveNever {
		return failf(http.StatusBadRequest, "approve is %s: use changes or never", quoteLog(*a.Approve))
	}
	err := c.app.UpdateSettings(func(s *appdata.Settings) {
		if a.Allow != nil {
			s.Agents.Allow = *a.Allow
		}
		if a.WithoutApp != nil {
			s.Agents.WithoutApp = *a.WithoutApp
		}
		if a.Approve != nil {
			s.Agents.Approve = *a.Approve
		}
	})
	if err != nil {
		return failf(http.StatusInternalServerError, "settings not saved: %v", err)
	}
	s := c.app.Settings()
	return ok(settingsView{Allow: s.Agents.Allow, WithoutApp: s.Agents.WithoutApp, Approve: s.Agents.Approve})
}

// answerArgs answer a pending question.
type answerArgs struct {
	ID     uint64 `json:"id"`
	Answer string `json:"answer"` // approve, deny or always
}

func (c *api) answer(_ context.Context, r *request) reply {
	var a answerArgs
	if err := args(r, &a); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	ans, known := map[string]app.Answer{"approve": app.Approve, "deny": app.Deny, "always": app.ApproveAlways}[a.Answer]
	if !known {
		return failf(http.StatusBadRequest, "answer is %s: use approve, deny or always", quoteLog(a.Answer))
	}
	p := c.app.Pending()
	if p == nil {
		return fail(http.StatusConflict, "this app asks in its terminal, not in the console")
	}
	if !p.Answer(a.ID, ans) {
		return failf(http.StatusNotFound, "question %d is not waiting (answered, or timed out)", a.ID)
	}
	return ok(map[string]bool{"answered": true})
}

type idArgs struct {
	ID uint64 `json:"id"`
}

func (c *api) disconnect(_ context.Context, r *request) reply {
	var a idArgs
	if err := args(r, &a); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	if !c.app.Disconnect(a.ID) {
		return failf(http.StatusNotFound, "agent %d is not connected", a.ID)
	}
	return ok(map[string]bool{"disconnected": true})
}

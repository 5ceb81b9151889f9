package agenttools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime/config"
)

// serverView is a saved server as the agent sees it.
type serverView struct {
	Name    string `json:"name"`
	File    string `json:"file"`           // relative to the workspace folder
	Kind    string `json:"kind,omitempty"` // mcp, or http for an HTTP API
	Running bool   `json:"running"`
	URL     string `json:"url,omitempty"`
	Problem string `json:"problem,omitempty"`
}

// workspaceView is get_workspace's answer.
type workspaceView struct {
	Folder       string              `json:"folder"`
	Servers      []serverView        `json:"servers"`
	Variables    []string            `json:"variables"`
	Environments map[string][]string `json:"environments,omitempty"`
	Environment  string              `json:"environment,omitempty"`
	Problems     []string            `json:"problems,omitempty"`
	UseVariables string              `json:"howToUseVariables"`
}

const useVariables = "Write {{name}} in a server's results, resource texts and prompt messages to use a variable. " +
	"Values live in the workspace's workspace.yaml (variables, or environments.<name> for the active environment); " +
	"only their names are shown here, as they may be secrets. Ask the user to set values you need."

func (t *Tools) getWorkspace(Call) (op, error) {
	return op{summary: GetWorkspace, run: func(context.Context) *mcp.CallToolResult {
		dir := t.host.Workspace()
		v := workspaceView{Folder: dir, Servers: t.servers(), Variables: []string{}, UseVariables: useVariables}
		settings, ds := workspace.ReadSettings(dir)
		if len(ds) > 0 {
			v.Problems = t.texts(ds)
			return jsonResult(v)
		}
		v.Variables = slices.Sorted(maps.Keys(settings.Variables))
		v.Environment = settings.Environment
		if len(settings.Environments) > 0 {
			v.Environments = map[string][]string{}
			for name, vars := range settings.Environments {
				v.Environments[name] = slices.Sorted(maps.Keys(vars))
			}
		}
		return jsonResult(v)
	}}, nil
}

func (t *Tools) listServers(Call) (op, error) {
	return op{summary: ListServers, run: func(context.Context) *mcp.CallToolResult {
		return jsonResult(struct {
			Servers []serverView `json:"servers"`
		}{t.servers()})
	}}, nil
}

// servers lists the host's saved servers for the agent.
func (t *Tools) servers() []serverView {
	out := []serverView{}
	for _, s := range t.host.States() {
		out = append(out, t.view(s))
	}
	return out
}

func (t *Tools) view(s ServerState) serverView {
	v := serverView{Name: s.Name, File: t.rel(s.File), Kind: s.Kind, Running: s.Running, Problem: s.Problem}
	if s.Running {
		v.URL = s.URL
	}
	return v
}

// rel writes file relative to the workspace folder, as the agent and the user read it.
func (t *Tools) rel(file string) string {
	if r, err := filepath.Rel(t.host.Workspace(), file); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return file
}

// texts writes problems with their files relative to the workspace folder.
func (t *Tools) texts(ds config.Diags) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		d.File = t.rel(d.File)
		out[i] = d.String()
	}
	return out
}

// nameArg is the argument of the tools that act on one saved server.
type nameArg struct {
	Name string `json:"name"`
}

// find returns the saved server called name: the exact name, else one that differs only in
// case (the workspace refuses two such names).
func (t *Tools) find(name string) (ServerState, error) {
	states := t.host.States()
	for _, s := range states {
		if s.Name == name {
			return s, nil
		}
	}
	for _, s := range states {
		if strings.EqualFold(s.Name, name) {
			return s, nil
		}
	}
	names := make([]string, len(states))
	for i, s := range states {
		names[i] = s.Name
	}
	msg := config.Unknown("saved server", name, names)
	if len(names) == 0 {
		msg += "; the workspace has none yet (save_server makes one)"
	}
	return ServerState{}, errors.New(msg)
}

// onServer prepares a call of tool on the saved server its name argument names: run gets
// the server's state as it is when the call runs.
func (t *Tools) onServer(c Call, tool string, run func(ctx context.Context, s ServerState) *mcp.CallToolResult) (op, error) {
	var a nameArg
	if err := decode(c.Args, &a); err != nil {
		return op{}, err
	}
	return op{summary: fmt.Sprintf("%s %q", tool, a.Name),
		check: func(context.Context) *mcp.CallToolResult {
			if _, err := t.find(a.Name); err != nil {
				return errResult(err)
			}
			return nil
		},
		run: func(ctx context.Context) *mcp.CallToolResult {
			s, err := t.find(a.Name)
			if err != nil {
				return errResult(err)
			}
			return run(ctx, s)
		}}, nil
}

func (t *Tools) getServer(c Call) (op, error) {
	return t.onServer(c, GetServer, func(_ context.Context, s ServerState) *mcp.CallToolResult {
		return jsonResult(t.readServer(s))
	})
}

// savedServer is get_server's answer: the state, the file's text and its problems, and its
// fields in the form save_server takes.
type savedServer struct {
	serverView
	YAML     string   `json:"yaml,omitempty"`
	Problems []string `json:"problems,omitempty"` // the file's, as serving it would find them
	Fields   any      `json:"fields,omitempty"`
}

func (t *Tools) readServer(s ServerState) savedServer {
	out := savedServer{serverView: t.view(s)}
	dir := t.host.Workspace()
	text, ds := workspace.ReadServerText(dir, s.File)
	if len(ds) > 0 {
		out.Problems = t.texts(ds)
		return out
	}
	out.YAML = string(text)
	if _, ds := workspace.CheckServer(dir, s.File, text, ""); len(ds) > 0 {
		out.Problems = t.texts(ds)
	}
	if fields, err := workspace.ServerFields(s.File, text); err == nil {
		out.Fields = fields
	}
	return out
}

func (t *Tools) deleteServer(c Call) (op, error) {
	o, err := t.onServer(c, DeleteServer, func(ctx context.Context, s ServerState) *mcp.CallToolResult {
		w, unlock, err := t.lockWrites(ctx)
		if err != nil {
			return errResult(err)
		}
		defer unlock()
		stopped := ""
		if s.Running {
			if err := t.host.Stop(ctx, s.Name); err != nil {
				return errResult(fmt.Errorf("could not stop %q, so it is not deleted: %w", s.Name, err))
			}
			stopped = " It was running and is stopped."
		}
		if err := w.RemoveServer(s.File); err != nil {
			return errResult(fmt.Errorf("could not delete %s: %w", t.rel(s.File), err))
		}
		return textResult(fmt.Sprintf("Deleted %q (%s).%s", s.Name, t.rel(s.File), stopped))
	})
	if err != nil {
		return o, err
	}
	var a nameArg
	if err := decode(c.Args, &a); err != nil {
		return o, err
	}
	base := o.summary
	o.again = func() string {
		if s, err := t.find(a.Name); err == nil && s.Running {
			return base + " (it runs: stopped first)"
		}
		return base
	}
	o.summary = o.again()
	return o, nil
}

func (t *Tools) startServer(c Call) (op, error) {
	return t.onServer(c, StartServer, func(ctx context.Context, s ServerState) *mcp.CallToolResult {
		st, err := t.host.Start(ctx, s.Name)
		if err != nil {
			return errResult(err) // the host's own words: they name the server and the reason
		}
		if !st.Running {
			return errResult(fmt.Errorf("%q did not start: %s", s.Name, st.Problem))
		}
		return textResult(started(st)...)
	})
}

// started tells where a started server answers.
func started(s ServerState) []string {
	if s.Kind == workspace.KindHTTP {
		return []string{fmt.Sprintf("%q serves at %s (an HTTP API: every route under it).", s.Name, s.URL)}
	}
	lines := []string{fmt.Sprintf("%q serves at %s (Streamable HTTP).", s.Name, s.URL)}
	if u, err := url.Parse(s.URL); err == nil && u.Host != "" {
		u.Path, u.RawQuery = "/sse", ""
		lines = append(lines, fmt.Sprintf("Clients of the 2024-11-05 protocol use the HTTP+SSE transport at %s.", u))
	}
	if s.Problem != "" {
		lines = append(lines, "Problem: "+s.Problem)
	}
	return lines
}

func (t *Tools) stopServer(c Call) (op, error) {
	return t.onServer(c, StopServer, func(ctx context.Context, s ServerState) *mcp.CallToolResult {
		// Asked even when it does not run: a server left started with a broken file is then
		// no longer started again.
		if err := t.host.Stop(ctx, s.Name); err != nil {
			return errResult(err)
		}
		if !s.Running {
			return textResult(fmt.Sprintf("%q was not running; it stays stopped.", s.Name))
		}
		return textResult(fmt.Sprintf("Stopped %q; its file stays.", s.Name))
	})
}

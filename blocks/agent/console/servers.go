package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"regexp"

	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/reference"
	"github.com/octo-run/octo/templates"
)

// lineIssue is one problem of a file, where it is: what the page shows at the line.
type lineIssue struct {
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Message string `json:"message"`
	Text    string `json:"text"` // the whole diagnostic, file:line:col first
}

func (c *api) issues(ds config.Diags) []lineIssue {
	ds.Sort()
	out := make([]lineIssue, len(ds))
	for i, d := range ds {
		d.File = c.rel(d.File)
		out[i] = lineIssue{Line: d.Line, Col: d.Col, Message: d.Msg, Text: d.String()}
	}
	return out
}

// findServer is the saved server called name (exactly).
func (c *api) findServer(name string) (agenttools.ServerState, bool) {
	for _, s := range c.app.States() {
		if s.Name == name {
			return s, true
		}
	}
	return agenttools.ServerState{}, false
}

// saved finds the saved server name, or answers 404.
func (c *api) saved(name string) (agenttools.ServerState, *reply) {
	s, found := c.findServer(name)
	if !found {
		r := failf(http.StatusNotFound, "no saved server %s", quoteLog(name))
		return s, &r
	}
	return s, nil
}

// namedServer decodes a body {"name": …} and finds that saved server, or answers why not.
func (c *api) namedServer(r *request) (agenttools.ServerState, *reply) {
	var a struct {
		Name string `json:"name"`
	}
	if err := args(r, &a); err != nil {
		bad := fail(http.StatusBadRequest, err.Error())
		return agenttools.ServerState{}, &bad
	}
	return c.saved(a.Name)
}

// fileText reads a saved server's file, or answers 422 with its problems.
func (c *api) fileText(s agenttools.ServerState) ([]byte, *reply) {
	text, ds := workspace.ReadServerText(c.app.Workspace(), s.File)
	if len(ds) > 0 {
		r := reply{status: http.StatusUnprocessableEntity, value: problem{Error: "the file cannot be read", Problems: c.issues(ds)}}
		return nil, &r
	}
	return text, nil
}

// yamlView is a server file's text.
type yamlView struct {
	Name string `json:"name"`
	File string `json:"file"`
	YAML string `json:"yaml"`
}

func (c *api) getYAML(_ context.Context, r *request) reply {
	s, refused := c.saved(r.ex.Query().Get("name"))
	if refused != nil {
		return *refused
	}
	text, refused := c.fileText(s)
	if refused != nil {
		return *refused
	}
	return ok(yamlView{Name: s.Name, File: c.rel(s.File), YAML: string(text)})
}

// putYAML replaces a server's file with the body (text), when it has no problem.
func (c *api) putYAML(_ context.Context, r *request, w *workspace.Writer) reply {
	s, refused := c.saved(r.ex.Query().Get("name"))
	if refused != nil {
		return *refused
	}
	return c.writeChecked(w, s.File, r.body, http.StatusOK)
}

// writeChecked writes text as the server file when serving it would have no problem: else
// 422 with every problem at its line.
func (c *api) writeChecked(w *workspace.Writer, file string, text []byte, status int) reply {
	srv, ds := workspace.CheckServer(w.Dir(), file, text, "")
	if len(ds) > 0 {
		return reply{status: http.StatusUnprocessableEntity,
			value: problem{Error: fmt.Sprintf("not saved: %s has %d problem(s)", c.rel(file), len(ds)), Problems: c.issues(ds)}}
	}
	if err := w.WriteServer(file, text); err != nil {
		return failf(http.StatusInternalServerError, "could not write %s: %v", c.rel(file), err)
	}
	return reply{status: status, value: map[string]string{"name": srv.Name, "file": c.rel(file)}}
}

// newServer writes a server from the starter, named "New server" (or the first free "New
// server N"), on the next free port.
func (c *api) newServer(_ context.Context, r *request, w *workspace.Writer) reply {
	var a struct {
		Name string `json:"name"`
	}
	if err := args(r, &a); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	name := a.Name
	if name == "" {
		name = c.freeName("New server")
	}
	if err := workspace.CheckName(name); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	if _, taken := c.findServer(name); taken {
		return failf(http.StatusConflict, "a server is called %s already", quoteLog(name))
	}
	text, err := templates.RenderMockServer(templates.MockServer{Name: name, Port: w.NextPort()})
	if err != nil {
		return fail(http.StatusInternalServerError, err.Error())
	}
	if err := reference.WriteSchemas(w.Dir(), "server", "workspace", "test"); err != nil { // the starter's modeline names them
		return failf(http.StatusInternalServerError, "could not write the schemas: %v", err)
	}
	return c.writeNew(w, name, text)
}

// writeNew writes text as the new file of the server name.
func (c *api) writeNew(w *workspace.Writer, name string, text []byte) reply {
	file := workspace.ServerFile(w.Dir(), name)
	if _, err := os.Lstat(file); err == nil {
		return failf(http.StatusConflict, "%s exists already", c.rel(file))
	}
	return c.writeChecked(w, file, text, http.StatusCreated)
}

// freeName is base, else the first of "base 2", "base 3"… no saved server or file has.
func (c *api) freeName(base string) string {
	name := base
	for n := 2; ; n++ {
		_, taken := c.findServer(name)
		_, err := os.Lstat(workspace.ServerFile(c.app.Workspace(), name))
		if !taken && errors.Is(err, fs.ErrNotExist) {
			return name
		}
		name = fmt.Sprintf("%s %d", base, n)
	}
}

// The top-level keys rename and duplicate rewrite in a file's text, keeping the rest (comments
// included) as written.
var (
	nameLine = regexp.MustCompile(`(?m)^name:[^\n]*$`)
	portLine = regexp.MustCompile(`(?m)^port:[^\n]*$`)
)

// withKey sets a top-level key's line of text (a JSON string or number is a YAML scalar).
func withKey(text []byte, line *regexp.Regexp, key string, value any) ([]byte, error) {
	v, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	if !line.Match(text) {
		return nil, fmt.Errorf("the file has no top-level %s: line to change; edit its YAML", key)
	}
	return line.ReplaceAllLiteral(text, append([]byte(key+": "), v...)), nil
}

type renameArgs struct {
	Name string `json:"name"`
	To   string `json:"to"`
}

// rename moves a server to the file of its new name, stopping and starting it when it runs.
func (c *api) rename(ctx context.Context, r *request, w *workspace.Writer) reply {
	var a renameArgs
	if err := args(r, &a); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	s, refused := c.saved(a.Name)
	if refused != nil {
		return *refused
	}
	if err := workspace.CheckName(a.To); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	if _, taken := c.findServer(a.To); taken {
		return failf(http.StatusConflict, "a server is called %s already", quoteLog(a.To))
	}
	text, refused := c.fileText(s)
	if refused != nil {
		return *refused
	}
	text, err := withKey(text, nameLine, "name", a.To)
	if err != nil {
		return fail(http.StatusUnprocessableEntity, err.Error())
	}
	// Checked first, as the file that takes the old one's place (its own port is no clash):
	// a refused rename leaves the server as it was, running if it ran.
	dir := w.Dir()
	file := workspace.ServerFile(dir, a.To)
	if _, err := os.Lstat(file); err == nil {
		return failf(http.StatusConflict, "%s exists already", c.rel(file))
	}
	if _, ds := workspace.CheckRename(dir, s.File, file, text); len(ds) > 0 {
		return reply{status: http.StatusUnprocessableEntity,
			value: problem{Error: fmt.Sprintf("not renamed: %s would have %d problem(s)", c.rel(file), len(ds)), Problems: c.issues(ds)}}
	}
	if s.Running {
		if err := c.app.Stop(ctx, s.Name); err != nil {
			return failf(http.StatusConflict, "could not stop %s to rename it: %v", quoteLog(s.Name), err)
		}
	}
	if err := w.WriteServer(file, text); err != nil {
		c.startAgain(ctx, s)
		return failf(http.StatusInternalServerError, "not renamed: could not write %s: %v", c.rel(file), err)
	}
	if err := w.RemoveServer(s.File); err != nil {
		return failf(http.StatusInternalServerError, "renamed, but the old file stays: %v", err)
	}
	if s.Running {
		if _, err := c.app.Start(ctx, a.To); err != nil {
			return failf(http.StatusConflict, "renamed, but it did not start again: %v", err)
		}
	}
	return reply{status: http.StatusCreated, value: map[string]string{"name": a.To, "file": c.rel(file)}}
}

// startAgain starts s again after a rename that could not be written: it stays as it was.
func (c *api) startAgain(ctx context.Context, s agenttools.ServerState) {
	if !s.Running {
		return
	}
	if _, err := c.app.Start(ctx, s.Name); err != nil {
		c.log.Error("a server stopped for a rename did not start again: "+err.Error(), "server", s.Name)
	}
}

// duplicate copies a server under "<name> copy", on the next free port.
func (c *api) duplicate(_ context.Context, r *request, w *workspace.Writer) reply {
	s, refused := c.namedServer(r)
	if refused != nil {
		return *refused
	}
	text, refused := c.fileText(s)
	if refused != nil {
		return *refused
	}
	name := c.freeName(s.Name + " copy")
	text, err := withKey(text, nameLine, "name", name)
	if err == nil {
		text, err = withKey(text, portLine, "port", w.NextPort())
	}
	if err != nil {
		return fail(http.StatusUnprocessableEntity, err.Error())
	}
	return c.writeNew(w, name, text)
}

// toolArgs switch one tool of a server on or off.
type toolArgs struct {
	Name    string `json:"name"`
	Tool    string `json:"tool"`
	Enabled bool   `json:"enabled"`
}

// toolEnabled switches a tool through get_server and save_server, as an agent would.
func (c *api) toolEnabled(ctx context.Context, r *request) reply {
	var a toolArgs
	if err := args(r, &a); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	fields, res := c.fields(ctx, a.Name)
	if res != nil {
		return *res
	}
	mcpFields, _ := fields["mcp"].(map[string]any)
	tools, _ := mcpFields["tools"].([]any)
	found := false
	for _, t := range tools {
		if m, isMap := t.(map[string]any); isMap && m["name"] == a.Tool {
			found = true
			if a.Enabled {
				delete(m, "enabled") // on is the default
			} else {
				m["enabled"] = false
			}
		}
	}
	if !found {
		return failf(http.StatusNotFound, "%s has no tool %s", quoteLog(a.Name), quoteLog(a.Tool))
	}
	return c.saveFields(ctx, fields)
}

// fields are a saved server's fields in save_server's form (get_server's answer).
func (c *api) fields(ctx context.Context, name string) (map[string]any, *reply) {
	arg, _ := json.Marshal(map[string]string{"name": name})
	res, err := c.runTool(ctx, agenttools.GetServer, arg)
	if err != nil || res.IsError {
		r := failf(http.StatusNotFound, "%s", errText(err, resultText(res)))
		return nil, &r
	}
	var got struct {
		Fields  map[string]any `json:"fields"`
		Problem string         `json:"problem"`
	}
	if err := json.Unmarshal([]byte(resultText(res)), &got); err != nil || got.Fields == nil {
		r := failf(http.StatusUnprocessableEntity, "the file cannot be read as fields: %s; edit its YAML", got.Problem)
		return nil, &r
	}
	return got.Fields, nil
}

// saveFields saves fields with save_server; its refusal (the file's problems) is a 422.
func (c *api) saveFields(ctx context.Context, fields map[string]any) reply {
	arg, err := json.Marshal(fields)
	if err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	res, err := c.runTool(ctx, agenttools.SaveServer, arg)
	if err != nil {
		return fail(http.StatusInternalServerError, err.Error())
	}
	if res.IsError {
		return fail(http.StatusUnprocessableEntity, resultText(res))
	}
	return ok(callView{Text: resultText(res), Result: res})
}

func errText(err error, text string) string {
	if err != nil {
		return err.Error()
	}
	return text
}

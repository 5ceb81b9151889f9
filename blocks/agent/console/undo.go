package console

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"

	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
)

// maxUndo bounds the deletions kept for undo (this run only).
const maxUndo = 20

// deleted is a deleted server's file, kept so the user can undo.
type deleted struct {
	id, name, file string
	text           []byte
}

// undoList holds the last deletions, the newest last.
type undoList []deleted

// delete deletes a server with delete_server (stopping it when it runs), keeping its file's
// text for /api/undo.
func (c *api) delete(ctx context.Context, r *request) reply {
	s, refused := c.namedServer(r)
	if refused != nil {
		return *refused
	}
	text, ds := workspace.ReadServerText(c.app.Workspace(), s.File) // kept as it is, even when broken
	if len(ds) > 0 {
		return failf(http.StatusConflict, "could not read %s: %s", c.rel(s.File), ds[0].Msg)
	}
	arg, _ := json.Marshal(map[string]string{"name": s.Name})
	res, err := c.runTool(ctx, agenttools.DeleteServer, arg)
	if err != nil || res.IsError {
		return fail(http.StatusConflict, errText(err, resultText(res)))
	}
	var raw [12]byte
	_, _ = rand.Read(raw[:])
	d := deleted{id: hex.EncodeToString(raw[:]), name: s.Name, file: s.File, text: text}
	c.mu.Lock()
	c.undo = append(c.undo, d)
	if len(c.undo) > maxUndo {
		c.undo = slices.Delete(c.undo, 0, len(c.undo)-maxUndo)
	}
	c.mu.Unlock()
	return ok(map[string]string{"deleted": s.Name, "undo": d.id, "text": resultText(res)})
}

// undoDelete writes a deleted server's file back, unless its file was taken meanwhile.
func (c *api) undoDelete(_ context.Context, r *request, w *workspace.Writer) reply {
	var a struct {
		Undo string `json:"undo"`
	}
	if err := args(r, &a); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	c.mu.Lock()
	i := slices.IndexFunc(c.undo, func(d deleted) bool { return d.id == a.Undo })
	var d deleted
	if i >= 0 {
		d = c.undo[i]
		c.undo = slices.Delete(c.undo, i, i+1)
	}
	c.mu.Unlock()
	if i < 0 {
		return fail(http.StatusNotFound, "nothing to undo under that id (undo lasts for the last 20 deletions of this run)")
	}
	if _, err := os.Lstat(d.file); err == nil {
		return failf(http.StatusConflict, "%s exists again; it is left as it is", c.rel(d.file))
	}
	if err := w.WriteServer(d.file, d.text); err != nil {
		return failf(http.StatusInternalServerError, "could not write %s back: %v", c.rel(d.file), err)
	}
	return reply{status: http.StatusCreated, value: map[string]string{"name": d.name, "file": c.rel(d.file)}}
}

// workspaceYAML is workspace.yaml's text: variables, environments, the active one.
func (c *api) getWorkspaceYAML(context.Context, *request) reply {
	text, ds := workspace.ReadSettingsText(c.app.Workspace()) // inside the workspace only, as the servers read it
	if len(ds) > 0 {
		return failf(http.StatusUnprocessableEntity, "%s is not read: %s", workspace.SettingsFile, ds[0].Msg)
	}
	return ok(map[string]string{"file": workspace.SettingsFile, "yaml": string(text)})
}

// putWorkspaceYAML checks the body as workspace.yaml (read in a folder of its own) and writes
// it when it has no problem.
func (c *api) putWorkspaceYAML(_ context.Context, r *request, w *workspace.Writer) reply {
	return c.writeWorkspaceYAML(w, r.body)
}

// writeWorkspaceYAML writes text as workspace.yaml when it has no problem: else 422 with every
// problem at its line.
func (c *api) writeWorkspaceYAML(w *workspace.Writer, text []byte) reply {
	tmp, err := os.MkdirTemp("", "octo-console-")
	if err != nil {
		return fail(http.StatusInternalServerError, err.Error())
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, workspace.SettingsFile), text, 0o600); err != nil {
		return fail(http.StatusInternalServerError, err.Error())
	}
	if _, ds := workspace.ReadSettings(tmp); len(ds) > 0 {
		for i := range ds {
			ds[i].File = workspace.SettingsFile
		}
		return reply{status: http.StatusUnprocessableEntity,
			value: problem{Error: "not saved: " + workspace.SettingsFile + " has problems", Problems: c.issues(ds)}}
	}
	if err := w.WriteSettings(text); err != nil {
		return failf(http.StatusInternalServerError, "could not write %s: %v", workspace.SettingsFile, err)
	}
	return ok(map[string]string{"file": workspace.SettingsFile})
}

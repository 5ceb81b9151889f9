package console

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
)

// variablesView is workspace.yaml as the Variables form edits it: the workspace's variables,
// the named environments and the active one.
type variablesView struct {
	Variables    map[string]string            `json:"variables"`
	Environments map[string]map[string]string `json:"environments"`
	Environment  string                       `json:"environment"`
	Secrets      []string                     `json:"secrets"` // the variables agents never read
}

// variablesHead starts workspace.yaml when the form writes it: the form keeps values, not
// comments, and says so to whoever opens the file.
const variablesHead = "# Written by the octo console's Variables form (comments here are not kept).\n"

// getVariables answers workspace.yaml read as the workspace reads it, or 422 with its problems
// (the YAML view fixes those).
func (c *api) getVariables(context.Context, *request) reply {
	s, ds := workspace.ReadSettings(c.app.Workspace())
	if len(ds) > 0 {
		return reply{status: http.StatusUnprocessableEntity,
			value: problem{Error: workspace.SettingsFile + " has problems; fix them as YAML", Problems: c.issues(ds)}}
	}
	v := variablesView{Variables: s.Variables, Environments: s.Environments, Environment: s.Environment, Secrets: s.Secrets}
	if v.Secrets == nil {
		v.Secrets = []string{}
	}
	if v.Variables == nil {
		v.Variables = map[string]string{}
	}
	if v.Environments == nil {
		v.Environments = map[string]map[string]string{}
	}
	return ok(v)
}

// saveVariables writes the form's values as workspace.yaml, checked as the YAML view's text is.
func (c *api) saveVariables(_ context.Context, r *request, w *workspace.Writer) reply {
	var v variablesView
	if err := args(r, &v); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	if why := blankName(v); why != "" {
		return fail(http.StatusBadRequest, why)
	}
	for name, env := range v.Environments {
		if env == nil { // an environment without values yet stays one
			v.Environments[name] = map[string]string{}
		}
	}
	settings := workspace.Settings{Variables: v.Variables, Environments: v.Environments, Environment: v.Environment, Secrets: v.Secrets}
	text, err := settings.Text()
	if err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	return c.writeWorkspaceYAML(w, append([]byte(variablesHead), text...))
}

// blankName says which name of v is empty or only spaces ("" when none is): YAML would take
// one, but no {{name}} tag could use it.
func blankName(v variablesView) string {
	blank := func(s string) bool { return strings.TrimSpace(s) == "" }
	for k := range v.Variables {
		if blank(k) {
			return "a variable has no name"
		}
	}
	for env, vars := range v.Environments {
		if blank(env) {
			return "an environment has no name"
		}
		for k := range vars {
			if blank(k) {
				return fmt.Sprintf("a variable of the environment %s has no name", quoteLog(env))
			}
		}
	}
	return ""
}

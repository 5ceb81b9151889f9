// Package workspace is the config adapter for a folder of saved mock
// servers: `servers/<Server name>.yaml`, one per server, and the workspace
// settings in `workspace.yaml` (variables, named environments, the active
// one). It turns each saved server into the runtime's config model — an
// http connector on 127.0.0.1 and flows running the mcp-mock block on the
// server's path, /sse and /messages (or a stdio connector and one flow) —
// and runs them, each built on its own, following edits to the files. It
// reads only regular files that lie inside the folder (a symbolic link
// leading outside is refused unread) and applies an edit once the file has
// stopped changing, so a half-written file is never served.
//
// It owns the folder format and the serving of many servers; it must not
// know the MCP protocol (blocks/mcp) nor what a server's settings mean
// (blocks/mcp/mock): it hands the `mcp:` section over as it was written.
// Workspace files use {{variables}}, never ${ENV}: they are not interpolated.
package workspace

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// The folder layout.
const (
	SettingsFile = "workspace.yaml"
	ServersDir   = "servers"
)

// Is reports whether path is a workspace folder: a folder holding
// workspace.yaml or a servers folder.
func Is(path string) bool {
	if info, err := os.Stat(path); err != nil || !info.IsDir() {
		return false
	}
	if info, err := os.Stat(filepath.Join(path, SettingsFile)); err == nil && !info.IsDir() {
		return true
	}
	info, err := os.Stat(filepath.Join(path, ServersDir))
	return err == nil && info.IsDir()
}

func init() {
	runtime.RegisterAdapter(runtime.AdapterSpec{
		Type:    "mcp-workspace",
		Summary: "a folder of saved MCP mock servers, one file per server, served each on its port",
		Files: []runtime.AdapterFile{
			{Name: "workspace", Pattern: SettingsFile, Doc: "The workspace's variables and named environments (optional).", Settings: runtime.SettingsOf[Settings]()},
			{Name: "server", Pattern: ServersDir + "/*.yaml", Doc: "One saved server: its name, port and mcp-mock settings.", Settings: runtime.SettingsOf[fileSettings]()},
		},
	})
}

// Settings are the workspace settings file.
type Settings struct {
	// Variables fill {{name}} tags in every server's answers.
	Variables map[string]string `yaml:"variables" doc:"Values for {{name}} tags in every server's answers; a server's own mcp.variables win over them." example:"{token: dev-token}"`
	// Environments are named sets of variables; the active one's values win
	// over Variables.
	Environments map[string]map[string]string `yaml:"environments" doc:"Named sets of variables; the active environment's values win over variables." example:"{local: {apiBase: 'http://localhost:8080'}}"`
	// Environment names the active environment ("" for none).
	Environment string `yaml:"environment" doc:"The active environment, one of environments; octo serve --env picks another."`
}

// readSettings reads workspace.yaml; a workspace without one has no
// variables.
func readSettings(dir string) (*Settings, config.Diags) {
	file := filepath.Join(dir, SettingsFile)
	if _, err := os.Lstat(file); errors.Is(err, fs.ErrNotExist) {
		return &Settings{}, nil
	}
	root, ds := readYAML(dir, file)
	if len(ds) > 0 {
		return nil, ds
	}
	var s Settings
	if root == nil {
		return &s, nil
	}
	if ds := config.Decode(root, &s, config.Where{File: file}); len(ds) > 0 {
		return nil, ds
	}
	if s.Environment != "" {
		if _, ok := s.Environments[s.Environment]; !ok {
			return nil, config.Diags{config.Where{File: file, Path: "environment"}.Diag(value(root, "environment"),
				config.Unknown("environment", s.Environment, envNames(&s)))}
		}
	}
	return &s, nil
}

func envNames(s *Settings) []string { return slices.Sorted(maps.Keys(s.Environments)) }

// Vars returns the variables for the environment env ("" means the one the
// settings name): the workspace's, overridden by the environment's.
func (s *Settings) Vars(env string) (map[string]string, error) {
	if env == "" {
		env = s.Environment
	}
	out := maps.Clone(s.Variables)
	if out == nil {
		out = map[string]string{}
	}
	if env == "" {
		return out, nil
	}
	values, ok := s.Environments[env]
	if !ok {
		return nil, errors.New(config.Unknown("environment", env, envNames(s)))
	}
	maps.Copy(out, values)
	return out, nil
}

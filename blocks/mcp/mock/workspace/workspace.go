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
// know the MCP protocol (mcp) nor what a server's settings mean
// (blocks/mcp/mock): it hands the `mcp:` section over as it was written.
// Workspace files use {{variables}}, never ${ENV}: they are not interpolated.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"gopkg.in/yaml.v3"

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
			{Name: "workspace", Pattern: SettingsFile, Doc: "The workspace's variables and named environments (optional).", Settings: runtime.SettingsTypeOf[Settings]()},
			{Name: "server", Pattern: ServersDir + "/*.yaml", Doc: "One saved server: its name, port and mcp-mock settings.", Settings: runtime.SettingsTypeOf[fileSettings]()},
		},
		Is: Is,
		Open: func(path string, o runtime.AdapterOptions) (runtime.UnitSource, error) {
			return Open(path, Options{Logger: o.Logger})
		},
		Validate: func(path string) ([]string, config.Diags) { return Validate(path, "") },
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
	// Secrets name the variables whose values AI agents must never read.
	// Cluster is service.cluster for every saved server: their tasks live there.
	Cluster *yaml.Node `yaml:"cluster" doc:"The cluster the replicas of this workspace's servers share their tasks through (NATS JetStream), with the keys of a flow config's service.cluster (url, credentials, prefix, …): run octo serve on several machines and any of them answers for any task. Without it, each process keeps its own."`
	Secrets []string   `yaml:"secrets" doc:"Variables whose values are secret (API keys, tokens): servers answer with them as usual, but what an AI agent reads through octo mcp (call_server, get_traffic, every tool's answer) has each value replaced by ***, and a save's approval says which secret variables the server reads. Each must be a variable of variables or of an environment, with a value of at least 4 characters." example:"[apiKey]"`
}

// MinSecretLength is the shortest value a secret variable may have: a shorter one could not be
// told apart from other text, and masking it would garble answers.
const MinSecretLength = 4

// SecretValues are the values the secret variables have, in the workspace's variables and in
// every environment (a server may run with any of them), longest first, so that a value holding
// another is replaced whole.
func (s *Settings) SecretValues() []string {
	var out []string
	add := func(vars map[string]string) {
		for _, name := range s.Secrets {
			if v, ok := vars[name]; ok && len(v) >= MinSecretLength && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	add(s.Variables)
	for _, env := range envNames(s) {
		add(s.Environments[env])
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// checkSecrets reports a secret that names no variable, or whose value is too short to mask.
func (s *Settings) checkSecrets(root *yaml.Node, file string) config.Diags {
	var ds config.Diags
	list := value(root, "secrets")
	for i, name := range s.Secrets {
		at := config.Where{File: file, Path: fmt.Sprintf("secrets[%d]", i)}
		node := list
		if list != nil && i < len(list.Content) {
			node = list.Content[i]
		}
		values := []string{}
		if v, ok := s.Variables[name]; ok {
			values = append(values, v)
		}
		for _, env := range envNames(s) {
			if v, ok := s.Environments[env][name]; ok {
				values = append(values, v)
			}
		}
		switch {
		case len(values) == 0:
			ds = append(ds, at.Diag(node, "secrets names "+config.Unknown("variable", name, s.names())))
		case slices.ContainsFunc(values, func(v string) bool { return len(v) < MinSecretLength }):
			ds = append(ds, at.Diag(node, fmt.Sprintf("secret variable %q has a value shorter than %d characters, which could not be told apart from other text; give it a longer one", name, MinSecretLength)))
		}
	}
	return ds
}

// names are every variable's name, for did-you-mean.
func (s *Settings) names() []string {
	set := maps.Clone(s.Variables)
	if set == nil {
		set = map[string]string{}
	}
	for _, vars := range s.Environments {
		maps.Copy(set, vars)
	}
	return slices.Sorted(maps.Keys(set))
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
	if ds := s.checkSecrets(root, file); len(ds) > 0 {
		return nil, ds
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

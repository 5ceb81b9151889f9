package workspace

// What a program editing a workspace on the user's behalf (the agent tools) needs: the folder's
// own reading, checking and writing of saved server files, so an edit is refused with the same
// messages the file would give when served.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/config"
)

// ReadSettings reads the workspace settings file of the workspace dir; a workspace without one
// has no variables.
func ReadSettings(dir string) (*Settings, config.Diags) { return readSettings(dir) }

// CheckName says why name cannot be a saved server's name (it must be a file name and hold no
// answer tag), nil when it can.
func CheckName(name string) error { return checkServerName(name) }

// ServerFile is the file a new saved server called name is written to.
func ServerFile(dir, name string) string { return filepath.Join(dir, ServersDir, name+".yaml") }

// ReadSettingsText reads the workspace dir's workspace.yaml as the workspace reads it: only a
// regular file inside the folder; nil, no problem, when there is none.
func ReadSettingsText(dir string) ([]byte, config.Diags) {
	file := filepath.Join(dir, SettingsFile)
	if _, err := os.Lstat(file); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return readFile(dir, file)
}

// ReadServerText reads a saved server file of the workspace dir as the workspace reads it: only
// a regular file inside the folder.
func ReadServerText(dir, file string) ([]byte, config.Diags) { return readFile(dir, file) }

// CheckServer checks text as the saved server file `file` of the workspace dir, with every check
// serving it would make: the file's keys, its name and port against the other saved servers,
// and the server built with the variables of environment ("": the active one). It returns the
// server as read, its port assigned when the text sets none, or every problem.
func CheckServer(dir, file string, text []byte, environment string) (*Server, config.Diags) {
	return checkServer(dir, file, "", text, environment)
}

// CheckRename checks text as the file `to` that takes the place of the saved server file
// `from` (a rename): as CheckServer does, but with `from` left out of the servers it is checked
// against, so a fixed port or name it shares with its own old file is no clash.
func CheckRename(dir, from, to string, text []byte) (*Server, config.Diags) {
	return checkServer(dir, to, from, text, "")
}

// checkServer is CheckServer of file, taking the place of the file replaces ("": none).
func checkServer(dir, file, replaces string, text []byte, environment string) (*Server, config.Diags) {
	settings, ds := readSettings(dir)
	if len(ds) > 0 {
		return nil, ds
	}
	vars, err := settings.Vars(environment)
	if err != nil {
		return nil, config.Diags{{File: filepath.Join(dir, SettingsFile), Msg: err.Error()}}
	}
	s, ds := parseServer(file, text)
	if len(ds) > 0 {
		return nil, ds
	}
	others, _ := ReadAll(dir) // the other files' own problems are not this one's
	used := map[int]bool{}
	for i := 0; i < len(others); i++ {
		if samePath(others[i].File, file) || replaces != "" && samePath(others[i].File, replaces) {
			others = append(others[:i], others[i+1:]...)
			i--
			continue
		}
		used[others[i].Port] = true
	}
	if clash := clashes(s, others); clash != "" {
		return nil, config.Diags{{File: file, Line: s.root.Line, Col: s.root.Column, Msg: clash}}
	}
	if !s.PortSet {
		s.Port = nextPort(used)
	}
	if ds := buildProblems(s, vars, settings.Cluster); len(ds) > 0 {
		return nil, ds
	}
	return s, nil
}

// serversFolder returns the servers folder of dir that file must lie directly in.
func serversFolder(dir, file string) (string, error) {
	folder := filepath.Join(dir, ServersDir)
	if !samePath(filepath.Dir(file), folder) {
		return "", fmt.Errorf("%s is not a file of the workspace's %s folder", file, ServersDir)
	}
	return folder, nil
}

// samePath reports whether a and b name the same place, written alike once made absolute.
func samePath(a, b string) bool {
	if abs, err := filepath.Abs(a); err == nil {
		a = abs
	}
	if abs, err := filepath.Abs(b); err == nil {
		b = abs
	}
	return a == b
}

// Text is s as workspace.yaml text, its empty parts left out (nothing when all are): what an editor
// of the settings (the console's Variables form) writes, so only this package writes YAML.
func (s *Settings) Text() ([]byte, error) {
	text, err := yaml.Marshal(struct {
		Variables    map[string]string            `yaml:"variables,omitempty"`
		Environments map[string]map[string]string `yaml:"environments,omitempty"`
		Environment  string                       `yaml:"environment,omitempty"`
		Secrets      []string                     `yaml:"secrets,omitempty"`
	}{s.Variables, s.Environments, s.Environment, s.Secrets})
	if err != nil || string(text) == "{}\n" {
		return nil, err
	}
	return text, nil
}

package appdata

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/octo-run/octo/runtime/config"
)

// SettingsFile is the name of the user's settings, in the data folder.
const SettingsFile = "settings.yaml"

// The values of Agents.Approve.
const (
	ApproveChanges = "changes" // the user approves every action that changes something
	ApproveNever   = "never"   // agents act without asking
)

// Settings are what the user chose, kept in settings.yaml: the console and `octo app` flags
// change them, the app and the bridge read them.
type Settings struct {
	Workspace string `yaml:"workspace" doc:"The workspace folder the app opened last, which it opens when started without one."`
	Agents    Agents `yaml:"agents" doc:"What AI agents connected through octo mcp may do."`
}

// Agents are the settings about AI agents.
type Agents struct {
	Allow      bool   `yaml:"allow" default:"false" doc:"Agents may use octo's tools; off until the user turns it on (the first agent call asks)."`
	WithoutApp bool   `yaml:"withoutApp" default:"false" doc:"When the app is not running, octo mcp runs the tools itself on the last workspace, refusing what would need the user's approval."`
	Approve    string `yaml:"approve" default:"changes" enum:"changes,never" doc:"Which agent actions wait for the user's approval: changes (saving, deleting, starting, stopping) or never."`
}

// maxSettingsBytes bounds settings.yaml: a few lines are expected.
const maxSettingsBytes = 1 << 20

// LoadSettings reads dir/settings.yaml; the defaults when there is none. A symbolic link, a file
// the group or others may write, and a file with a mistake are errors (config.Diags for
// mistakes, each at its line): settings decide what agents may do.
func LoadSettings(dir string) (Settings, error) {
	var s Settings
	path := filepath.Join(dir, SettingsFile)
	data, err := readChecked(path, 0o022, maxSettingsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		data, err = nil, nil
	}
	if err != nil {
		return Settings{}, err
	}
	roots, ds := config.Parse(path, data)
	if len(ds) > 0 {
		return Settings{}, ds
	}
	if len(roots) > 1 {
		return Settings{}, fmt.Errorf("%s: holds %d YAML documents; settings are one", path, len(roots))
	}
	if len(roots) == 0 {
		ds = config.Decode(nil, &s, config.Where{File: path})
	} else {
		ds = config.Decode(roots[0], &s, config.Where{File: path})
	}
	if len(ds) > 0 {
		return Settings{}, ds
	}
	return s, nil
}

// SaveSettings writes s as dir/settings.yaml (0600, replaced at once).
func SaveSettings(dir string, s Settings) error {
	if s.Agents.Approve != ApproveChanges && s.Agents.Approve != ApproveNever {
		return fmt.Errorf("agents.approve is %q: want %s or %s", s.Agents.Approve, ApproveChanges, ApproveNever)
	}
	if !utf8.ValidString(s.Workspace) {
		return errors.New("the workspace path is not UTF-8 text, which settings.yaml cannot hold")
	}
	return writePrivate(dir, SettingsFile, s.yaml())
}

// yaml is s as settings.yaml text. The workspace is written double-quoted: Go's quoting gives
// escapes YAML reads the same way, so any path comes back as it went.
func (s Settings) yaml() []byte {
	var b strings.Builder
	b.WriteString("# octo's settings: octo app and its console write this file.\n")
	b.WriteString("workspace: " + strconv.Quote(s.Workspace) + "\n")
	b.WriteString("agents:\n")
	b.WriteString("  allow: " + strconv.FormatBool(s.Agents.Allow) + "\n")
	b.WriteString("  withoutApp: " + strconv.FormatBool(s.Agents.WithoutApp) + "\n")
	b.WriteString("  approve: " + s.Agents.Approve + "\n")
	return []byte(b.String())
}

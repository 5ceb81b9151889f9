// Package appdata owns the octo app's data folder: where it is, and the files in it that the app
// and the agent bridge (`octo mcp`) share. agent.json says where the running app listens for
// agents and holds the secret both sides prove they know (see agentlink/handshake);
// settings.yaml keeps the user's choices (the last workspace, whether agents may act); two lock
// files let one bridge at a time start the app (start.lock) and one app at a time serve the
// folder (app.lock). (Writes to a workspace take turns through the workspace's own lock:
// workspace.Lock.)
//
// agent.json is a secret: it is written readable by the user only (0600, to a temporary file
// renamed into place, so a reader never sees half of it), and a reader refuses it when it is a
// symbolic link, not a regular file, or readable by the group or others, since any of those
// means someone else may know or have chosen the token. (On Windows, where a file's mode says
// nothing of who may read it, the check is the folder's: %APPDATA% is the user's own.)
//
// It knows nothing of MCP, the handshake or the app's state: only files and their rules.
package appdata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// EnvDataDir names the variable that sets the data folder when no flag does.
const EnvDataDir = "OCTO_DATA_DIR"

// appName is the folder's name under the system's place for application data.
const appName = "octo"

// DataDir returns the data folder: flag (the --data-dir flag) if set, else $OCTO_DATA_DIR, else
// the system's place for application data (Linux and other Unix: $XDG_DATA_HOME/octo or
// ~/.local/share/octo; macOS: ~/Library/Application Support/octo; Windows: %APPDATA%\octo). A
// relative flag or variable is made absolute, since the bridge hands the folder to an app it
// starts. It returns an error when the system gives no place (no home folder).
// A folder that exists must be the user's own and closed to others' writes (CheckFolder).
func DataDir(flag string) (string, error) {
	dir, err := dataDir(flag, runtime.GOOS, os.Getenv)
	if err != nil {
		return "", err
	}
	return dir, CheckFolder(dir)
}

// dataDir is DataDir for a given system and environment.
func dataDir(flag, goos string, getenv func(string) string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if env := getenv(EnvDataDir); env != "" {
		return filepath.Abs(env)
	}
	base, err := systemDir(goos, getenv)
	if err != nil {
		return "", fmt.Errorf("no data folder: %w; set %s or pass --data-dir", err, EnvDataDir)
	}
	return filepath.Join(base, appName), nil
}

// systemDir is the system's folder for application data, the one the app's folder goes in.
func systemDir(goos string, getenv func(string) string) (string, error) {
	switch goos {
	case "windows":
		if d := getenv("APPDATA"); d != "" {
			return d, nil
		}
		return "", errors.New("%APPDATA% is not set")
	case "darwin", "ios":
		home, err := homeDir(getenv)
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "Library", "Application Support"), nil
	}
	// The XDG base directory rules: a relative $XDG_DATA_HOME is invalid and ignored.
	if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return d, nil
	}
	home, err := homeDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share"), nil
}

func homeDir(getenv func(string) string) (string, error) {
	if h := getenv("HOME"); h != "" && filepath.IsAbs(h) {
		return h, nil
	}
	return "", errors.New("$HOME is not set to an absolute path")
}

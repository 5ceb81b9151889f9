package app

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// StartedFile is the file in the data folder that remembers, per workspace, which saved servers
// are started, so the app starts them again when it next opens the workspace. It lives beside
// settings.yaml rather than in it: settings are what the user chose, this is what the app did.
const StartedFile = "started.json"

// startedFile reads and writes StartedFile: {"workspaces": {"/abs/ws": ["Weather mock.yaml"]}},
// servers by file name, which survives a server's renaming.
type startedFile struct {
	dir string
	mu  sync.Mutex
}

type startedDoc struct {
	Workspaces map[string][]string `json:"workspaces"`
}

// load returns the servers marked started in the workspace ws.
func (f *startedFile) load(ws string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	doc, err := f.read()
	return doc.Workspaces[ws], err
}

// mark marks the server file of workspace ws started (on) or not.
func (f *startedFile) mark(ws, file string, on bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	doc, err := f.read()
	if err != nil {
		return err
	}
	names := slices.DeleteFunc(doc.Workspaces[ws], func(n string) bool { return n == file })
	if on {
		names = append(names, file)
	}
	if len(names) == 0 {
		delete(doc.Workspaces, ws)
	} else {
		doc.Workspaces[ws] = names
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return writeReplacing(filepath.Join(f.dir, StartedFile), append(data, '\n'))
}

func (f *startedFile) read() (startedDoc, error) {
	doc := startedDoc{Workspaces: map[string][]string{}}
	data, err := os.ReadFile(filepath.Join(f.dir, StartedFile))
	if errors.Is(err, fs.ErrNotExist) {
		return doc, nil
	}
	if err != nil {
		return doc, err
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return startedDoc{Workspaces: map[string][]string{}}, errors.New(filepath.Join(f.dir, StartedFile) + ": " + err.Error())
	}
	if doc.Workspaces == nil {
		doc.Workspaces = map[string][]string{}
	}
	return doc, nil
}

// writeReplacing writes data to path (0600) through a temporary file renamed over it, so a
// reader never sees half of it.
func writeReplacing(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

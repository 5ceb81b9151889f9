package record

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/runtime/reference"
)

// saver writes a recording into its workspace as it grows.
type saver struct {
	dir, name, file string
	port            int
	w               writer
}

// newSaver gets the file's port (the next one no saved server uses) and the workspace's
// secret values, which are never written.
func newSaver(dir, name, file string) (*saver, error) {
	s := &saver{dir: dir, name: name, file: file}
	if err := s.locked(func(w *workspace.Writer) error { s.port = w.NextPort(); return nil }); err != nil {
		return nil, err
	}
	if settings, _ := workspace.ReadSettings(dir); settings != nil {
		for _, k := range settings.Secrets {
			values := []string{settings.Variables[k]}
			for _, env := range settings.Environments {
				values = append(values, env[k])
			}
			for _, v := range values {
				if len(v) >= 4 {
					s.w.secrets = append(s.w.secrets, secret{k, v})
				}
			}
		}
	}
	return s, nil
}

// follow saves the recording (render writes it) after each change has settled, and once more
// when stop closes.
func (s *saver) follow(changed <-chan struct{}, render func(name string, port int) ([]byte, error), stop <-chan struct{}) error {
	for {
		select {
		case <-changed:
			select {
			case <-time.After(saveEvery):
			case <-stop:
			}
			if err := s.save(render); err != nil {
				return err
			}
		case <-stop:
			return s.save(render)
		}
	}
}

// save writes the recording, checked as octo serve would read it.
func (s *saver) save(render func(name string, port int) ([]byte, error)) error {
	text, err := render(s.name, s.port)
	if err != nil {
		return err
	}
	if _, ds := workspace.CheckServer(s.dir, s.file, text, ""); len(ds) > 0 {
		return fmt.Errorf("the recording does not load as a mock server (a bug of octo record: please report it): %w", ds.Err())
	}
	return s.locked(func(w *workspace.Writer) error {
		if err := reference.WriteSchemas(s.dir, workspace.ServerSchema, "workspace"); err != nil {
			return err
		}
		return w.WriteServer(s.file, text)
	})
}

// locked runs f holding the workspace's write lock.
func (s *saver) locked(f func(*workspace.Writer) error) error {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := workspace.Lock(ctx, s.dir)
	if err != nil {
		return err
	}
	defer w.Unlock()
	return f(w)
}

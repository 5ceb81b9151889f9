package workspace

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/octo-run/octo/runtime/config"
)

// readFile reads a file of the workspace at root. It reads only what lies
// inside the workspace: a symbolic link (the file's or a folder's) is
// followed when it leads to a place inside, and one leading outside is
// refused without being read, so no error can quote what is there. Only
// regular files are read: a FIFO, device or socket is opened without
// blocking (O_NONBLOCK), seen for what it is and refused.
func readFile(root, file string) ([]byte, config.Diags) {
	refuse := func(msg string) ([]byte, config.Diags) {
		return nil, config.Diags{{File: file, Msg: msg}}
	}
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return refuse("cannot read file: " + osMessage(err))
	}
	if !inside(root, real) {
		return refuse("a symbolic link that leads outside the workspace; it is not read")
	}
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return refuse("cannot read file: " + osMessage(err))
	}
	defer f.Close()
	info, err := f.Stat()
	switch {
	case err != nil:
		return refuse("cannot read file: " + osMessage(err))
	case !info.Mode().IsRegular():
		return refuse("not a regular file (a FIFO, device or socket); it is not read")
	}
	if now, err := os.Stat(real); err != nil || !os.SameFile(info, now) {
		// Swapped since the links were followed: read it on the next look.
		return refuse("the file changed while it was opened; it is read again on the next edit")
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return refuse("cannot read file: " + osMessage(err))
	}
	return data, nil
}

// inside reports whether the resolved path real lies in the workspace at
// root.
func inside(root, real string) bool {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	rel, err := filepath.Rel(root, real)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// listable reports the folder entries that may be saved files: regular
// files and symbolic links (followed, and checked, when read). FIFOs,
// devices and sockets are left out without a word.
func listable(e fs.DirEntry) bool {
	return e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0
}

func osMessage(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

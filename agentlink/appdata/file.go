package appdata

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/octo-run/octo/runtime/filelock"
)

// ErrUnsafe marks a file refused because someone other than the user could have read or
// written it: a symbolic link, not a regular file, or open to the group or others.
var ErrUnsafe = filelock.ErrUnsafe

// mkdirPrivate makes the data folder, readable by the user only, if it is missing, and checks
// that it is the user's own: octo trusts what is in it (the agents' token, the settings that
// say what agents may do), so a folder another user made, or may write in, is refused.
func mkdirPrivate(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("making the data folder: %w", err)
	}
	return CheckFolder(dir)
}

// CheckFolder reports why the data folder dir cannot be trusted: it is not a folder, another
// user owns it, or the group or others may write in it (they could plant or swap its files).
// A folder that does not exist yet is no error.
func CheckFolder(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("the data folder %s: %w: not a folder", dir, ErrUnsafe)
	}
	if err := notMine(fi); err != nil {
		return fmt.Errorf("the data folder %s: %w", dir, err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("the data folder %s: %w: mode %04o lets the group or others write in it (chmod 700 it)", dir, ErrUnsafe, fi.Mode().Perm())
	}
	return nil
}

// notMine says why a file or folder another user owns is refused; nil for the user's own.
func notMine(fi fs.FileInfo) error {
	if uid, ok := ownerOf(fi); ok && uid != me() {
		return fmt.Errorf("%w: it belongs to user %d, not to you (user %d); octo trusts only files of your own", ErrUnsafe, uid, me())
	}
	return nil
}

// writePrivate writes data as dir/name, readable and writable by the user only: into a temporary
// file beside it, synced, then renamed over it, so a reader sees the old file or the new one,
// never half of one. A symbolic link or anything but a regular file at the name is refused
// rather than replaced: someone put it there.
func writePrivate(dir, name string, data []byte) error {
	if err := mkdirPrivate(dir); err != nil {
		return err
	}
	path := filepath.Join(dir, name)
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w: %s", path, ErrUnsafe, describe(fi.Mode()))
	}
	tmp, err := os.CreateTemp(dir, "."+name+".*") // created 0600
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if err := writeSynced(tmp, data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func writeSynced(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(0o600) // CreateTemp's mode, whatever the umask did
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readChecked reads the regular file at path, at most limit bytes. It refuses a symbolic link,
// anything but a regular file, and a file whose mode has any bit of deny set for the group or
// others (on systems with Unix permissions). The file opened is checked to be the one looked at,
// so it cannot be swapped for a link in between. A missing file is fs.ErrNotExist.
func readChecked(path string, deny fs.FileMode, limit int64) ([]byte, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := checkMode(path, before.Mode(), deny); err != nil {
		return nil, err
	}
	if err := notMine(before); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	after, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !os.SameFile(before, after) {
		return nil, fmt.Errorf("%s: %w: replaced while being opened", path, ErrUnsafe)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return data, nil
}

// checkMode refuses what is not a regular file, and modes with deny bits.
func checkMode(path string, m fs.FileMode, deny fs.FileMode) error {
	if !m.IsRegular() {
		return fmt.Errorf("%s: %w: %s", path, ErrUnsafe, describe(m))
	}
	if runtime.GOOS != "windows" && m.Perm()&deny != 0 {
		return fmt.Errorf("%s: %w: mode %04o lets the group or others %s it (chmod 600 it)",
			path, ErrUnsafe, m.Perm(), access(m.Perm()&deny))
	}
	return nil
}

func describe(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	}
	return "not a regular file"
}

func access(bits fs.FileMode) string {
	switch {
	case bits&0o044 != 0 && bits&0o022 != 0:
		return "read and write"
	case bits&0o044 != 0:
		return "read"
	}
	return "write"
}

package config

import (
	"fmt"
	"io"
	"os"
)

// MaxFileBytes caps a config file, a template resource and a workspace
// server file. Each is read whole, so a larger one, or an endless one such as
// a device, is refused before it can take the memory.
const MaxFileBytes = 16 << 20

// ErrTooLarge is the error of a file past MaxFileBytes; a diagnostic says
// which file: "config file is larger than 16 MiB".
var ErrTooLarge = fmt.Errorf("larger than %d MiB", MaxFileBytes>>20)

// ReadFile reads the file name whole, within MaxFileBytes.
func ReadFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}

// Read reads an open file whole, within MaxFileBytes: a regular file's size
// refuses it unread, and anything else stops one byte past the cap.
func Read(f *os.File) ([]byte, error) {
	if info, err := f.Stat(); err == nil && info.Size() > MaxFileBytes {
		return nil, ErrTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err == nil && len(data) > MaxFileBytes {
		return nil, ErrTooLarge
	}
	return data, err
}

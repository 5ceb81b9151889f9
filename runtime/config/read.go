package config

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxFileBytes caps a config file, a template resource and a workspace
// server file. Each is read whole, so a larger one, or an endless one such as
// a device, is refused before it can take the memory.
const MaxFileBytes = 16 << 20

// ErrTooLarge is the error of a file past MaxFileBytes; a diagnostic says
// which file: "config file is larger than 16 MiB".
var ErrTooLarge = fmt.Errorf("larger than %d MiB", MaxFileBytes>>20)

// ReadFile reads the file name whole, within MaxFileBytes. It opens without
// blocking (O_NONBLOCK), so a FIFO with no writer is refused, as Read
// refuses it, instead of waiting for one.
func ReadFile(name string) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}

// Read reads an open file whole, within MaxFileBytes: a regular file's size
// refuses it unread, and a FIFO, device or socket, which could block or
// never end, is a *NotRegularError.
func Read(f *os.File) ([]byte, error) {
	info, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case info.Mode()&special != 0:
		return nil, &NotRegularError{Kind: fileKind(info.Mode())}
	case info.Size() > MaxFileBytes:
		return nil, ErrTooLarge
	}
	// A file that grows while it is read stops one byte past the cap.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err == nil && len(data) > MaxFileBytes {
		return nil, ErrTooLarge
	}
	return data, err
}

// NotRegularError is the error of a file that is a FIFO, device or socket.
type NotRegularError struct {
	Kind string // "a FIFO", "a device" or "a socket"
}

func (e *NotRegularError) Error() string { return e.Kind + ", not a regular file" }

// special are the files that are not data at rest: reading one may block or
// never end.
const special = fs.ModeNamedPipe | fs.ModeSocket | fs.ModeDevice | fs.ModeCharDevice

// fileKind names a special file for messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a device"
}

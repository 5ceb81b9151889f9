//go:build unix

package appdata

import (
	"io/fs"
	"os"
	"syscall"
)

// ownerOf is the user id owning the file fi describes; ok false when the system does not say.
func ownerOf(fi fs.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// me is this process's user id.
func me() int { return os.Geteuid() }

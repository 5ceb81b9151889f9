//go:build !unix

package appdata

import "io/fs"

// noFollow is not needed where the user's own folder (%APPDATA%) is what keeps others out.
const noFollow = 0

// ownerOf cannot tell a file's owner here: the folder's place is the check.
func ownerOf(fs.FileInfo) (int, bool) { return 0, false }

func me() int { return 0 }

//go:build !linux

package memtrim

// releaseCode does nothing where the mappings cannot be read from /proc.
func releaseCode() (Report, error) { return Report{}, nil }

// usage is not read here: no idle hand-backs.
func usage() (use, bool) { return use{}, false }

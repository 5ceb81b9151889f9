//go:build !linux

package memtrim

// releaseCode does nothing where the mappings cannot be read from /proc.
func releaseCode() (Report, error) { return Report{}, nil }

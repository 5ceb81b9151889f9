//go:build !linux

package memtrim

import "time"

// releaseCode does nothing where the mappings cannot be read from /proc.
func releaseCode() (Report, error) { return Report{}, nil }

// cpuTime is not read here: no idle hand-backs.
func cpuTime() (time.Duration, bool) { return 0, false }

func resident() (int64, bool) { return 0, false }

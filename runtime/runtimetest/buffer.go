// Package runtimetest holds what tests of blocks, connectors and commands
// share; it is imported by _test.go files only.
package runtimetest

import (
	"bytes"
	"sync"
)

// Buffer collects what several goroutines write (a service's log, say) and
// can be read while they still write.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns everything written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Package runtimetest holds what tests of blocks, connectors and commands
// share; it is imported by _test.go files only.
package runtimetest

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
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

// WaitFor waits, up to 10 seconds, until what was written holds text, and fails the test
// with everything written when it does not.
func (l *Buffer) WaitFor(t testing.TB, text string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(l.String(), text) {
			return
		}
	}
	t.Fatalf("never written: %s\n%s", text, l.String())
}

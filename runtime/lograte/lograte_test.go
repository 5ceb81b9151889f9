package lograte_test

import (
	"testing"
	"time"

	"github.com/octo-run/octo/runtime/lograte"
)

func TestOneOccurrencePerIntervalIsLoggedWithTheCountHeldBack(t *testing.T) {
	l := lograte.New(50 * time.Millisecond)
	if ok, skipped := l.Allow(); !ok || skipped != 0 {
		t.Fatalf("the first: %v, %d", ok, skipped)
	}
	for range 1000 {
		if ok, _ := l.Allow(); ok {
			t.Fatal("a second one within the interval was let through")
		}
	}
	time.Sleep(60 * time.Millisecond)
	if ok, skipped := l.Allow(); !ok || skipped != 1000 {
		t.Fatalf("after the interval: %v, %d held back, want 1000", ok, skipped)
	}
}

package access_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/octo-run/octo/blocks/mcp/access"
)

// A caller may make its calls at once, and gets them back one at a time as the interval
// passes; each caller has its own count.
func TestMemoryCountsEachCallerOnItsOwn(t *testing.T) {
	c := access.NewMemory(3, 3*time.Second, 100)
	now := time.Unix(1000, 0)
	for i := range 3 {
		if ok, _ := c.Take("alice", now); !ok {
			t.Fatalf("call %d refused", i+1)
		}
	}
	ok, wait := c.Take("alice", now)
	if ok || wait != time.Second {
		t.Fatalf("a fourth call: %v, retry in %v; want refused, 1s", ok, wait)
	}
	if ok, _ := c.Take("bob", now); !ok {
		t.Fatal("bob was counted with alice")
	}
	if ok, wait := c.Take("alice", now.Add(400*time.Millisecond)); ok || wait != 600*time.Millisecond {
		t.Fatalf("after 400ms: %v, %v; want refused, 600ms", ok, wait)
	}
	if ok, _ := c.Take("alice", now.Add(time.Second)); !ok {
		t.Fatal("a call came back after a third of the interval, and was refused")
	}
}

// The table of callers is bounded: past it, callers whose count has refilled are forgotten
// (which loses nothing), and when none has, a new caller is refused rather than a count lost.
func TestMemoryIsBounded(t *testing.T) {
	c := access.NewMemory(1, time.Minute, 10)
	now := time.Unix(1000, 0)
	for i := range 10 {
		if ok, _ := c.Take(fmt.Sprint(i), now); !ok {
			t.Fatalf("caller %d refused", i)
		}
	}
	if ok, wait := c.Take("eleventh", now); ok || wait >= 0 {
		t.Fatalf("a caller past the bound while every count is in use: %v, %v; want refused, negative", ok, wait)
	}
	if ok, _ := c.Take("eleventh", now.Add(time.Minute)); !ok {
		t.Fatal("once the counts refilled, a new caller was still refused")
	}
	if ok, _ := c.Take("0", now.Add(time.Minute)); !ok {
		t.Fatal("a forgotten caller was refused")
	}
}

func BenchmarkMemoryTake(b *testing.B) {
	c := access.NewMemory(1_000_000, time.Second, 100)
	keys := make([]string, 100)
	for i := range keys {
		keys[i] = fmt.Sprint("caller-", i)
	}
	now := time.Now()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c.Take(keys[i%len(keys)], now)
	}
}

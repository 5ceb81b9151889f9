// Package heapfloor keeps the garbage collector from running more often than once per Floor
// bytes allocated while the live heap is small. octo keeps a few MB live (the built config,
// compiled expressions and schemas) and allocates a few KB per request: with Go's default
// (GOGC=100: collect once the heap doubles) it collected some 60 times a second under load,
// and marking the live heap each time was a fifth of its CPU per request. A floor gives the
// goal live+Floor instead of 2×live; once the live heap is larger than the floor, the default
// rule holds again, so a large heap never grows by more than it would have. It does nothing
// when the user sets GOGC.
//
// It knows nothing of octo: it reads the live heap after each collection (runtime/metrics)
// and sets the GC percentage (runtime/debug) that puts the goal there.
package heapfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// DefaultFloor is the floor octo's serving commands keep: 16 MiB of allocation between
// collections while less than that is live.
const DefaultFloor = 16 << 20

// heapMinimum is the runtime's smallest heap goal at GOGC=100, which it scales with the
// percentage: a goal is at least heapMinimum×percent/100.
const heapMinimum = 4 << 20

var (
	mu      sync.Mutex
	floor   uint64 // 0: not kept
	percent int    // as last set; 100 is Go's default
	sample  = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
)

// Keep keeps the floor from now on, unless GOGC is set (the user chose), and reports whether it
// does. Calling it again changes the floor.
func Keep(bytes uint64) bool {
	if _, set := os.LookupEnv("GOGC"); set || bytes == 0 {
		return false
	}
	mu.Lock()
	first := floor == 0
	floor = bytes
	mu.Unlock()
	adjust()
	if first {
		watch()
	}
	return true
}

// watch arms a cleanup that runs after the next collection, adjusts the percentage and arms
// the next one: one small allocation per collection.
func watch() {
	s := new(sentinel)
	runtime.AddCleanup(s, func(struct{}) {
		adjust()
		watch()
	}, struct{}{})
}

// sentinel is an object nothing keeps: each collection frees it, which runs its cleanup. It
// holds a pointer so that it is never batched in the tiny allocator, whose objects may outlive
// a collection.
type sentinel struct {
	_ *int
	_ [8]byte
}

// adjust sets the percentage that puts the goal at live+floor, or Go's default once the live
// heap passes the floor: live×(1+p/100) reaches it at p = floor/live, and the runtime's minimum
// goal, which grows with p, must not pass it (p ≤ (live+floor)/heapMinimum). It is changed
// only when it moves by more than an eighth.
func adjust() {
	mu.Lock()
	defer mu.Unlock()
	metrics.Read(sample)
	live := sample[0].Value.Uint64()
	want := 100
	if live < floor {
		want = int((live + floor) * 100 / heapMinimum)
		if live > 0 {
			want = min(want, int(floor*100/live))
		}
		want = max(want, 100)
	}
	if percent != 0 && abs(want-percent) <= percent/8 {
		return
	}
	percent = want
	debug.SetGCPercent(want)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

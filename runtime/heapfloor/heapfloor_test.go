package heapfloor_test

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime/heapfloor"
)

var sink []byte

// cycles counts the collections while 64 MiB of short-lived garbage is allocated beside a
// small live heap.
func cycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	for range 64 << 10 {
		sink = make([]byte, 1<<10)
	}
	metrics.Read(s)
	return s[0].Value.Uint64() - before
}

func TestAFloorCollectsLessOftenWhileLittleIsLive(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set: the floor leaves the user's choice alone, as TestGOGCWins checks")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	without, goalWithout := cycles(), read("/gc/heap/goal:bytes")
	if !heapfloor.Keep(heapfloor.DefaultFloor) {
		t.Fatal("Keep did nothing without GOGC")
	}
	// The goal is what says how often the collector runs: it collects once the heap reaches
	// it. Counting collections shows it too, but how many run without the floor swings with
	// the machine's load (8 to 21 here), so the count is logged, and the goal checked.
	runtime.GC() // the cleanup runs after a collection and sets the percentage
	live := read("/gc/heap/live:bytes")
	want := live + heapfloor.DefaultFloor*3/4 // adjust moves it in steps of an eighth
	deadline := time.Now().Add(5 * time.Second)
	for read("/gc/heap/goal:bytes") < want {
		if time.Now().After(deadline) {
			t.Fatalf("the heap goal is %d with the floor, %d without, %d live: want at least %d",
				read("/gc/heap/goal:bytes"), goalWithout, live, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	with := cycles()
	t.Logf("collections for 64 MiB of garbage: %d without the floor, %d with it", without, with)
}

// read reads one runtime metric of kind uint64.
func read(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func TestGOGCWins(t *testing.T) {
	t.Setenv("GOGC", "100")
	if heapfloor.Keep(heapfloor.DefaultFloor) {
		t.Fatal("Keep overrode GOGC")
	}
}

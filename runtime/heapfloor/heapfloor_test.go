package heapfloor_test

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

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
	without := cycles()
	if !heapfloor.Keep(heapfloor.DefaultFloor) {
		t.Fatal("Keep did nothing without GOGC")
	}
	runtime.GC() // the cleanup runs after a collection and sets the percentage
	with := cycles()
	if with*3 > without {
		t.Fatalf("%d collections with the floor, %d without: want a third or fewer", with, without)
	}
	t.Logf("collections for 64 MiB of garbage: %d without the floor, %d with it", without, with)
}

func TestGOGCWins(t *testing.T) {
	t.Setenv("GOGC", "100")
	if heapfloor.Keep(heapfloor.DefaultFloor) {
		t.Fatal("Keep overrode GOGC")
	}
}

// Package memtrim hands back to the kernel the memory a serving process's start used and
// serving does not: the heap its build and the libraries' init left as garbage, and the pages
// of the executable's code and read-only tables the start touched.
//
// The second is most of a Go server's resident size: every linked package runs its init, the
// inits are spread over the whole text, and each page a process touches maps the file's pages
// around it (the kernel's fault-around), so a start leaves some 20 MB of the binary mapped
// that serving a request never reads again. Those pages are clean copies of the file: dropping
// them from the process's page tables loses nothing, and a page serving does use comes back
// from the page cache on its next touch (a minor fault, no disk read).
//
// It knows nothing of octo: a command turns it on (Enable), and whatever starts a service
// says so (Soon); the hand-back runs once the starts have settled. It runs again when a
// process that has worked goes idle: then the heap a load grew (the GC floor lets it grow
// by 16 MiB) and the code it ran go back too, and the first request after the pause maps the
// code it needs again (a few hundred minor faults, well under a millisecond).
package memtrim

import (
	"runtime/debug"
	"sync"
	"time"
)

// Quiet is how long after the last start the hand-back waits: a workspace starts its servers
// one after another, and one hand-back after the last is enough.
const Quiet = 250 * time.Millisecond

// Report is what a hand-back did.
type Report struct {
	// Mapped is how many bytes of the executable's read-only pages were resident and are no
	// longer mapped by this process.
	Mapped int64
	// Regions is how many of the executable's mappings were handed back.
	Regions int
}

var (
	mu      sync.Mutex
	enabled bool
	timer   *time.Timer
	idle    *idleWatch // nil: no idle hand-backs
)

// Enable turns hand-backs on for this process: after starts (Soon), and after a whole idle
// window in which the process used next to no CPU, once it has grown since it last handed
// back (0: never).
func Enable(window time.Duration) {
	mu.Lock()
	defer mu.Unlock()
	enabled = true
	if window <= 0 || idle != nil {
		return
	}
	if now, ok := cpuTime(); ok {
		idle = &idleWatch{limit: max(window/10000, time.Millisecond), prev: now}
		go watchIdle(window)
	}
}

// grown is how much a process must have grown since its last hand-back for an idle window to
// hand back again: a call's code is some 8 MB of the binary; the idle process's own timers
// touch far less.
const grown = 2 << 20

// watchIdle hands back after an idle window, when the process has grown since it last did. A
// process that stays idle is left alone, and one that serves a steady load never pauses for
// it: an idle window is one in which it used at most a ten-thousandth of a core, and at most
// 1 ms (a tick of this watch costs about 0.3 ms of CPU; a call 50 µs or more). A server
// with a call or two a window hands back each window, and its next call maps its code again:
// about 0.4 ms once a window.
func watchIdle(window time.Duration) {
	for range time.Tick(window) {
		used, _ := cpuTime()
		rss, _ := resident()
		mu.Lock()
		due := idle.tick(used, rss)
		mu.Unlock()
		if due {
			release()
		}
	}
}

// release hands back, and starts the idle watch afresh from the process as it is then.
func release() {
	_, _ = Release() // one that fails (no /proc) leaves the process as it was
	mu.Lock()
	defer mu.Unlock()
	if idle != nil {
		idle.prev, _ = cpuTime() // the hand-back's own collection is not work
		idle.base, _ = resident()
	}
}

// idleWatch decides, window after window, when a hand-back is due.
type idleWatch struct {
	limit time.Duration // the CPU time an idle window may use
	prev  time.Duration // the process's CPU time at the window's start
	base  int64         // its resident bytes after its last hand-back
}

// tick takes the process's CPU time and resident bytes at a window's end and reports whether
// to hand back now.
func (w *idleWatch) tick(used time.Duration, rss int64) bool {
	busy := used-w.prev > w.limit
	w.prev = used
	return !busy && rss > w.base+grown
}

// Soon asks for a hand-back once no start has happened for Quiet; without Enable it does
// nothing, so tests and libraries that start services are left as they are.
func Soon() {
	mu.Lock()
	defer mu.Unlock()
	if !enabled {
		return
	}
	if timer != nil {
		timer.Reset(Quiet)
		return
	}
	timer = time.AfterFunc(Quiet, release)
}

// Release hands back now: the heap's free pages (after a collection) and the executable's
// resident read-only pages.
func Release() (Report, error) {
	debug.FreeOSMemory()
	return releaseCode()
}

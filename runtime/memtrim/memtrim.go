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
// code it needs again (some 150 minor faults, about 0.4 ms).
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
// window in which the process used next to no CPU, once it has mapped memory since it last
// handed back (0: never).
func Enable(window time.Duration) {
	mu.Lock()
	defer mu.Unlock()
	enabled = true
	if window <= 0 || idle != nil {
		return
	}
	if u, ok := usage(); ok {
		idle = &idleWatch{limit: max(window/1000, time.Millisecond), prev: u}
		go watchIdle(window)
	}
}

// grownFaults is how many pages a process must have mapped since its last hand-back for an
// idle window to hand back again: one call maps some 150 windows of the binary (the kernel
// maps 16 pages a fault) and its heap; an idle process's own timers map next to none.
const grownFaults = 64

// watchIdle hands back after an idle window, when the process has mapped memory since it last
// did. A process that stays idle is left alone, and one that serves a steady load never
// pauses for it: an idle window is one in which it used at most a thousandth of a core, or
// 1 ms (a tick of this watch costs about 0.3 ms of CPU; the Go runtime's own background work
// after a load, some ms; a call 50 µs or more). A server with a few hundred calls a window or
// fewer hands back each window, and its next call maps its code again: about 0.4 ms, once a
// window. It reads only getrusage(2), so that its own ticks map nothing the hand-back took
// away.
func watchIdle(window time.Duration) {
	for range time.Tick(window) {
		u, _ := usage()
		mu.Lock()
		due := idle.tick(u)
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
		u, _ := usage() // the hand-back's own collection and faults are not work
		idle.prev, idle.base = u, u.faults
	}
}

// use is what a process has used so far: CPU time, and pages mapped on a fault.
type use struct {
	cpu    time.Duration
	faults int64
}

// idleWatch decides, window after window, when a hand-back is due.
type idleWatch struct {
	limit time.Duration // the CPU time an idle window may use
	prev  use           // at the window's start
	base  int64         // faults when it last handed back
}

// tick takes what the process has used at a window's end and reports whether to hand back
// now.
func (w *idleWatch) tick(u use) bool {
	busy := u.cpu-w.prev.cpu > w.limit
	w.prev = u
	return !busy && u.faults-w.base > grownFaults
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

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
// says so (Soon); the hand-back runs once the starts have settled.
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
)

// Enable turns hand-backs on for this process.
func Enable() {
	mu.Lock()
	defer mu.Unlock()
	enabled = true
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
	// A hand-back that fails (no /proc) leaves the process as it was: nothing to report.
	timer = time.AfterFunc(Quiet, func() { _, _ = Release() })
}

// Release hands back now: the heap's free pages (after a collection) and the executable's
// resident read-only pages.
func Release() (Report, error) {
	debug.FreeOSMemory()
	return releaseCode()
}

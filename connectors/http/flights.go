package http

import (
	"context"
	"sync"
)

// flights holds the cancel funcs of the requests a connector is serving, so that Stop's force
// ends them with its cause. It replaces a context.AfterFunc per request on a shared base
// context, which cost three allocations a request; slots are reused, so adding and removing a
// request allocates nothing once the slice has grown to the peak of requests in flight.
type flights struct {
	mu      sync.Mutex
	cancels []context.CancelCauseFunc
	free    []int
	forced  error // the cause, once forced: requests that begin after that end at once
}

// add registers cancel and returns its slot for remove; after force it cancels at once.
func (f *flights) add(cancel context.CancelCauseFunc) int {
	f.mu.Lock()
	if f.forced != nil {
		cause := f.forced
		f.mu.Unlock()
		cancel(cause)
		return -1
	}
	i := len(f.cancels)
	if n := len(f.free); n > 0 {
		i = f.free[n-1]
		f.free = f.free[:n-1]
		f.cancels[i] = cancel
	} else {
		f.cancels = append(f.cancels, cancel)
	}
	f.mu.Unlock()
	return i
}

// remove forgets slot i, a request that was answered.
func (f *flights) remove(i int) {
	if i < 0 {
		return
	}
	f.mu.Lock()
	if f.forced == nil {
		f.cancels[i] = nil
		f.free = append(f.free, i)
	}
	f.mu.Unlock()
}

// force cancels every request in flight, and each that begins later, with cause.
func (f *flights) force(cause error) {
	f.mu.Lock()
	if f.forced != nil {
		f.mu.Unlock()
		return
	}
	f.forced = cause
	cancels := f.cancels
	f.cancels, f.free = nil, nil
	f.mu.Unlock()
	for _, cancel := range cancels {
		if cancel != nil {
			cancel(cause)
		}
	}
}

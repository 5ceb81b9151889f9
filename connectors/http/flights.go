package http

import (
	"context"
	"sync"
)

// flights holds the cancel funcs of the requests a connector is serving, so that Stop's force
// ends them with its cause. Each is the cancel of the request's connection (tracked), which
// carries one request at a time: slots are reused, so adding and removing a request allocates
// nothing once the slice has grown to the peak of requests in flight.
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

// force cancels every request in flight, and each that begins later, with cause. It cancels
// under the lock, so that once remove has returned its connection is not cancelled: the
// connection may carry the next build's request by then.
func (f *flights) force(cause error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.forced != nil {
		return
	}
	f.forced = cause
	for _, cancel := range f.cancels {
		if cancel != nil {
			cancel(cause)
		}
	}
	f.cancels, f.free = nil, nil
}

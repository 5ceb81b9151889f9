package runtime

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// Shared is a table of reference-counted resources that outlive one build of
// a unit: a bound port, a JWKS key cache, a client pool. A build acquires
// what it needs when it starts and releases it when it stops. A new build of
// the same unit, started before the old one stops, finds the live resource
// instead of opening a second one: the port stays bound, the keys are not
// fetched again. The last release closes it.
//
// Keys say what a resource is, with a prefix for its kind
// ("tcp:127.0.0.1:8080", "jwks:https://auth.example.com/keys"): two holders
// of one key must want the very same thing. A Shared replaces every global
// registry; a service built without one gets its own.
type Shared struct {
	mu sync.Mutex
	m  map[string]*sharedEntry
}

// Resource is what a Shared table holds.
type Resource interface {
	// Close frees the resource once its last holder lets go; ctx bounds a
	// graceful close (a listener letting requests finish).
	Close(ctx context.Context) error
}

// Release gives one hold on a shared resource back; the last one closes the
// resource with ctx. Calling it again does nothing.
type Release func(ctx context.Context) error

type sharedEntry struct {
	res   Resource
	err   error
	refs  int
	ready chan struct{} // closed once open has returned
	gone  chan struct{} // closed once the last release has closed res
}

// NewShared returns an empty table.
func NewShared() *Shared { return &Shared{m: map[string]*sharedEntry{}} }

// Acquire returns the live resource held under key, or opens one with open
// when none is. Holders of one key wait for each other's open and close: a
// key being closed is opened anew only once the close has returned, so a
// port is bound again only after it was let go. Every Acquire that returns
// no error must be paired with one call of its Release.
func Acquire[T Resource](s *Shared, key string, open func() (T, error)) (T, Release, error) {
	var zero T
	for {
		s.mu.Lock()
		e, ok := s.m[key]
		if !ok {
			e = &sharedEntry{refs: 1, ready: make(chan struct{}), gone: make(chan struct{})}
			s.m[key] = e
			s.mu.Unlock()
			res, err := open()
			s.mu.Lock()
			e.res, e.err = res, err
			if err != nil {
				delete(s.m, key)
			}
			close(e.ready)
			s.mu.Unlock()
			if err != nil {
				return zero, nil, err
			}
			return res, s.release(key, e), nil
		}
		if e.refs == 0 { // being closed: open anew once it is gone
			s.mu.Unlock()
			<-e.gone
			continue
		}
		e.refs++
		s.mu.Unlock()
		<-e.ready
		if e.err != nil {
			return zero, nil, e.err
		}
		res, ok := e.res.(T)
		if !ok {
			_ = s.release(key, e)(context.Background())
			return zero, nil, fmt.Errorf("shared resource %q is a %T, not a %T", key, e.res, zero)
		}
		return res, s.release(key, e), nil
	}
}

// Held returns the live resource held under key, with one more hold on it, or false when the
// table holds none: for a resource another part put in the table on purpose (the stub transport
// `octo test` puts there for http-request), which the one asking never opens itself.
func Held[T Resource](s *Shared, key string) (T, Release, bool) {
	var zero T
	s.mu.Lock()
	e, ok := s.m[key]
	if !ok || e.refs == 0 {
		s.mu.Unlock()
		return zero, nil, false
	}
	e.refs++
	s.mu.Unlock()
	<-e.ready
	release := s.release(key, e)
	res, ok := e.res.(T)
	if e.err != nil || !ok {
		_ = release(context.Background())
		return zero, nil, false
	}
	return res, release, true
}

// release returns the Release of one hold on e.
func (s *Shared) release(key string, e *sharedEntry) Release {
	var done atomic.Bool
	return func(ctx context.Context) error {
		if done.Swap(true) {
			return nil
		}
		s.mu.Lock()
		e.refs--
		last := e.refs == 0
		s.mu.Unlock()
		if !last || e.err != nil {
			return nil
		}
		err := e.res.Close(ctx)
		s.mu.Lock()
		if s.m[key] == e {
			delete(s.m, key)
		}
		s.mu.Unlock()
		close(e.gone)
		return err
	}
}

// Keys lists the keys of the resources held now, sorted: what a unit keeps
// open, for status pages and tests.
func (s *Shared) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.m))
	for k, e := range s.m {
		if e.refs > 0 {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Holder says which build of which unit holds a shared resource. A resource
// that serves one holder at a time (a port's routes) moves to a later build
// of the same unit, and refuses anyone else.
type Holder struct {
	// Unit names the unit (a service config, a workspace server); "" for a
	// service built on its own.
	Unit string
	// Build is different for every service built: later builds have larger
	// numbers.
	Build uint64
}

// Succeeds reports whether h may take over a resource that prev holds: h is
// a later build of the same unit.
func (h Holder) Succeeds(prev Holder) bool { return h.Unit == prev.Unit && h.Build > prev.Build }

// builds numbers every service built in the process.
var builds atomic.Uint64

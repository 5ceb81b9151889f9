package session

import (
	"sync"
)

// ChangeResource is the Kind of a Change to one resource.
const ChangeResource = "resource"

// Change is a change of what a server serves that its clients are told of: a list (Kind
// "tools", "resources" or "prompts") or one resource (Kind ChangeResource, with its URI).
// Version names what it changed to: a change to a version already told is not told again, so
// that replicas that make the same change (each reloading the same config) tell it once. A
// change without a version is always told.
type Change struct {
	Kind    string `json:"kind"`
	URI     string `json:"uri,omitempty"`
	Version string `json:"version,omitempty"`
}

// ChangeBus carries changes between the replicas of a server: Publish tells the others of one
// this replica made, Subscribe hears theirs, never this replica's own.
type ChangeBus interface {
	Publish(c Change)
	Subscribe(fn func(Change)) (stop func())
}

// changeState is what a Front knows of changes: the version each list or resource was last
// told at, and the bus it shares them on.
type changeState struct {
	mu   sync.Mutex
	told map[string]string // by kind and URI
	bus  ChangeBus
}

// Changed tells the clients of c (list_changed, or resources/updated to those subscribed), on
// every replica when the server has joined a bus (Join), unless c's version was told already.
func (st *Front) Changed(c Change) {
	if !st.changes.first(c) {
		return
	}
	st.tell(c)
	st.changes.mu.Lock()
	bus := st.changes.bus
	st.changes.mu.Unlock()
	if bus != nil {
		bus.Publish(c)
	}
}

// Join shares the server's changes with the other replicas on bus, until leave: theirs are told
// to this replica's clients, once each.
func (st *Front) Join(bus ChangeBus) (leave func()) {
	st.changes.mu.Lock()
	st.changes.bus = bus
	st.changes.mu.Unlock()
	stop := bus.Subscribe(func(c Change) {
		if st.changes.first(c) {
			st.tell(c)
		}
	})
	return func() {
		stop()
		st.changes.mu.Lock()
		st.changes.bus = nil
		st.changes.mu.Unlock()
	}
}

// first reports whether c is news: it has no version, or one not told before for its kind and
// URI; it records the version.
func (cs *changeState) first(c Change) bool {
	if c.Version == "" {
		return true
	}
	key := c.Kind + "\x00" + c.URI
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.told[key] == c.Version {
		return false
	}
	if cs.told == nil {
		cs.told = map[string]string{}
	}
	cs.told[key] = c.Version
	return true
}

// tell sends c to this replica's clients.
func (st *Front) tell(c Change) {
	if c.Kind == ChangeResource {
		st.tellResource(c.URI)
		return
	}
	st.tellList(c.Kind)
}

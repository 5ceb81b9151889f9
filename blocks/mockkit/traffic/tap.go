package traffic

import (
	"context"
	"time"

	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/runtime"
)

// TapKey is the runtime.Shared key a Tap is held under.
const TapKey = "mock:traffic-tap"

// Tap hands the traffic of every mock server built on a runtime.Shared table to one
// function, besides the server's own log: the app keeps it in its traffic store. Whoever
// serves the servers (the workspace runner) puts it in the table with runtime.Acquire before
// the first build; a server built without one has only its log.
type Tap struct {
	// Observe gets each event with the name of the block that served it (a saved server's
	// name). It is called on the server's own goroutines, so it must return at once.
	Observe func(server string, ev session.TrafficEvent)
}

// Problem puts a problem of server's own settings (found reading its file) in its traffic, as an
// session.TrafficProblem event: where a user reads what is wrong with a file they edited.
func (t *Tap) Problem(server, text string) {
	if t != nil && t.Observe != nil {
		t.Observe(server, session.TrafficEvent{Time: time.Now(), Kind: session.TrafficProblem, Summary: text})
	}
}

// Close implements runtime.Resource: the tap holds nothing.
func (*Tap) Close(context.Context) error { return nil }

// TapOf returns the Observe function of the tap b's table holds, or nil. The hold is given back
// at once: the tap lives as long as whoever put it there, who outlives the servers it serves.
func TapOf(b *runtime.Build) func(string, session.TrafficEvent) {
	tap, release, ok := runtime.Held[*Tap](b.Shared(), TapKey)
	if !ok {
		return nil
	}
	_ = release(context.Background())
	return tap.Observe
}

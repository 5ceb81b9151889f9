// Package stdiomsg is the stdio connector's typed view of a message: which event of the one
// session over standard input and output it is. The connector sets it; a block that keeps the
// session (mcp-mock) reads it. The runtime never imports it.
package stdiomsg

import "github.com/octo-run/octo/runtime"

// Transport is the name the stdio connector gives its messages' typed view
// (runtime.ConnectorSpec.Transport).
const Transport = "stdio"

// Kind is what happened on the session.
type Kind uint8

// The events of a stdio session, in the order a flow gets them.
const (
	// Opened comes once, at start, without a body. A stream in the answer is written line by
	// line until it ends: a block keeps its channel to the client this way.
	Opened Kind = iota + 1
	// Line is one line read, without its \n or \r\n, as the raw body. A body in the answer is
	// written as one line, a stream one line per event. The next line is read only once the
	// flow has answered this one.
	Line
	// Ended comes once, when input ends.
	Ended
)

var kindNames = [...]string{Opened: "opened", Line: "line", Ended: "ended"}

// String names the event.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "unknown"
}

// Event is the typed view of a message from the stdio connector.
type Event struct {
	Kind Kind
	// TooLong marks a Line longer than the connector reads (its maxLineBytes, in Limit): the
	// line was skipped without being kept, and the message has no body.
	TooLong bool
	Limit   int
}

// eventMessage is a message and its event in one allocation.
type eventMessage struct {
	msg runtime.Message
	ev  Event
}

// NewMessage returns a message of event ev with body as its raw body (nil for none).
func NewMessage(body []byte, ev Event) *runtime.Message {
	em := &eventMessage{ev: ev}
	em.msg.SetRaw(body)
	em.msg.Transport = &em.ev
	return &em.msg
}

// From returns the message's event, and whether it came from a stdio connector.
func From(m *runtime.Message) (*Event, bool) {
	ev, ok := m.Transport.(*Event)
	return ev, ok
}

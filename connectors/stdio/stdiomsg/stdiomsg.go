// Package stdiomsg is the typed view of a message from a line session: which event of the
// session it is, and which session. The stdio connector serves one session, over standard input
// and output (Session 0); the agent connector (connectors/agent) one per authenticated
// connection, numbered from 1. The connectors set it and frame the lines with ReadLine and
// OneLine; a block that keeps sessions (mcp-mock, mcp-router, through blocks/mcp/mcpmsg) reads
// it. The runtime never imports it.
package stdiomsg

import "github.com/octo-run/octo/runtime"

// Transport is the name the stdio and agent connectors give their messages' typed view
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

// Event is the typed view of a message from a line session.
type Event struct {
	Kind Kind
	// Session tells the sessions of one connector apart: 0 for standard input and output, the
	// connection's number for the agent connector. Each session's events come in order (Opened,
	// its Lines, Ended); different sessions' events interleave.
	Session uint64
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

// From returns the message's event, and whether it came from a line session.
func From(m *runtime.Message) (*Event, bool) {
	ev, ok := m.Transport.(*Event)
	return ev, ok
}

package mcp

import (
	"crypto/rand"
	"encoding/hex"
)

// This file holds the tasks extension (SEP-2663, io.modelcontextprotocol/tasks) of 2026-07-28:
// a tools/call may be answered with a task handle while the call goes on in the background; the
// client polls tasks/get for its status and its result, answers the task's questions with
// tasks/update and stops it with tasks/cancel. The records live in a tasks.Store (package mcp/tasks);
// the server's side is in taskrun.go.

// ExtensionTasks is the tasks extension's identifier, in server/discover's
// capabilities.extensions and in a request's client capabilities.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// CloseTasks closes the server's task store, when it has one: whoever builds a server calls it
// when the server stops.
func (s *Server) CloseTasks() {
	if s.Tasks != nil {
		s.Tasks.Close()
	}
}

// newTaskID is 128 random bits in hex.
func newTaskID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// taskTime is how createdAt and lastUpdatedAt are written: ISO 8601 in UTC, to the millisecond.
const taskTime = "2006-01-02T15:04:05.000Z"

package mcp

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The protocol revisions this package knows.
const (
	Version20241105 = "2024-11-05"
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
)

// Versions is a server's version policy (mcp-protocol.md §2.3): the revisions
// it speaks and what it answers when the client names none or an unknown one.
// A spoken revision is always answered with the same string.
type Versions struct {
	// Supported lists the spoken revisions, newest first.
	Supported []string
	// Absent is the answer when initialize names no protocolVersion.
	Absent string
	// Unknown is the answer for a revision the server does not speak.
	Unknown string
	// Stateless lists the revisions served per request, without initialize or session
	// (2026-07-28), newest first; none when empty.
	Stateless []string
}

// RouterVersions is the policy of the stateless mcp-router: it cannot stream,
// so it stops at 2025-06-18, and a client that names no version is assumed to
// be a 2024-11-05 one.
var RouterVersions = Versions{
	Supported: []string{Version20250618, Version20250326, Version20241105},
	Absent:    Version20241105,
	Unknown:   Version20250618,
	Stateless: []string{Version20260728},
}

// MockVersions is the policy of the stateful mock server: every revision,
// newest by default.
var MockVersions = Versions{
	Supported: []string{Version20251125, Version20250618, Version20250326, Version20241105},
	Absent:    Version20251125,
	Unknown:   Version20251125,
	Stateless: []string{Version20260728},
}

// Negotiate returns the revision to answer an initialize that asked for
// requested ("" when the client sent none).
func (v Versions) Negotiate(requested string) string {
	switch {
	case requested == "" && v.Absent != "":
		return v.Absent
	case requested != "" && v.Speaks(requested):
		return requested
	case requested != "" && v.Unknown != "":
		return v.Unknown
	}
	return v.Latest()
}

// Speaks reports whether rev is one of the supported revisions.
func (v Versions) Speaks(rev string) bool { return slices.Contains(v.Supported, rev) }

// Latest returns the newest supported revision.
func (v Versions) Latest() string {
	if len(v.Supported) == 0 {
		return ""
	}
	return v.Supported[0]
}

// List returns the supported revisions joined for messages: "a, b, c".
func (v Versions) List() string { return strings.Join(v.Supported, ", ") }

// Check reports a policy that could answer a revision it does not speak.
func (v Versions) Check() error {
	if len(v.Supported) == 0 {
		return errors.New("versions: no supported protocol version")
	}
	var errs []error
	for i, s := range v.Supported {
		if slices.Index(v.Supported, s) != i {
			errs = append(errs, fmt.Errorf("versions: %q listed twice", s))
		}
	}
	if v.Absent != "" && !v.Speaks(v.Absent) {
		errs = append(errs, fmt.Errorf("versions: answer for an absent version %q is not supported", v.Absent))
	}
	if v.Unknown != "" && !v.Speaks(v.Unknown) {
		errs = append(errs, fmt.Errorf("versions: answer for an unknown version %q is not supported", v.Unknown))
	}
	return errors.Join(errs...)
}

// batchable reports whether a body may be a JSON array under rev: batches
// exist only up to 2025-03-26 (removed in 2025-06-18, mcp-protocol.md §1.3).
// An unknown revision ("") is treated as 2025-03-26, as a stateless server
// must assume (§7.2.5).
func batchable(rev string) bool { return rev == "" || rev < Version20250618 }

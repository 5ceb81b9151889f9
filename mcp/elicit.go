package mcp

import (
	"strings"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// CodeURLElicitationRequired (2025-11-25 only; 2026-07-28 keeps the code reserved) answers a
// request that cannot go on until the user has completed the URL-mode elicitations listed in
// the error's data.elicitations.
const CodeURLElicitationRequired = -32042

// Elicitation modes of 2025-11-25: form asks for values in the client, url sends the user to a
// page the client never sees.
const (
	ElicitForm = "form"
	ElicitURL  = "url"
)

// missingCapability is the -32021 of a request that needs the client capability name (dotted
// for a sub-capability) to serve method; inner is what requiredCapabilities holds under its
// first part.
func missingCapability(name, method string, inner any) *jsonrpc.Error {
	top, _, _ := strings.Cut(name, ".")
	return &jsonrpc.Error{Code: CodeMissingCapability,
		Message: "Missing required client capability: " + name + " (for " + method + ")",
		Data:    map[string]any{"requiredCapabilities": map[string]any{top: inner}}}
}

// ElicitMode is an elicitation/create's mode (form when it names none), "" for other methods.
func ElicitMode(method string, params []byte) string {
	if method != "elicitation/create" {
		return ""
	}
	if v, ok := jsonscan.Member(params, "mode"); ok {
		if mode, ok := jsonscan.Unquote(v); ok {
			return mode
		}
	}
	return ElicitForm
}

// DeclaresElicitMode reports whether client capabilities declare the elicitation mode ("form"
// or "url"); an empty elicitation object declares form mode only (2025-11-25 and later).
func DeclaresElicitMode(caps []byte, mode string) bool {
	el, ok := jsonscan.Member(caps, "elicitation")
	if !ok {
		return false
	}
	if _, ok := jsonscan.Member(el, mode); ok {
		return true
	}
	return mode == ElicitForm && !jsonscan.HasMembers(el)
}

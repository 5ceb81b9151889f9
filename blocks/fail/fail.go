// Package fail is the fail block: it ends a flow with an error of a kind its transport answers
// in its own words (an HTTP status; in an mcp-router tool, an isError result whose text is the
// message, or with a code the JSON-RPC error a broken server answers).
package fail

import (
	"context"
	"fmt"

	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "fail",
		Summary: "ends the flow with an error: a message (template) and a kind (invalid, not found, ...)",
		Doc: "Stops the flow with an error whose message is rendered from a template and whose kind " +
			"says how it is answered: a plain HTTP flow answers the kind's status (invalid 400, " +
			"unauthorized 401, forbidden 403, not found 404, conflict 409, too large 413, " +
			"unavailable 503, timeout 504, upstream 502) with {\"error\": message}; in an mcp-router " +
			"tool the message is the isError text the model reads. The message is shown to callers: " +
			"put in it only what they may see. With code, an mcp-router tool or prompt answers the " +
			"JSON-RPC error of that code and the message instead, as a server that broke would (a " +
			"task ends failed with it): for trying how a client takes protocol errors. A catch " +
			"around it can handle it (vars.error).",
		Example: "type: fail\nsettings:\n  message: 'no forecast for {{ body.city }}'\n  kind: not found\n",
		Build:   runtime.BlockFunc(build),
	})
}

// Settings are the fail block's settings.
type Settings struct {
	Message runtime.Template `yaml:"message" octo:"required" doc:"The error's text, a template over body, vars, headers and env; callers see it (HTTP {\"error\": ...}, a tool's isError text), so it must hold nothing secret." example:"no forecast for {{ body.city }}"`
	// Internal and cancelled are left out: an internal error's text is never shown, and
	// cancelled is what the runtime says when the caller left.
	Code *int   `yaml:"code" doc:"In an mcp-router tool or prompt, answer with a JSON-RPC error of this code, the message its message, instead of a failed result (isError): a protocol error, as a server that broke answers; a tool running as a task ends failed with it. Plain HTTP flows answer by kind all the same." example:"-32603"`
	Kind string `yaml:"kind" default:"invalid" enum:"invalid,unauthorized,forbidden,not found,conflict,too large,unavailable,timeout,upstream" doc:"What went wrong, which picks the answer: invalid (HTTP 400), unauthorized (401), forbidden (403), not found (404), conflict (409), too large (413), unavailable (503), timeout (504), upstream (502, a service the flow called failed)."`
}

// Block fails every message it gets.
type Block struct {
	message *runtime.Template
	kind    runtime.ErrorKind
	code    *int
}

// ProtocolError is the cause of a fail block's error that has a code: the JSON-RPC error an
// MCP block answers with, where other failures become results the model reads.
type ProtocolError struct {
	Code    int
	Message string
}

func (e *ProtocolError) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

func build(b *runtime.Build, s *Settings) (runtime.Block, error) {
	kind, ok := runtime.KindNamed(s.Kind)
	if !ok { // the enum has been checked: a kind it lists that the runtime lacks is a bug here
		return nil, b.Errorf(&s.Kind, "unknown error kind %q", s.Kind)
	}
	return &Block{message: &s.Message, kind: kind, code: s.Code}, nil
}

// Process renders the message and fails with it. A message that cannot be rendered fails the
// flow as internal: its cause goes to the log, not to the caller.
func (f *Block) Process(_ context.Context, m *runtime.Message) (*runtime.Message, error) {
	text, err := f.message.Render(m)
	if err != nil {
		return nil, err
	}
	e := &runtime.Error{Kind: f.kind, Msg: text}
	if f.code != nil {
		e.Err = &ProtocolError{Code: *f.code, Message: text}
	}
	return nil, e
}

var _ runtime.Block = (*Block)(nil)

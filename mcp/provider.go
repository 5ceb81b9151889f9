package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/stream"
)

// Errors a provider returns so the server answers the protocol's way; wrap
// them with fmt.Errorf("...: %w", ErrX) to add detail for logs.
var (
	// ErrUnknownTool: CallTool got a name it does not serve. The server
	// answers per its UnknownToolPolicy.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrUnknownPrompt: GetPrompt got a name it does not serve (-32602).
	ErrUnknownPrompt = errors.New("unknown prompt")
	// ErrResourceNotFound: ReadResource got a URI it cannot read (-32002).
	ErrResourceNotFound = errors.New("resource not found")
	// ErrInvalidCursor: a list method got a cursor it never issued (-32602).
	ErrInvalidCursor = errors.New("invalid cursor")
)

// ToolProvider serves tools/list and tools/call.
type ToolProvider interface {
	// ListTools returns one page of tools and the cursor of the next ("" on
	// the last page). cursor is "" for the first page.
	ListTools(ctx context.Context, rc *RequestContext, cursor string) ([]Tool, string, error)
	// CallTool runs a tool. args is the raw arguments object ({} when the
	// client sent none). A failure the model should see is a result with
	// IsError; ErrUnknownTool for an unknown name.
	CallTool(ctx context.Context, rc *RequestContext, name string, args json.RawMessage) (*CallToolResult, error)
}

// ResourceProvider serves resources/list, resources/templates/list and
// resources/read.
type ResourceProvider interface {
	ListResources(ctx context.Context, rc *RequestContext, cursor string) ([]Resource, string, error)
	ListResourceTemplates(ctx context.Context, rc *RequestContext, cursor string) ([]ResourceTemplate, string, error)
	// ReadResource returns the contents of uri, or ErrResourceNotFound.
	ReadResource(ctx context.Context, rc *RequestContext, uri string) ([]ResourceContents, error)
}

// PromptProvider serves prompts/list and prompts/get.
type PromptProvider interface {
	ListPrompts(ctx context.Context, rc *RequestContext, cursor string) ([]Prompt, string, error)
	// GetPrompt renders a listed prompt. The server has already checked that
	// name is listed and that every required argument is present.
	GetPrompt(ctx context.Context, rc *RequestContext, name string, args map[string]string) (*GetPromptResult, error)
}

// Notifier sends a notification to the client of the request in flight (for a
// stateful server, on that request's SSE stream or the stdio pipe).
type Notifier interface {
	Notify(ctx context.Context, method string, params any) error
}

// Session is the state a stateful server keeps per client (the mock's
// sessions implement it and add what they need); stateless servers have none.
type Session interface {
	ID() string
}

// RequestContext is what a provider learns about the request it serves beyond
// its params. The transport fills Vars, Header, Version, Session and
// Notifier; Handle fills RequestID and ProgressToken.
type RequestContext struct {
	RequestID jsonrpc.ID
	// ProgressToken is params._meta.progressToken verbatim (a JSON string or
	// number), nil when the client asked for no progress.
	ProgressToken json.RawMessage
	// Vars are request variables the runtime set, e.g. JWT claims.
	Vars map[string]any
	// Caller is what the block serving the request handed in for its own providers
	// (mcp-router: the message being served, whose branches start from it); the core never
	// looks at it. Stateless requests carry it (HTTPRequest.Caller).
	Caller any
	// Header holds the HTTP request headers; nil on other transports.
	Header http.Header
	// Version is the negotiated (or, stateless, the announced) protocol
	// revision, "" when unknown.
	Version string
	// Session is nil on a stateless server.
	Session Session
	// Notifier is nil when answers are single JSON bodies; then progress and
	// log notifications are dropped.
	Notifier Notifier

	rounds   *inputRounds // a 2026-07-28 request's inputResponses and questions (Ask)
	budget   *budget      // the answer budget of the POST body or stdio line
	reserved int64        // what this request's provider reserved of it
	// framed holds a large tool result encoded with room for its JSON-RPC envelope around it
	// (frame.go), so the answer is written once rather than copied to be framed. With it the
	// context fills its 160-byte size class.
	framed *jsonrpc.Frame

	// What a tools/call ran, for its probe, in the last 8 bytes of the size class the
	// context is allocated in: 1 + the tool's place in the server's tool probes (0: none),
	// and whether the tool answered an isError result.
	tool      int32
	toolError bool
	// versionGuessed: a sessionless request named no revision, so Version is the one the
	// transport assumes (2025-03-26); lists then keep every field (listfields.go).
	versionGuessed bool
}

type progressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         float64         `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

// Progress sends notifications/progress for this request. It does nothing when
// the client sent no progress token or nothing can carry notifications;
// total <= 0 means unknown, and message needs 2025-03-26 or later.
func (rc *RequestContext) Progress(ctx context.Context, progress, total float64, message string) error {
	if rc == nil || rc.Notifier == nil || len(rc.ProgressToken) == 0 {
		return nil
	}
	p := progressParams{ProgressToken: rc.ProgressToken, Progress: progress, Message: message}
	if total > 0 {
		p.Total = total
	}
	if rc.Version == Version20241105 {
		p.Message = ""
	}
	return rc.Notifier.Notify(ctx, "notifications/progress", p)
}

type logParams struct {
	Level  string `json:"level"`
	Logger string `json:"logger,omitempty"`
	Data   any    `json:"data"`
}

// Log sends notifications/message (level per RFC 5424: debug, info, notice,
// warning, error, critical, alert, emergency). It does nothing without a
// Notifier; filtering by the session's level is the Notifier's job.
func (rc *RequestContext) Log(ctx context.Context, level, logger string, data any) error {
	if rc == nil || rc.Notifier == nil {
		return nil
	}
	return rc.Notifier.Notify(ctx, "notifications/message", logParams{level, logger, data})
}

// Requester is implemented by what can ask the client (a stateful request's
// Notifier, a stateful session).
type Requester interface {
	Request(ctx context.Context, method string, params any) (json.RawMessage, error)
}

// Request asks the client of this request a question (elicitation, sampling,
// roots) and waits for its answer; see the session's Request. A stateless
// server cannot ask: stream.ErrNoStream.
func (rc *RequestContext) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if rc != nil {
		if r, ok := rc.Notifier.(Requester); ok {
			return r.Request(ctx, method, params)
		}
		if r, ok := rc.Session.(Requester); ok {
			return r.Request(ctx, method, params)
		}
	}
	return nil, fmt.Errorf("%s: %w", method, stream.ErrNoStream)
}

// ClientInfo is who the client of this request says it is: a 2026-07-28 request's _meta
// clientInfo, else its session's (what initialize said); empty when neither says.
func (rc *RequestContext) ClientInfo() Implementation {
	var info Implementation
	if rc == nil {
		return info
	}
	if rc.rounds != nil && len(rc.rounds.client) > 0 {
		_ = json.Unmarshal(rc.rounds.client, &info)
		return info
	}
	if s, ok := rc.Session.(interface{ ClientInfo() Implementation }); ok {
		return s.ClientInfo()
	}
	return info
}

package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// SessionFeatures are the per-session methods a stateful server can answer
// out of the box. Apply installs the handlers and declares the matching
// capabilities together, so a server never claims what it does not serve.
type SessionFeatures struct {
	Logging       bool // logging/setLevel + filtering of notifications/message
	Subscriptions bool // resources/subscribe, resources/unsubscribe
	Completions   bool // completion/complete, always answered with no values
}

// Apply fills s.Handlers and s.Capabilities for the enabled features,
// keeping handlers s already has. Call it before s.Check and the first
// Handle. Subscriptions need s.Resources.
func (f SessionFeatures) Apply(s *Server) {
	add := func(method string, h HandlerFunc) {
		if s.Handlers == nil {
			s.Handlers = make(map[string]HandlerFunc, 4)
		}
		if s.Handlers[method] == nil {
			s.Handlers[method] = h
		}
	}
	if f.Logging {
		add("logging/setLevel", HandleSetLevel)
		s.Capabilities.Logging = true
	}
	if f.Subscriptions && s.Resources != nil {
		add("resources/subscribe", HandleSubscribe)
		add("resources/unsubscribe", HandleUnsubscribe)
		s.Capabilities.ResourcesSubscribe = true
	}
	if f.Completions {
		add("completion/complete", HandleEmptyCompletion)
		s.Capabilities.Completions = true
	}
}

// logLevels are the RFC 5424 levels MCP uses, least severe first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// KeepingSession is a Session that keeps state between requests (a stateful front's):
// logging/setLevel and resources/(un)subscribe are answered on it, and are -32601 on a
// server without sessions.
type KeepingSession interface {
	Session
	// SetLogLevel keeps the least severity (LogLevel) of the log messages the session is sent.
	SetLogLevel(level int)
	// Subscribe adds uri to what the session hears resources/updated for; an error (too many
	// subscriptions) is the client's to see.
	Subscribe(uri string) error
	Unsubscribe(uri string)
}

func sessionOf(rc *RequestContext, method string) (KeepingSession, error) {
	if rc != nil {
		if s, ok := rc.Session.(KeepingSession); ok {
			return s, nil
		}
	}
	return nil, methodNotFound(method) // a stateless server keeps no per-session state
}

// HandleSetLevel serves logging/setLevel: it stores the level on the session
// and answers {}; an unknown level is -32602 (mcp-protocol.md §6.1).
func HandleSetLevel(_ context.Context, req *jsonrpc.Request, rc *RequestContext) (any, error) {
	s, err := sessionOf(rc, req.Method)
	if err != nil {
		return nil, err
	}
	i, err := levelParam(req)
	if err != nil {
		return nil, err
	}
	s.SetLogLevel(i)
	return nil, nil
}

// HandleSetLevelAnywhere serves logging/setLevel on a server that also runs without sessions
// (mcp-router): with a session it is HandleSetLevel; without one there is nothing to keep, so
// it checks the level (-32602 for an unknown one) and answers {}, and what each request is sent
// stays what the server itself lets through.
func HandleSetLevelAnywhere(ctx context.Context, req *jsonrpc.Request, rc *RequestContext) (any, error) {
	if rc != nil && rc.Session != nil {
		return HandleSetLevel(ctx, req, rc)
	}
	_, err := levelParam(req)
	return nil, err
}

// levelParam is the place of params.level among logLevels.
func levelParam(req *jsonrpc.Request) (int, error) {
	raw, _ := jsonscan.Member(req.Params, "level")
	level, perr := stringParam(raw, "level", true)
	if perr != nil {
		return 0, perr
	}
	i := LogLevel(level)
	if i < 0 {
		return 0, invalidParams("unknown log level %q; use one of debug, info, notice, warning, error, critical, alert, emergency", level)
	}
	return i, nil
}

// LogLevel is the severity of an RFC 5424 level name as MCP uses it (debug 0 … emergency 7),
// -1 for a name that is not one.
func LogLevel(name string) int { return slices.Index(logLevels, name) }

// LogLevelName is the name of severity i (0 … 7).
func LogLevelName(i int) string { return logLevels[i] }

// HandleSubscribe serves resources/subscribe: it adds uri to the session's
// subscriptions (ResourceUpdated then reaches it) and answers {}.
func HandleSubscribe(_ context.Context, req *jsonrpc.Request, rc *RequestContext) (any, error) {
	s, uri, err := subscription(req, rc)
	if err != nil {
		return nil, err
	}
	return nil, s.Subscribe(uri)
}

// HandleUnsubscribe serves resources/unsubscribe and answers {}, subscribed
// or not.
func HandleUnsubscribe(_ context.Context, req *jsonrpc.Request, rc *RequestContext) (any, error) {
	s, uri, err := subscription(req, rc)
	if err != nil {
		return nil, err
	}
	s.Unsubscribe(uri)
	return nil, nil
}

func subscription(req *jsonrpc.Request, rc *RequestContext) (KeepingSession, string, error) {
	s, err := sessionOf(rc, req.Method)
	if err != nil {
		return nil, "", err
	}
	raw, _ := jsonscan.Member(req.Params, "uri")
	uri, perr := stringParam(raw, "uri", true)
	if perr != nil {
		return nil, "", perr
	}
	return s, uri, nil
}

var emptyCompletion = json.RawMessage(`{"completion":{"values":[],"hasMore":false}}`)

// HandleEmptyCompletion serves completion/complete with no suggestions,
// after checking the request's shape (ref and argument, -32602 otherwise).
func HandleEmptyCompletion(_ context.Context, req *jsonrpc.Request, _ *RequestContext) (any, error) {
	if _, err := ReadCompletion(req); err != nil {
		return nil, err
	}
	return emptyCompletion, nil
}

// Completion is what a completion/complete request asks: which prompt argument (RefType
// "ref/prompt", Ref its name) or resource template part ("ref/resource", Ref the template)
// to complete, the text typed so far, and the other arguments already given (context.arguments,
// 2025-06-18 and later; nil when none were sent).
type Completion struct {
	RefType, Ref, Argument, Value string
	Context                       map[string]string
}

// ReadCompletion reads a completion/complete request; a malformed one is -32602.
func ReadCompletion(req *jsonrpc.Request) (Completion, error) {
	var c Completion
	ref, ok := jsonscan.Member(req.Params, "ref")
	if !ok || ref[0] != '{' {
		return c, invalidParams(`missing "ref" object`)
	}
	rawType, _ := jsonscan.Member(ref, "type")
	c.RefType, _ = jsonscan.Unquote(rawType)
	key := "name"
	switch c.RefType {
	case "ref/prompt":
	case "ref/resource":
		key = "uri"
	default:
		return c, invalidParams(`"ref.type" must be "ref/prompt" or "ref/resource"`)
	}
	raw, _ := jsonscan.Member(ref, key)
	c.Ref, _ = jsonscan.Unquote(raw)
	arg, ok := jsonscan.Member(req.Params, "argument")
	if !ok || arg[0] != '{' {
		return c, invalidParams(`missing "argument" object`)
	}
	raw, _ = jsonscan.Member(arg, "name")
	c.Argument, _ = jsonscan.Unquote(raw)
	raw, _ = jsonscan.Member(arg, "value")
	c.Value, _ = jsonscan.Unquote(raw)
	if ctx, ok := jsonscan.Member(req.Params, "context"); ok && ctx[0] == '{' {
		if given, ok := jsonscan.Member(ctx, "arguments"); ok && given[0] == '{' {
			c.Context = map[string]string{}
			jsonscan.EachMember(given, func(k, v []byte) bool {
				if s, ok := jsonscan.Unquote(v); ok {
					c.Context[string(jsonscan.KeyText(k))] = s
				}
				return true
			})
		}
	}
	return c, nil
}

// MaxCompletionValues is the most values one completion answer holds (the protocol's cap).
const MaxCompletionValues = 100

// Completions answers completion/complete with the suggestions that start with the typed
// value, in order: at most MaxCompletionValues, with their total and whether more exist.
func Completions(suggestions []string, typed string) any {
	values := make([]string, 0, min(len(suggestions), MaxCompletionValues))
	total := 0
	for _, v := range suggestions {
		if strings.HasPrefix(v, typed) {
			total++
			if len(values) < MaxCompletionValues {
				values = append(values, v)
			}
		}
	}
	type completion struct {
		Values  []string `json:"values"`
		Total   int      `json:"total"`
		HasMore bool     `json:"hasMore"`
	}
	return struct {
		Completion completion `json:"completion"`
	}{completion{values, total, total > len(values)}}
}

// MessageLevel is the severity (LogLevel) of a notifications/message, given as the params
// RequestContext.Log built or else read from the encoded message; -1 when it names none.
func MessageLevel(params any, msg []byte) int {
	if p, ok := params.(logParams); ok {
		return LogLevel(p.Level)
	}
	p, _ := jsonscan.Member(msg, "params")
	raw, _ := jsonscan.Member(p, "level")
	level, _ := jsonscan.Unquote(raw)
	return LogLevel(level)
}

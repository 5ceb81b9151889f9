package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/octo-run/octo/mcp/tasks"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// UnknownToolPolicy says how tools/call answers a name no tool has.
type UnknownToolPolicy uint8

const (
	// UnknownToolAsError answers JSON-RPC -32602 "Unknown tool: x", as the
	// protocol recommends (the mock).
	UnknownToolAsError UnknownToolPolicy = iota
	// UnknownToolAsResult answers an isError result the model can read and
	// recover from (the router).
	UnknownToolAsResult
)

// Capabilities are the optional capability flags a server declares on top of
// what its providers imply. Each one commits the server to methods (see Check).
type Capabilities struct {
	ToolsListChanged     bool // notifications/tools/list_changed
	ResourcesSubscribe   bool // resources/subscribe and resources/unsubscribe
	ResourcesListChanged bool // notifications/resources/list_changed
	PromptsListChanged   bool // notifications/prompts/list_changed
	Logging              bool // logging/setLevel, notifications/message
	Completions          bool // completion/complete
}

// HandlerFunc serves a method the core does not implement. Its result is
// marshalled by encoding/json (json.RawMessage passes through, nil is {});
// an *Error chooses the JSON-RPC error. For a notification the result is
// ignored.
type HandlerFunc func(ctx context.Context, req *jsonrpc.Request, rc *RequestContext) (any, error)

// Server answers MCP requests, transport-free: JSON-RPC in, JSON-RPC out.
// Configure it with a struct literal, call Check once, then share it between
// goroutines; do not change its fields after the first Handle.
type Server struct {
	Info         Implementation // serverInfo
	Instructions string
	// Versions is the version policy; zero means MockVersions.
	Versions Versions
	// Tools, Resources and Prompts may each be nil: the server then neither
	// declares the capability nor serves its methods (-32601).
	Tools       ToolProvider
	Resources   ResourceProvider
	Prompts     PromptProvider
	UnknownTool UnknownToolPolicy
	// ResourcesUndeclared leaves the resources capability out of initialize while Resources
	// still answers its methods: a server with no resources to offer (the agent bridge) that
	// answers clients listing them anyway with empty lists.
	ResourcesUndeclared bool
	// Capabilities adds optional flags; providers decide the rest.
	Capabilities Capabilities
	// Handlers serve further methods and notifications by name (the stateful
	// mock's logging/setLevel, notifications/cancelled, ...).
	Handlers map[string]HandlerFunc
	// CacheLists encodes the first page of each list once, for providers whose
	// lists do not depend on the request.
	CacheLists bool
	// StreamCalls answers every stateless tools/call from a client that takes text/event-stream
	// as a stream, so what its provider sends on the way reaches it: logs (mcp-router with
	// logging), and on older revisions questions (RequestContext.Request, ask blocks). Without
	// it only a call with a progress token or a _meta log level is streamed.
	StreamCalls bool
	// PageSize is the most items one page of a list holds (0: DefaultPageSize), for providers
	// that answer a list whole: the core pages it, with cursors of its own. A provider that pages
	// itself (a nextCursor of its own) is left to it.
	PageSize int
	// OnPanic, when set, hears about a panic recovered while handling method.
	OnPanic func(method string, recovered any, stack []byte)
	// TraceContext, when set, takes the W3C trace context a request carries in its
	// params._meta (traceparent, tracestate), as the MCP semantic conventions put it: it returns
	// ctx as a child of that trace, get reading the _meta members. A block that traces sets it.
	TraceContext func(ctx context.Context, get func(key string) string) context.Context
	// Span, when set, runs each request (not a notification) within a span: it is called once
	// the request's trace context is known, with its method and target (the tool's or
	// prompt's name for tools/call and prompts/get, the resource's URI for resources/read,
	// else ""), and returns the context the request runs in and what ends the span with the
	// answer (toolError: a tool's isError result). A block that traces sets it.
	Span func(ctx context.Context, method, target string, rc *RequestContext) (context.Context, func(resp jsonrpc.Response, toolError bool))
	// MaxBatch caps the messages of one JSON-RPC batch (0: DefaultMaxBatch);
	// a longer batch is refused whole.
	MaxBatch int
	// MaxResponseBytes caps the bytes of the answers produced for one POST
	// body or stdio line (0: DefaultMaxResponseBytes); an answer that does
	// not fit becomes an error for its id.
	MaxResponseBytes int64
	// ShutdownCause is the cause a request's context is cancelled with when
	// the server is shutting down (the runtime's ErrShuttingDown): such a
	// request is answered -32603 "the server is shutting down" instead of
	// being taken for one whose client left. Nil: never.
	ShutdownCause error
	// Cache are the hints on the cacheable results of 2026-07-28 requests (lists, reads,
	// server/discover); zero: not to be reused, private.
	Cache CacheHints
	// Tasks, when set, lets 2026-07-28 tools/call requests become tasks (the tasks extension,
	// tasks.go): server/discover declares it and tasks/get, tasks/update, tasks/cancel are served.
	// Whoever builds the server closes it when the server stops.
	Tasks tasks.Store
	// Probes, when set, gives the probes told how each request ended (not notifications), by
	// method and by tool: metrics. The MCP blocks hand it the runtime's (Build.Probes).
	Probes Probes

	probeSet  probeSet
	stateOnce sync.Once
	stateKey  [32]byte   // signs requestState (mrtr.go)
	listeners *listeners // subscriptions/listen streams; nil until Listen
	asks      asks       // questions stateless streamed calls wait on (callstream.go)
	initOnce  sync.Once
	initTail  []byte
	lists     [4][fieldTiers]atomic.Pointer[[]byte] // by list slot and field tier
}

// coreMethods are the methods Handle implements itself.
var coreMethods = map[string]bool{
	"initialize": true, "ping": true, "server/discover": true,
	"tools/list": true, "tools/call": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"prompts/list": true, "prompts/get": true,
}

func init() {
	names := []string{"notifications/initialized", "notifications/cancelled", "notifications/progress",
		"logging/setLevel", "completion/complete", "resources/subscribe", "resources/unsubscribe"}
	for name := range coreMethods {
		names = append(names, name)
	}
	jsonrpc.InternMethods(names...)
}

// Check reports configuration that would make the server claim what it does
// not do; call it once at build time.
func (s *Server) Check() error {
	var errs []error
	if s.Info.Name == "" {
		errs = append(errs, errors.New("server: serverInfo name is empty"))
	}
	errs = append(errs, s.VersionPolicy().Check(), s.checkLimits())
	for m, h := range s.Handlers {
		if coreMethods[m] {
			errs = append(errs, fmt.Errorf("server: handler for %q would shadow the built-in method", m))
		}
		if h == nil {
			errs = append(errs, fmt.Errorf("server: handler for %q is nil", m))
		}
	}
	c := s.Capabilities
	needs := func(flag bool, what string, ok bool, methods ...string) {
		for _, m := range methods {
			ok = ok && s.Handlers[m] != nil
		}
		if flag && !ok {
			errs = append(errs, fmt.Errorf("server: %s declared without a provider or handler to serve it", what))
		}
	}
	needs(c.ToolsListChanged, "tools.listChanged", s.Tools != nil)
	needs(c.ResourcesSubscribe, "resources.subscribe", s.Resources != nil, "resources/subscribe", "resources/unsubscribe")
	needs(c.ResourcesListChanged, "resources.listChanged", s.Resources != nil)
	needs(c.PromptsListChanged, "prompts.listChanged", s.Prompts != nil)
	needs(c.Logging, "logging", true, "logging/setLevel")
	needs(c.Completions, "completions", true, "completion/complete")
	return errors.Join(errs...)
}

// VersionPolicy is the version policy the server keeps: Versions, or MockVersions when unset.
func (s *Server) VersionPolicy() Versions {
	if len(s.Versions.Supported) == 0 {
		return MockVersions
	}
	return s.Versions
}

// Handle answers one request. It fills rc.RequestID and rc.ProgressToken (rc
// may be nil). Every method works without a prior initialize. A notification
// goes to its handler, if any, and gets a zero Response that must not be sent.
// A panic below Handle becomes -32603.
func (s *Server) Handle(ctx context.Context, req *jsonrpc.Request, rc *RequestContext) (resp jsonrpc.Response) {
	if rc == nil {
		rc = new(RequestContext)
	}
	rc.RequestID = req.ID
	if req.IsNotification() {
		defer s.recoverPanic(req.Method, new(jsonrpc.Response))
		if h := s.Handlers[req.Method]; h != nil {
			_, _ = h(ctx, req, rc)
		}
		return jsonrpc.Response{}
	}
	resp.ID = req.ID
	if s.TraceContext != nil {
		ctx = s.metaTrace(ctx, req.Params)
	}
	if s.Span != nil {
		var end func(jsonrpc.Response, bool)
		ctx, end = s.Span(ctx, req.Method, spanTarget(req), rc)
		defer endSpan(end, &resp, rc) // after the panic is recovered: the span ends with its answer
	}
	if pr := s.probe(req.Method); pr != nil {
		defer s.observe(pr, time.Now(), rc, &resp)
	}
	defer s.recoverPanic(req.Method, &resp)
	result, err := s.dispatch(ctx, req, rc)
	if err != nil && rc.rounds != nil && len(rc.rounds.asked) > 0 && errors.Is(err, ErrInputRequired) {
		result, err = s.inputRequired(rc.rounds)
	}
	if err != nil {
		resp.Error = toError(err)
		if s.ShuttingDown(ctx) {
			resp.Error = ErrShuttingDown
		}
		if rc.Version == Version20260728 && resp.Error.Code == jsonrpc.CodeResourceNotFound {
			e := *resp.Error // 2026-07-28 reports an unknown resource as invalid params
			e.Code, e.Message = jsonrpc.CodeInvalidParams, "Invalid params: resource not found"
			resp.Error = &e
		}
		return resp
	}
	if rc.Version == Version20260728 {
		result = s.modernize(req.Method, result)
	}
	resp.Result = result
	return resp
}

func (s *Server) recoverPanic(method string, resp *jsonrpc.Response) {
	v := recover()
	if v == nil {
		return
	}
	if s.OnPanic != nil {
		s.OnPanic(method, v, debug.Stack())
	}
	resp.Result = nil
	resp.Error = jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error while handling %s", method)
}

func (s *Server) dispatch(ctx context.Context, req *jsonrpc.Request, rc *RequestContext) (json.RawMessage, error) {
	if taskMethods[req.Method] && s.Tasks != nil {
		return s.serveTaskMethod(ctx, req, rc)
	}
	if !coreMethods[req.Method] {
		if h := s.Handlers[req.Method]; h != nil {
			v, err := h(ctx, req, rc)
			if err != nil {
				return nil, err
			}
			return encodeResult(v)
		}
		return nil, methodNotFound(req.Method)
	}
	p, perr := readParams(req.Params, rc)
	if perr != nil {
		return nil, perr
	}
	switch req.Method {
	case "initialize":
		return s.initialize(p, rc)
	case "server/discover":
		if rc.Version != Version20260728 { // older clients probe with it and expect an error
			return nil, methodNotFound(req.Method)
		}
		return s.discover(rc.Header != nil) // listen streams are HTTP's: a stdio line has no headers
	case "ping":
		return jsonrpc.EmptyObject, nil
	case "tools/list", "tools/call":
		return s.tools(ctx, req.Method, p, rc)
	case "resources/list", "resources/templates/list", "resources/read":
		return s.resources(ctx, req.Method, p, rc)
	}
	return s.prompts(ctx, req.Method, p, rc)
}

func encodeResult(v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case nil:
		return jsonrpc.EmptyObject, nil
	case json.RawMessage:
		return v, nil
	case []byte:
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	return b, nil
}

// ErrShuttingDown answers a request the server stopped, or did not start,
// because it is shutting down.
var ErrShuttingDown = jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the server is shutting down")

// ShuttingDown reports whether ctx ended because the server is shutting
// down: its cause is the server's ShutdownCause.
func (s *Server) ShuttingDown(ctx context.Context) bool {
	return s.ShutdownCause != nil && ctx.Err() != nil && errors.Is(context.Cause(ctx), s.ShutdownCause)
}

// spanTarget is what a request is for, for its span: the tool's or the prompt's name, the
// resource's URI.
func spanTarget(req *jsonrpc.Request) string {
	key := "name"
	switch req.Method {
	case "tools/call", "prompts/get":
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		key = "uri"
	default:
		return ""
	}
	raw, _ := jsonscan.Member(req.Params, key)
	name, _ := jsonscan.Unquote(raw)
	return name
}

// endSpan ends a request's span with its answer, a copy: the answer itself stays on the stack.
func endSpan(end func(jsonrpc.Response, bool), resp *jsonrpc.Response, rc *RequestContext) {
	end(*resp, rc.toolError)
}

// metaTrace is ctx as a child of the trace params._meta names, when it names one.
func (s *Server) metaTrace(ctx context.Context, params json.RawMessage) context.Context {
	meta, ok := jsonscan.Member(params, "_meta")
	if !ok {
		return ctx
	}
	if _, ok := jsonscan.Member(meta, "traceparent"); !ok {
		return ctx
	}
	return s.TraceContext(ctx, func(key string) string {
		raw, _ := jsonscan.Member(meta, key)
		v, _ := jsonscan.Unquote(raw)
		return v
	})
}

func methodNotFound(method string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: %s", method)
}

func invalidParams(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: "+format, args...)
}

// toError maps a provider's error to the JSON-RPC error the client sees.
func toError(err error) *jsonrpc.Error {
	var e *jsonrpc.Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, ErrInvalidCursor):
		return invalidParams("invalid cursor")
	case errors.Is(err, ErrUnknownTool), errors.Is(err, ErrUnknownPrompt):
		return invalidParams("%s", err.Error())
	}
	return jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: %s", err.Error())
}

func (s *Server) initialize(p params, rc *RequestContext) (json.RawMessage, error) {
	requested, perr := stringParam(p.protocolVersion, "protocolVersion", false)
	if perr != nil {
		return nil, perr
	}
	rc.Version = s.VersionPolicy().Negotiate(requested)
	s.initOnce.Do(s.buildInitTail)
	out := make([]byte, 0, len(s.initTail)+32)
	out = append(out, `{"protocolVersion":`...)
	out = jsonscan.AppendString(out, rc.Version)
	return append(out, s.initTail...), nil
}

type listChangedCap struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

type resourcesCap struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

type serverCaps struct {
	Tools       *listChangedCap `json:"tools,omitempty"`
	Resources   *resourcesCap   `json:"resources,omitempty"`
	Prompts     *listChangedCap `json:"prompts,omitempty"`
	Logging     *struct{}       `json:"logging,omitempty"`
	Completions *struct{}       `json:"completions,omitempty"`
	Extensions  map[string]any  `json:"extensions,omitempty"` // server/discover only
}

// buildInitTail encodes the part of the initialize result that does not depend
// on the negotiated version, once. Capabilities follow the providers present.
func (s *Server) buildInitTail() {
	b, err := json.Marshal(struct {
		Capabilities serverCaps     `json:"capabilities"`
		ServerInfo   Implementation `json:"serverInfo"`
		Instructions string         `json:"instructions,omitempty"`
	}{s.capabilities(), s.Info, s.Instructions})
	if err != nil { // only plain strings and structs above; cannot happen
		b = []byte(`{"capabilities":{},"serverInfo":{"name":"","version":""}}`)
	}
	b[0] = ','
	s.initTail = b
}

// capabilities are the server's: the providers present and the optional flags.
func (s *Server) capabilities() serverCaps {
	var caps serverCaps
	c := s.Capabilities
	if s.Tools != nil {
		caps.Tools = &listChangedCap{c.ToolsListChanged}
	}
	if s.Resources != nil && !s.ResourcesUndeclared {
		caps.Resources = &resourcesCap{c.ResourcesSubscribe, c.ResourcesListChanged}
	}
	if s.Prompts != nil {
		caps.Prompts = &listChangedCap{c.PromptsListChanged}
	}
	if c.Logging {
		caps.Logging = &struct{}{}
	}
	if c.Completions {
		caps.Completions = &struct{}{}
	}
	return caps
}

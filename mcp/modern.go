package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/logsafe"
)

// This file serves the stateless revision, 2026-07-28, beside the older ones on the same
// endpoint. There is no initialize and no session: every request carries its revision and the
// client's capabilities in params._meta, mirrored in headers, and every result says its
// resultType. Which revision a POST speaks is decided per request (modernRequest); anything
// that is not a 2026-07-28 request keeps the older rules untouched.

// Version20260728 is the stateless revision.
const Version20260728 = "2026-07-28"

// Error codes of 2026-07-28.
const (
	CodeHeaderMismatch     = -32020 // a mirrored header is missing or differs from the body
	CodeMissingCapability  = -32021 // the request needs a client capability it did not declare
	CodeUnsupportedVersion = -32022 // the request's revision is not one the server speaks
)

// Keys of params._meta and result._meta in 2026-07-28.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// Headers a 2026-07-28 request mirrors its body in.
const (
	HeaderMethod = "Mcp-Method"
	HeaderName   = "Mcp-Name"
)

// modernMethods are the methods a 2026-07-28 request may name; the rest (initialize, ping,
// logging/setLevel, resources/subscribe, ...) are gone from the revision: 404 and -32601.
var modernMethods = map[string]bool{
	"server/discover": true, "tools/list": true, "tools/call": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"prompts/list": true, "prompts/get": true, "completion/complete": true,
	"subscriptions/listen": true, "tasks/get": true, "tasks/update": true, "tasks/cancel": true,
}

// cacheable are the methods whose 2026-07-28 results carry ttlMs and cacheScope.
var cacheable = map[string]bool{
	"server/discover": true, "tools/list": true, "prompts/list": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
}

// CacheHints are the ttlMs and cacheScope a server puts on cacheable 2026-07-28 results.
type CacheHints struct {
	// TTLMs is how long a client may reuse the result, in milliseconds (0: not at all).
	TTLMs int64
	// Public says the result holds nothing particular to the caller ("public"); else "private".
	Public bool
}

// IsModernRequest reports whether a POST with no session speaks a stateless revision: its
// params._meta names a protocol version (a key no client of the older revisions sends), so a
// wrong one is answered as that revision does, or its MCP-Protocol-Version header names a
// stateless revision and it is not an initialize (which never looks at the header, pitfall 2).
func (s *Server) IsModernRequest(in HTTPRequest) bool {
	v := s.VersionPolicy()
	if len(v.Stateless) == 0 {
		return false
	}
	if bytes.Contains(in.Body, []byte(MetaProtocolVersion)) {
		params, _ := jsonscan.Member(in.Body, "params")
		meta, _ := jsonscan.Member(params, "_meta")
		if _, ok := jsonscan.Member(meta, MetaProtocolVersion); ok {
			return true
		}
	}
	h, ok := AnnouncedVersion(in.Header)
	if !ok || !slices.Contains(v.Stateless, h) {
		return false
	}
	method, _ := jsonscan.Member(in.Body, "method")
	return string(method) != `"initialize"`
}

// RequestVersion is the revision a sessionless request came with, for the traffic log: its
// MCP-Protocol-Version header, else its params._meta's protocol version.
func RequestVersion(h http.Header, m *jsonrpc.Message) string {
	if v, ok := AnnouncedVersion(h); ok {
		return v
	}
	meta, _ := jsonscan.Member(m.Params, "_meta")
	raw, _ := jsonscan.Member(meta, MetaProtocolVersion)
	v, _ := jsonscan.Unquote(raw)
	return v
}

// supportedVersions lists every revision the server speaks, stateless ones first: what
// server/discover and -32022 name.
func (v Versions) supportedVersions() []string {
	return append(slices.Clip(v.Stateless), v.Supported...)
}

// ServeModern answers one 2026-07-28 POST: one request, checked against its headers, then
// served as the stateless server serves any request; errors keep the request's id.
func (s *Server) ServeModern(ctx context.Context, in HTTPRequest) HTTPResponse {
	msgs, batch, perr := jsonrpc.Decode(in.Body)
	switch {
	case perr != nil:
		return jsonResponse(http.StatusBadRequest, jsonrpc.AppendError(nil, jsonrpc.ID{}, perr))
	case batch:
		return jsonResponse(http.StatusBadRequest, jsonrpc.AppendError(nil, jsonrpc.ID{}, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"Invalid Request: JSON-RPC batches are not part of protocol version %s", Version20260728)))
	}
	m := &msgs[0]
	switch m.Kind {
	case jsonrpc.KindInvalid:
		return jsonResponse(http.StatusBadRequest, jsonrpc.AppendError(nil, m.ID, m.Error))
	case jsonrpc.KindRequest:
	default: // a notification or a stray response: nothing to answer
		return accepted()
	}
	meta, e := s.checkModern(m, in.Header)
	if e != nil { // the request is malformed: every such refusal is 400
		return jsonResponse(http.StatusBadRequest, jsonrpc.AppendError(nil, m.ID, e))
	}
	if !modernMethods[m.Method] {
		return modernError(m.ID, methodNotFound(m.Method))
	}
	if m.Method == "subscriptions/listen" {
		return s.listen(m, meta, in)
	}
	rc := RequestContext{Vars: in.Vars, Header: in.Header, Version: Version20260728, Caller: in.Caller}
	if e := s.startRounds(m, meta, &rc); e != nil {
		return modernError(m.ID, e)
	}
	rc.rounds.detach = in.Detach          // for a task, which outlives the POST
	if streamsCall(m, in.Header, false) { // 2026-07-28: logs only for a request naming a level
		if in.Detach != nil {
			rc.Caller = in.Detach(rc.Caller)
		}
		return s.serveStream(ctx, m, rc, len(in.Body), logLevelOf(meta))
	}
	resp := s.Handle(ctx, &m.Request, &rc)
	if resp.Error != nil {
		return modernError(m.ID, resp.Error)
	}
	return jsonResponse(http.StatusOK, s.answer(&rc, m.ID, resp, len(in.Body)))
}

// IsModernMessage reports whether a message that came without HTTP (a stdio line) speaks a
// stateless revision: its params._meta names one the server serves per request.
func (s *Server) IsModernMessage(m *jsonrpc.Message) bool {
	v := s.VersionPolicy()
	if len(v.Stateless) == 0 || m.Kind != jsonrpc.KindRequest {
		return false
	}
	meta, _ := jsonscan.Member(m.Params, "_meta")
	raw, ok := jsonscan.Member(meta, MetaProtocolVersion)
	if !ok {
		return false
	}
	version, _ := jsonscan.Unquote(raw)
	return slices.Contains(v.Stateless, version)
}

// PrepareModern readies rc for a 2026-07-28 request that came without HTTP (a stdio line, beside
// the older revisions on the same pipe): its _meta checked, its method one the revision has, its
// input rounds read, rc.Version set. An error is the request's answer. (Over HTTP, ServeModern
// does this and checks the headers too.)
func (s *Server) PrepareModern(m *jsonrpc.Message, rc *RequestContext) *jsonrpc.Error {
	meta, version, e := modernMeta(m)
	if e == nil {
		e = s.servesStateless(version)
	}
	if e != nil {
		return e
	}
	if !modernMethods[m.Method] || m.Method == "subscriptions/listen" { // a listen stream is HTTP's
		return methodNotFound(m.Method)
	}
	rc.Version = Version20260728
	return s.startRounds(m, meta, rc)
}

// modernError answers e for id with the HTTP status 2026-07-28 gives its code.
func modernError(id jsonrpc.ID, e *jsonrpc.Error) HTTPResponse {
	return jsonResponse(ModernErrorStatus(e.Code), jsonrpc.AppendError(nil, id, e))
}

// ModernErrorStatus is the HTTP status a 2026-07-28 error of code is answered with: 404 for
// an unknown method, 400 for a request the server cannot take as sent, else 200.
func ModernErrorStatus(code int) int {
	switch code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case CodeHeaderMismatch, CodeMissingCapability, CodeUnsupportedVersion, jsonrpc.CodeInvalidRequest, jsonrpc.CodeParseError:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// checkModern checks a 2026-07-28 request's _meta and headers and returns its _meta: the
// revision in both, a capabilities object, and Mcp-Method and Mcp-Name equal to the body's.
func (s *Server) checkModern(m *jsonrpc.Message, h http.Header) ([]byte, *jsonrpc.Error) {
	header, ok := AnnouncedVersion(h)
	if !ok {
		return nil, headerMismatch("missing the %s header", HeaderProtocolVersion)
	}
	meta, version, e := modernMeta(m)
	if e != nil {
		return nil, e
	}
	if version != header { // a mismatch is told before whether the revision is served
		return nil, headerMismatch("%s %q differs from _meta %s %q", HeaderProtocolVersion, header, MetaProtocolVersion, version)
	}
	if e := s.servesStateless(version); e != nil {
		return nil, e
	}
	if e := mirrored(h, HeaderMethod, m.Method, true); e != nil {
		return nil, e
	}
	if key := NameKey(m.Method); key != "" {
		raw, _ := jsonscan.Member(m.Params, key)
		name, _ := jsonscan.Unquote(raw)
		if e := mirrored(h, HeaderName, name, raw != nil); e != nil {
			return nil, e
		}
	}
	if m.Method == "tools/call" {
		if e := s.checkParamHeaders(m, h); e != nil {
			return nil, e
		}
	}
	return meta, nil
}

// modernMeta checks that a 2026-07-28 request's _meta names a revision and holds a
// capabilities object, and returns it with the revision.
func modernMeta(m *jsonrpc.Message) (meta []byte, version string, e *jsonrpc.Error) {
	meta, ok := jsonscan.Member(m.Params, "_meta")
	if !ok || meta[0] != '{' {
		return nil, "", invalidParams("params._meta with %s and %s is required", MetaProtocolVersion, MetaClientCapabilities)
	}
	rawVersion, ok := jsonscan.Member(meta, MetaProtocolVersion)
	if !ok {
		return nil, "", invalidParams("params._meta lacks %s", MetaProtocolVersion)
	}
	if caps, ok := jsonscan.Member(meta, MetaClientCapabilities); !ok || caps[0] != '{' {
		return nil, "", invalidParams("params._meta lacks %s (an object)", MetaClientCapabilities)
	}
	version, _ = jsonscan.Unquote(rawVersion)
	return meta, version, nil
}

// servesStateless refuses a revision the server does not serve per request.
func (s *Server) servesStateless(version string) *jsonrpc.Error {
	if v := s.VersionPolicy(); !slices.Contains(v.Stateless, version) {
		return &jsonrpc.Error{Code: CodeUnsupportedVersion, Message: "Unsupported protocol version " + version,
			Data: map[string]any{"supported": v.supportedVersions(), "requested": version}}
	}
	return nil
}

// NameKey is the params member a 2026-07-28 request's Mcp-Name header mirrors for method, ""
// when none: servers check it, clients (octo test's) fill it.
func NameKey(method string) string {
	switch method {
	case "tools/call", "prompts/get":
		return "name"
	case "resources/read":
		return "uri"
	case "tasks/get", "tasks/update", "tasks/cancel":
		return "taskId"
	}
	return ""
}

// mirrored checks that header key holds want (see headerText); a missing header is a mismatch
// when the body has the value.
func mirrored(h http.Header, key, want string, inBody bool) *jsonrpc.Error {
	got, sent, e := headerText(h, key)
	switch {
	case e != nil:
		return e
	case !sent && inBody:
		return headerMismatch("missing the %s header", key)
	case sent && got != want:
		return headerMismatch("the %s header %q differs from the body's %q", key, logsafe.Clip(got), logsafe.Clip(want))
	}
	return nil
}

func headerMismatch(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.NewError(CodeHeaderMismatch, "Header mismatch: "+format, args...)
}

// logLevelOf returns the place in logLevels of _meta's logLevel, or len(logLevels) when the
// request named none: then no log reaches it.
func logLevelOf(meta []byte) int {
	raw, _ := jsonscan.Member(meta, MetaLogLevel)
	if name, ok := jsonscan.Unquote(raw); ok {
		if i := slices.Index(logLevels, name); i >= 0 {
			return i
		}
	}
	return len(logLevels)
}

// modernize makes a result a 2026-07-28 one: resultType "complete" unless the provider set
// one, and the cache hints on cacheable methods. The result may be shared (a cached list
// page), so it is copied, never changed.
func (s *Server) modernize(method string, result []byte) []byte {
	if len(result) < 2 || result[0] != '{' {
		return result
	}
	if _, ok := jsonscan.Member(result, "resultType"); ok {
		return result
	}
	out := make([]byte, 0, len(result)+64)
	out = append(out, `{"resultType":"complete"`...)
	if cacheable[method] {
		out = append(out, `,"ttlMs":`...)
		out = strconv.AppendInt(out, max(s.Cache.TTLMs, 0), 10)
		if s.Cache.Public {
			out = append(out, `,"cacheScope":"public"`...)
		} else {
			out = append(out, `,"cacheScope":"private"`...)
		}
	}
	rest := bytes.TrimLeft(result[1:], " \t\r\n")
	if len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, rest...)
}

// discover answers server/discover: the revisions, the capabilities and, in _meta, serverInfo.
// The subscription flags are declared only when subscriptions/listen can deliver them (a
// stateful front, session.New, over HTTP).
func (s *Server) discover(overHTTP bool) (json.RawMessage, error) {
	caps := s.capabilities()
	if s.Tasks != nil {
		caps.Extensions = map[string]any{ExtensionTasks: struct{}{}}
	}
	if s.listeners == nil || !overHTTP {
		if caps.Tools != nil {
			caps.Tools = &listChangedCap{}
		}
		if caps.Resources != nil {
			caps.Resources = &resourcesCap{}
		}
		if caps.Prompts != nil {
			caps.Prompts = &listChangedCap{}
		}
	}
	b, err := json.Marshal(struct {
		SupportedVersions []string       `json:"supportedVersions"`
		Capabilities      serverCaps     `json:"capabilities"`
		Instructions      string         `json:"instructions,omitempty"`
		Meta              map[string]any `json:"_meta"`
	}{s.VersionPolicy().supportedVersions(), caps, s.Instructions, map[string]any{MetaServerInfo: s.Info}})
	if err != nil {
		return nil, fmt.Errorf("encode server/discover: %w", err)
	}
	return b, nil
}

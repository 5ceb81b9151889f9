package mcp

import (
	"context"
	"net/http"
	"net/url"

	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/stream"
)

// HeaderProtocolVersion is the header a client sends after initialize with the
// negotiated revision (2025-06-18 and later).
const HeaderProtocolVersion = "Mcp-Protocol-Version"

// HeaderSessionID carries the Streamable HTTP session id (case-insensitive on
// the wire; this is net/http's canonical form).
const HeaderSessionID = "Mcp-Session-Id"

// HTTPRequest is what ServeStateless needs of an HTTP request. Header keys are
// in canonical form, as net/http gives them.
type HTTPRequest struct {
	Method string
	Header http.Header
	Body   []byte
	// Vars reach providers as RequestContext.Vars.
	Vars map[string]any
	// Query is the URL query; the legacy SSE message endpoint reads its
	// sessionId from it.
	Query url.Values
	// Caller reaches providers as RequestContext.Caller.
	Caller any
	// Detach, when set, makes of the Caller the one a call answered as a stream runs with:
	// that call outlives the serving of the request, and must not share what the transport
	// goes on to write (the reply's status and headers). A plain function, so that setting it
	// costs a request nothing.
	Detach func(caller any) any
}

// HTTPResponse is what to write back. Body is nil for 202 Accepted.
type HTTPResponse struct {
	Status int
	// ContentType is the body's media type, kept apart from Header so the usual answer, a
	// JSON body, needs no header map of its own.
	ContentType string
	// Header holds any other headers (Allow); nil when there are none.
	Header http.Header
	Body   []byte
	// Stream, when set, is the answer instead of Body: server-sent events to write as they
	// come (ContentType says text/event-stream). The writer must Close it when it stops
	// reading, whether it ended or the client left: that cancels what is still running.
	Stream stream.Stream
}

// ContentTypeJSON is the media type of a JSON answer.
const ContentTypeJSON = "application/json"

var (
	// Full slice expressions: a caller appending to a header value gets a copy.
	jsonContentType = []string{"application/json"}[:1:1]
	allowPost       = []string{http.MethodPost}[:1:1]
	notAllowedBody  = jsonrpc.AppendError(nil, jsonrpc.ID{}, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
		"Method not allowed: this MCP endpoint is stateless and accepts POST only"))
)

// ServeStateless applies the Streamable HTTP rules of a server without
// sessions (mcp-protocol.md §7.2): one POST, one JSON answer, whatever
// Content-Type and Accept say, except for a tools/call with a progress token
// from a client that names text/event-stream in Accept, which gets a stream
// (callstream.go). Non-POST is 405 with Allow: POST. A body that is not JSON
// is 400 with -32700, a message of the wrong shape 400 with -32600; a
// notification or response is 202 with no body; a batch (up to 2025-03-26)
// gets an array. An MCP-Protocol-Version header naming a revision the server
// does not speak is 400, except on an initialize request.
func (s *Server) ServeStateless(ctx context.Context, in HTTPRequest) HTTPResponse {
	if in.Method != http.MethodPost {
		return HTTPResponse{
			Status:      http.StatusMethodNotAllowed,
			ContentType: ContentTypeJSON,
			Header:      http.Header{"Allow": allowPost},
			Body:        notAllowedBody,
		}
	}
	if s.IsModernRequest(in) {
		return s.ServeModern(ctx, in)
	}
	msgs, batch, perr := jsonrpc.Decode(in.Body)
	if perr != nil {
		return jsonResponse(http.StatusBadRequest, jsonrpc.AppendError(nil, jsonrpc.ID{}, perr))
	}
	version, announced := AnnouncedVersion(in.Header)
	if announced && !s.VersionPolicy().Speaks(version) && !(!batch && IsInitialize(&msgs[0])) {
		id := jsonrpc.ID{} // a batch's error is about all of it
		if !batch {
			id = msgs[0].ID
		}
		return jsonResponse(http.StatusBadRequest, jsonrpc.AppendError(nil, id, &jsonrpc.Error{
			Code: jsonrpc.CodeInvalidRequest,
			Message: "Bad Request: unsupported " + HeaderProtocolVersion + " \"" + version +
				"\"; this server speaks " + s.VersionPolicy().List(),
			Data: map[string]any{"supported": s.VersionPolicy().Supported, "requested": version},
		}))
	}
	if !announced {
		version = Version20250326 // what a stateless server must assume (§7.2.5)
	}
	rc := RequestContext{Vars: in.Vars, Header: in.Header, Version: version, Caller: in.Caller, versionGuessed: !announced}
	if !batch {
		return s.serveOne(ctx, &msgs[0], rc, len(in.Body), in.Detach)
	}
	if !batchable(version) {
		return jsonResponse(http.StatusBadRequest, jsonrpc.AppendError(nil, jsonrpc.ID{}, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"Invalid Request: JSON-RPC batches are not supported in protocol version %s", version)))
	}
	if err := s.CheckBatch(len(msgs)); err != nil {
		return jsonResponse(http.StatusBadRequest, jsonrpc.AppendError(nil, jsonrpc.ID{}, err))
	}
	rc.budget = s.newBudget(len(in.Body))
	return s.serveBatch(ctx, msgs, rc)
}

// AnnouncedVersion is the MCP-Protocol-Version header's revision, and whether there is one.
func AnnouncedVersion(h http.Header) (string, bool) {
	v, ok := h[HeaderProtocolVersion]
	if !ok || len(v) == 0 {
		return "", false
	}
	return v[0], true
}

// IsInitialize reports whether m is an initialize request.
func IsInitialize(m *jsonrpc.Message) bool {
	return m.Kind == jsonrpc.KindRequest && m.Method == "initialize"
}

func jsonResponse(status int, body []byte) HTTPResponse {
	return HTTPResponse{Status: status, ContentType: ContentTypeJSON, Body: body}
}

func accepted() HTTPResponse {
	return HTTPResponse{Status: http.StatusAccepted}
}

// serveOne answers a body of size bytes holding one message; detach is HTTPRequest.Detach. Its answer is
// held to the budget directly: nothing shares it, so the common call does
// not pay for a budget.
func (s *Server) serveOne(ctx context.Context, m *jsonrpc.Message, rc RequestContext, size int, detach func(any) any) HTTPResponse {
	switch m.Kind {
	case jsonrpc.KindInvalid:
		return jsonResponse(http.StatusBadRequest, jsonrpc.AppendError(nil, m.ID, m.Error))
	case jsonrpc.KindRequest:
		if streamsCall(m, rc.Header, s.StreamCalls) {
			if detach != nil {
				rc.Caller = detach(rc.Caller)
			}
			return s.serveStream(ctx, m, rc, size, 0)
		}
		resp := s.Handle(ctx, &m.Request, &rc)
		msg := s.answer(&rc, m.ID, resp, size)
		return jsonResponse(http.StatusOK, msg)
	case jsonrpc.KindNotification:
		s.Handle(ctx, &m.Request, &rc)
	case jsonrpc.KindResponse:
		// The answer to a question a streamed call asked (streamNotifier.Request); one to
		// nothing asked is accepted and dropped, as a notification would be.
		s.asks.answer(m)
	}
	return accepted()
}

// serveBatch answers a 2025-03-26 batch in order: an array with one answer per
// request or invalid entry, or 202 when there is nothing to answer.
func (s *Server) serveBatch(ctx context.Context, msgs []jsonrpc.Message, base RequestContext) HTTPResponse {
	out := []byte{'['}
	for i := range msgs {
		m := &msgs[i]
		rc := base
		switch {
		case m.Kind == jsonrpc.KindInvalid:
			out = jsonrpc.AppendError(out, m.ID, m.Error)
		case IsInitialize(m):
			out = jsonrpc.AppendError(out, m.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
				"Invalid Request: initialize must not be part of a batch"))
		case m.Kind == jsonrpc.KindRequest:
			// Answered one after another, so only the answers that fit stay.
			start := len(out)
			out = jsonrpc.AppendResponse(out, s.Handle(ctx, &m.Request, &rc))
			if refused, ok := rc.FitAnswer(m.ID, out[start:]); !ok {
				out = append(out[:start], refused...)
			}
		case m.Kind == jsonrpc.KindNotification:
			s.Handle(ctx, &m.Request, &rc)
			continue
		default:
			continue
		}
		out = append(out, ',')
	}
	if len(out) == 1 {
		return accepted()
	}
	out[len(out)-1] = ']'
	return jsonResponse(http.StatusOK, out)
}

package router

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/octo-run/octo/blocks/fail"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/mcp/stream"
	"github.com/octo-run/octo/runtime"
)

// asker asks the client of a call what the ask blocks of its branch ask (runtime.ClientAsker):
// on 2026-07-28 through the request's rounds, on older revisions as a request over its session.
// A client that cannot answer gets a message that says why, in words the model can act on.
type asker struct {
	rc    *mcp.RequestContext
	what  string          // "tool" or "prompt", for messages
	asked map[string]bool // the keys asked in this call
}

func newAsker(rc *mcp.RequestContext, what string) *asker {
	return &asker{rc: rc, what: what, asked: map[string]bool{}}
}

// Ask implements runtime.ClientAsker. A key asked twice in one call is a mistake of the flow:
// on 2026-07-28 the second question would get the first one's answer.
func (a *asker) Ask(ctx context.Context, key, method string, params any) (json.RawMessage, error) {
	if a.asked[key] {
		return nil, runtime.Errorf(runtime.KindInternal, "this %s asks %q twice in one call: give each ask its own into var", a.what, key)
	}
	a.asked[key] = true
	reply, err := a.rc.Ask(ctx, key, method, params)
	if err == nil || ctx.Err() != nil {
		return reply, err
	}
	var rpcErr *jsonrpc.Error
	switch {
	case errors.Is(err, mcp.ErrInputRequired):
		return nil, runtime.ErrAwaitingClient
	case errors.As(err, &rpcErr) && rpcErr.Code == mcp.CodeMissingCapability:
		e := runtime.Errorf(runtime.KindInvalid, "This %s asks the client (%s), and the client did not declare that it can answer it", a.what, method)
		e.Err = errors.Join(rpcErr, runtime.ErrClientCannotAnswer) // the revision's error: the router answers it (unwanted)
		return nil, e
	case errors.As(err, &rpcErr): // on a stateless older revision, how a client says it cannot
		e := runtime.Errorf(runtime.KindUpstream, "The client answered %s with an error: %s", method, rpcErr.Message)
		e.Err = runtime.ErrClientCannotAnswer
		return nil, e
	case errors.Is(err, session.ErrClientCapability):
		return nil, cannot("This %s asks the client (%s), and the client did not declare that it can answer it", a.what, method)
	case errors.Is(err, stream.ErrNoStream):
		return nil, cannot("This %s asks the client (%s), which needs a client that takes a stream (Accept: text/event-stream), protocol 2026-07-28, or stdio", a.what, method)
	}
	return nil, runtime.Errorf(runtime.KindUpstream, "The client did not answer %s: %v", method, err)
}

// cannot is the failure of a question the client cannot answer at all.
func cannot(format string, args ...any) *runtime.Error {
	e := runtime.Errorf(runtime.KindInvalid, format, args...)
	e.Err = runtime.ErrClientCannotAnswer
	return e
}

// unwanted is the protocol's answer to a branch that stopped for its client or meant to break
// the protocol: input_required (mcp.ErrInputRequired) when it waits for an answer in a new
// round, -32021 when the client did not declare what it asked for on 2026-07-28, a fail
// block's JSON-RPC error when it has a code; nil for any other failure.
func unwanted(err error) error {
	if errors.Is(err, runtime.ErrAwaitingClient) {
		return mcp.ErrInputRequired
	}
	if pe, ok := errors.AsType[*fail.ProtocolError](err); ok {
		return jsonrpc.NewError(pe.Code, "%s", pe.Message)
	}
	if rpcErr, ok := errors.AsType[*jsonrpc.Error](err); ok && rpcErr.Code == mcp.CodeMissingCapability {
		return rpcErr
	}
	return nil
}

var _ runtime.ClientAsker = (*asker)(nil)

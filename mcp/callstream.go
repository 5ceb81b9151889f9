package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/mcp/stream"
)

// This file is the one case where a stateless server answers a POST with a stream: a tools/call
// that asks for what only a stream carries (a progress token, a log level in its _meta, or any
// call of a server that sends logs), from a client that says it takes text/event-stream. Its
// notifications (progress, logs) go out as server-sent events as they happen, then the result,
// and the stream ends (mcp-protocol.md §7.2.2). Every other POST keeps its single JSON answer,
// and pays for this only with a look at its method.

// ContentTypeSSE is the media type of a streamed answer.
const ContentTypeSSE = "text/event-stream"

// streamsCall reports whether a stateless POST holding the request m asks for its answer as a
// stream: a tools/call from a client whose Accept names text/event-stream itself (a wildcard
// such as curl's */* is not taken as asking) that would hear something before its result: its
// params._meta has a progressToken or a log level, or the server sends logs (logs).
func streamsCall(m *jsonrpc.Message, h http.Header, logs bool) bool {
	if m.Method != "tools/call" || !namesSSE(h) {
		return false
	}
	if logs {
		return true
	}
	meta, ok := jsonscan.Member(m.Params, "_meta")
	if !ok {
		return false
	}
	if _, ok = jsonscan.Member(meta, "progressToken"); ok {
		return true
	}
	_, ok = jsonscan.Member(meta, MetaLogLevel)
	return ok
}

// namesSSE reports whether the Accept header lists text/event-stream, without q=0.
func namesSSE(h http.Header) bool {
	for _, v := range h["Accept"] {
		for part := range strings.SplitSeq(v, ",") {
			mt, params, _ := strings.Cut(part, ";")
			if !strings.EqualFold(strings.TrimSpace(mt), ContentTypeSSE) {
				continue
			}
			if q := strings.TrimSpace(params); strings.HasPrefix(q, "q=0") && strings.Trim(q[3:], ".0") == "" {
				return false
			}
			return true
		}
	}
	return false
}

// serveStream answers the request m of a body of size bytes as a stream: the call runs in its
// own goroutine under ctx (the POST's: it ends when the client leaves, or with ShutdownCause
// when the server stops, and the call is then answered so), its notifications are events, and
// its answer the last one. A reader that goes (Close) cancels the call. Logs less severe than
// logLevels[minLevel] are dropped (0 lets every one through).
func (s *Server) serveStream(ctx context.Context, m *jsonrpc.Message, rc RequestContext, size, minLevel int) HTTPResponse {
	ctx, cancel := context.WithCancel(ctx)
	q := stream.New("", cancel)
	// The stream ends by itself once the call is answered; a stopping server cancels ctx.
	q.OnDrain(func(context.Context) {})
	n := &streamNotifier{q: q, minLevel: minLevel, asks: &s.asks}
	rc.Notifier = n
	go func() {
		defer cancel()
		resp := s.Handle(ctx, &m.Request, &rc)
		n.done.Store(true)
		msg := s.answer(&rc, m.ID, resp, size)
		// Never dropped for a slow reader, only once the reader has gone.
		_ = q.Push(context.WithoutCancel(ctx), "message", msg, true)
		q.End()
	}()
	return HTTPResponse{Status: http.StatusOK, ContentType: ContentTypeSSE, Stream: q}
}

// streamNotifier sends a streamed call's notifications as events, until it is answered, and
// on older revisions its questions to the client (Request).
type streamNotifier struct {
	q        *stream.Queue
	done     atomic.Bool
	minLevel int   // the place in logLevels of the least severe log sent
	asks     *asks // the server's, where the client's answers find their question
}

// Request asks the client a question on the call's stream and waits for its answer, which the
// client POSTs as a JSON-RPC response (Server.answerAsk). Its id is random: a stateless server
// knows no session, so the id is what ties the answer to this call, and no other client can
// guess it. The client's capabilities are unknown here (no session kept them): a client that
// cannot answer says so with an error response.
func (n *streamNotifier) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if n.done.Load() {
		return nil, fmt.Errorf("%s: %w", method, stream.ErrNoStream)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encode %s params: %w", method, err)
	}
	id := jsonrpc.StringID("octo-ask-" + rand.Text())
	answer := n.asks.add(id)
	defer n.asks.remove(id)
	if err := n.q.Push(ctx, "message", jsonrpc.AppendRequest(nil, id, method, raw), true); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-answer:
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-ctx.Done():
		cancelled, _ := jsonrpc.EncodeNotification("notifications/cancelled", map[string]any{
			"requestId": id, "reason": "the server stopped waiting"})
		_ = n.q.Push(context.WithoutCancel(ctx), "message", cancelled, false)
		return nil, ctx.Err()
	}
}

// asks are the questions streamed calls of a stateless server wait on, by id.
type asks struct {
	mu      sync.Mutex
	waiting map[jsonrpc.ID]chan *jsonrpc.Message
}

func (a *asks) add(id jsonrpc.ID) chan *jsonrpc.Message {
	ch := make(chan *jsonrpc.Message, 1)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.waiting == nil {
		a.waiting = map[jsonrpc.ID]chan *jsonrpc.Message{}
	}
	a.waiting[id] = ch
	return ch
}

func (a *asks) remove(id jsonrpc.ID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.waiting, id)
}

// answer hands a client's response to the question with its id, and reports whether one
// waited; the first answer is taken, a second one dropped.
func (a *asks) answer(m *jsonrpc.Message) bool {
	a.mu.Lock()
	ch, ok := a.waiting[m.ID]
	delete(a.waiting, m.ID)
	a.mu.Unlock()
	if ok {
		// Copied: the POST's body, which m points into, is not the waiting call's to keep.
		kept := &jsonrpc.Message{Result: bytes.Clone(m.Result)}
		if m.Error != nil {
			kept.Error = &jsonrpc.Error{Code: m.Error.Code, Message: strings.Clone(m.Error.Message)}
		}
		ch <- kept
	}
	return ok
}

// Notify implements Notifier: a notification after the answer is dropped, as progress for a
// finished request must be; one for a reader that went is dropped too.
func (n *streamNotifier) Notify(ctx context.Context, method string, params any) error {
	if n.done.Load() {
		return nil
	}
	if p, ok := params.(logParams); ok && n.minLevel > 0 && slices.Index(logLevels, p.Level) < n.minLevel {
		return nil
	}
	msg, err := jsonrpc.EncodeNotification(method, params)
	if err != nil {
		return err
	}
	if err := n.q.Push(ctx, "message", msg, true); err != nil && err != stream.ErrNoStream {
		return err
	}
	return nil
}

var _ Notifier = (*streamNotifier)(nil)

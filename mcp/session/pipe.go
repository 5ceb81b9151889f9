package session

import (
	"context"
	"sync"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// This file dispatches for the transports where a session has one outbound
// stream for everything (legacy HTTP+SSE and stdio): answers, notifications
// and server→client requests all go to the session's queue, in the order
// they are produced.

// push sends msg on the session's stream, waiting for a slow reader; it is
// dropped only once the reader or the session is gone. A nil msg (an answer
// withheld after a cancel) sends nothing.
func (s *Session) push(msg []byte) {
	if msg != nil {
		_ = sessionOutlet{s}.send(context.Background(), msg, true)
	}
}

// deliver handles one stdio line or legacy SSE POST body. raw is the body
// for the traffic log. A body holding a request or a batch gets exactly one
// call of answer (nil when every answer was withheld); others get none. The
// answers share one budget (MaxResponseBytes).
func (s *Session) deliver(ctx context.Context, msgs []jsonrpc.Message, batch bool, rc mcp.RequestContext, raw []byte, answer func([]byte)) {
	s.st.srv.Budget(&rc, len(raw))
	if !batch {
		s.st.observeMessage(s, DirIn, &msgs[0], raw)
		s.deliverOne(ctx, &msgs[0], rc, answer)
		return
	}
	if err := s.batchRefused(msgs, batch); err != nil {
		answer(jsonrpc.AppendError(nil, jsonrpc.ID{}, err))
		return
	}
	b := &batchAnswer{push: answer}
	for i := range msgs {
		m := &msgs[i]
		s.st.observeMessage(s, DirIn, m, s.rawIfObserved(m))
		if m.Kind == jsonrpc.KindRequest || m.Kind == jsonrpc.KindInvalid {
			b.answers = append(b.answers, nil)
		}
	}
	b.left = len(b.answers) + 1 // +1 until every request has started
	slot := 0
	for i := range msgs {
		m := &msgs[i]
		if m.Kind != jsonrpc.KindRequest && m.Kind != jsonrpc.KindInvalid {
			s.receive(ctx, m, rc)
			continue
		}
		i := slot
		slot++
		if mcp.IsInitialize(m) {
			b.set(i, s.reply(m.ID, m.Method, m.Method, jsonrpc.Response{ID: m.ID, Error: jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
				"Invalid Request: initialize must not be part of a batch")}))
			continue
		}
		s.deliverOne(ctx, m, rc, func(msg []byte) { b.set(i, msg) })
	}
	b.set(-1, nil)
}

// deliverOne answers one message through answer. initialize runs inline, so
// a request read after it already finds the session initialized.
func (s *Session) deliverOne(ctx context.Context, m *jsonrpc.Message, rc mcp.RequestContext, answer func([]byte)) {
	switch {
	case m.Kind == jsonrpc.KindInvalid:
		answer(jsonrpc.AppendError(nil, m.ID, m.Error))
	case mcp.IsInitialize(m):
		answer(s.reply(m.ID, m.Method, m.Method, s.initialize(ctx, m, rc)))
	case m.Kind == jsonrpc.KindRequest && s.transport == TransportStdio && s.st.srv.IsModernMessage(m):
		s.modern.Store(true)
		s.startModern(ctx, m, rc, answer)
	case m.Kind == jsonrpc.KindRequest && s.modern.Load() && !s.answered() && !namesRevision(m):
		// A client of 2026-07-28 sends some requests without _meta (logging/setLevel, which
		// the pipe keeps for it): on a pipe that speaks the revision and never initialized,
		// they are the revision's too.
		rc.Version = mcp.Version20260728
		s.start(ctx, m, rc, sessionOutlet{s}, answer)
	case m.Kind == jsonrpc.KindRequest:
		s.start(ctx, m, rc, sessionOutlet{s}, answer)
	default:
		s.receive(ctx, m, rc)
	}
}

// namesRevision reports whether a request names a protocol revision in its _meta.
func namesRevision(m *jsonrpc.Message) bool {
	meta, _ := jsonscan.Member(m.Params, "_meta")
	_, ok := jsonscan.Member(meta, mcp.MetaProtocolVersion)
	return ok
}

// startModern serves a 2026-07-28 request on a stdio pipe, beside the older revisions (chosen per
// message, as over HTTP): it needs no initialize and takes nothing from the session (its
// revision, capabilities and input rounds are its own), but runs, is cancelled and answered as
// the pipe's other calls are.
func (s *Session) startModern(ctx context.Context, m *jsonrpc.Message, rc mcp.RequestContext, answer func([]byte)) {
	if e := s.st.srv.PrepareModern(m, &rc); e != nil {
		answer(s.reply(m.ID, m.Method, summarize(m.Method, m.Params), jsonrpc.Response{ID: m.ID, Error: e}))
		return
	}
	s.start(ctx, m, rc, sessionOutlet{s}, answer)
}

// batchAnswer gathers the answers of a 2025-03-26 batch into one array,
// pushed when the last request is done (nil when all were withheld).
type batchAnswer struct {
	push    func([]byte)
	mu      sync.Mutex
	answers [][]byte
	left    int
}

func (b *batchAnswer) set(i int, msg []byte) {
	b.mu.Lock()
	if i >= 0 {
		b.answers[i] = msg
	}
	b.left--
	last := b.left == 0
	b.mu.Unlock()
	if !last {
		return
	}
	out := []byte{'['}
	for _, a := range b.answers {
		if a != nil {
			out = append(append(out, a...), ',')
		}
	}
	if len(out) == 1 {
		b.push(nil)
		return
	}
	out[len(out)-1] = ']'
	b.push(out)
}

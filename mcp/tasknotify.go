package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"

	"github.com/octo-run/octo/mcp/stream"
	"github.com/octo-run/octo/mcp/tasks"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
)

// This file is who may see a task, and the task status notifications (notifications/tasks) a
// subscriptions/listen stream asks for with notifications.taskIds.
//
// 2026-07-28 has no session, so a task id is the only key to a task, and the tasks extension
// requires an authorization check on every task request. A task is therefore bound to its
// creator: the subject of the token the flow's jwt-validate accepted (issuer and sub), else the
// request's Authorization header. Only a request with the same identity sees the task; any
// other is answered as for a task that does not exist, so a task id found elsewhere tells
// nothing. A request with neither is bound to "" and sees only the tasks of such requests.

// requester is the identity a task is bound to: a hash, so the store keeps no credential.
func requester(h http.Header, vars map[string]any) string {
	if claims, ok := vars["jwt"].(map[string]any); ok {
		if sub, ok := claims["sub"].(string); ok && sub != "" {
			iss, _ := claims["iss"].(string)
			return identity("jwt", iss, sub)
		}
	}
	if auth := h.Values("Authorization"); len(auth) > 0 {
		return identity(append([]string{"authorization"}, auth...)...)
	}
	return ""
}

// identity hashes parts, each ended by a zero byte so that no two lists hash alike, in hex: an
// owner is text that survives JSON and names a key in a cluster's bucket.
func identity(parts ...string) string {
	d := sha256.New()
	for _, p := range parts {
		d.Write([]byte(p))
		d.Write([]byte{0})
	}
	return hex.EncodeToString(d.Sum(nil))
}

// visible narrows a listen request's taskIds to the live tasks owner may see, each once.
func (s *Server) visible(ctx context.Context, ids []string, owner string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if _, e := s.Tasks.Get(ctx, owner, id); e == nil && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// maxListenTaskIDs bounds a listen request's taskIds: the acknowledgement and the state of each
// task fit in the stream's queue (see snapshot).
const maxListenTaskIDs = stream.MaxEvents - 1

// snapshot sends a new listener the current state of each task it listens to: a change before
// it was registered reached no stream, and a task may have ended before its client listened.
// States larger than the queue's bytes drop the listener, as one that falls behind.
func (s *Server) snapshot(ctx context.Context, l *listener) {
	for _, id := range l.filter.TaskIDs {
		if r, e := s.Tasks.Get(ctx, l.owner, id); e == nil && !l.sendTask(s.encodeTask(r, "", true)) {
			s.listeners.drop(l)
			return
		}
	}
}

// sendTask pushes notifications/tasks for the task r to the listeners that asked for it;
// detail, the task as tasks/get answers it, is encoded only when one did. The store tells each
// change in its order, so the notifications of one task reach every stream in that order.
func (ls *listeners) sendTask(r *tasks.Record, detail func() []byte) {
	ls.mu.Lock()
	var picked []*listener
	for l := range ls.set {
		if l.tasks[r.ID] && l.owner == r.Owner {
			picked = append(picked, l)
		}
	}
	ls.mu.Unlock()
	if len(picked) == 0 {
		return
	}
	b := detail()
	for _, l := range picked {
		if !l.sendTask(b) {
			ls.drop(l)
		}
	}
}

// sendTask queues one notifications/tasks carrying detail for l; false when its stream is full.
func (l *listener) sendTask(detail []byte) bool {
	msg := make([]byte, 0, len(detail)+len(l.id)+128)
	msg = append(msg, `{"jsonrpc":"2.0","method":"notifications/tasks","params":{"_meta":{`...)
	msg = jsonscan.AppendString(msg, MetaSubscriptionID)
	msg = append(msg, ':')
	msg = append(msg, l.id...)
	msg = append(msg, "},"...)
	msg = append(msg, detail[1:]...) // detail is an object with at least taskId
	msg = append(msg, '}')
	return !errors.Is(l.q.Push(context.Background(), "message", msg, false), stream.ErrFull)
}

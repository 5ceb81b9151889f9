package mock

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// notifyWithin bounds how long a completion notification waits for room on a session's
// stream: a client that does not read it must not hold the timer's goroutine.
const notifyWithin = 10 * time.Second

// visits remembers, for a required url elicit step, each session's elicitation: its id and
// when the outside interaction counts as done. A session's entry goes when the session ends
// (looked at whenever a new one comes), so there are never more than the server's sessions.
type visits struct {
	mu        sync.Mutex
	bySession map[string]*visit
}

type visit struct {
	id      string
	readyAt time.Time
	ended   <-chan struct{} // the session's end
	timer   *time.Timer     // sends the completion notification; nil when none is sent
}

func newVisits() *visits { return &visits{bySession: map[string]*visit{}} }

// liveSession is what a required step needs of a stateful session: its capabilities, its end, and
// a way to notify outside any request.
type liveSession interface {
	mcp.Session
	ClientCapabilities() json.RawMessage
	Done() <-chan struct{}
	Notify(ctx context.Context, method string, params any) error
}

// require answers a call whose session has not completed the elicitation with error -32042
// listing it (the same elicitationId until it is done), and lets the call go on once it has.
func (v *visits) require(rc *mcp.RequestContext, p urlParams, u *urlElicit) (*mcp.CallToolResult, error) {
	sess, ok := rc.Session.(liveSession)
	if !ok {
		return errf("This tool needs the user to open a link first, which needs a session"), nil
	}
	if !mcp.DeclaresElicitMode(sess.ClientCapabilities(), mcp.ElicitURL) {
		return errf("This tool needs the user to open a link first (error -32042), and the client did not declare elicitation.url"), nil
	}
	now := time.Now()
	v.mu.Lock()
	defer v.mu.Unlock()
	vis := v.bySession[sess.ID()]
	if vis != nil && !now.Before(vis.readyAt) {
		return nil, nil
	}
	if vis == nil {
		v.forgetEnded()
		vis = &visit{id: newElicitationID(), readyAt: now.Add(u.after), ended: sess.Done()}
		if u.notify {
			id := vis.id
			vis.timer = time.AfterFunc(u.after, func() {
				ctx, cancel := context.WithTimeout(context.Background(), notifyWithin)
				defer cancel()
				_ = sess.Notify(ctx, "notifications/elicitation/complete", completeParams{id})
			})
		}
		v.bySession[sess.ID()] = vis
	}
	p.ElicitationID, p.URL = vis.id, withID(p.URL, vis.id)
	return nil, &jsonrpc.Error{Code: mcp.CodeURLElicitationRequired,
		Message: "This request needs the user to open a link first",
		Data:    map[string]any{"elicitations": []urlParams{p}}}
}

// forgetEnded drops the entries of sessions that have ended.
func (v *visits) forgetEnded() {
	for id, vis := range v.bySession {
		select {
		case <-vis.ended:
			if vis.timer != nil {
				vis.timer.Stop()
			}
			delete(v.bySession, id)
		default:
		}
	}
}

package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/runtime"
)

// Changes is an session.ChangeBus on a topic of the cluster: the list and resource changes of one
// MCP block, shared by its replicas. Start connects it; until then it carries nothing.
type Changes struct {
	ref    *runtime.ClusterRef
	log    *slog.Logger
	origin string // this replica's, so that it never hears its own back

	mu      sync.Mutex
	topic   runtime.ClusterTopic
	release runtime.Release
	stops   []func()
	fns     []func(session.Change)
}

// change is a Change on the wire, with the replica that made it.
type change struct {
	session.Change
	Origin string `json:"origin"`
}

// NewChanges returns the bus of the cluster ref names, not yet connected.
func NewChanges(ref *runtime.ClusterRef, log *slog.Logger) *Changes {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &Changes{ref: ref, log: log, origin: hex.EncodeToString(b[:])}
}

// Start joins the cluster's topic of the block's changes.
func (cs *Changes) Start(ctx context.Context) error {
	c, release, err := cs.ref.Acquire(ctx)
	if err != nil {
		return err
	}
	topic, err := c.Topic(ctx, "changes_"+cs.ref.Scope())
	if err != nil {
		_ = release(context.Background())
		return cs.ref.Fail(err)
	}
	stop, err := topic.Subscribe(cs.heard)
	if err != nil {
		_ = release(context.Background())
		return cs.ref.Fail(err)
	}
	cs.mu.Lock()
	cs.topic, cs.release, cs.stops = topic, release, append(cs.stops, stop)
	cs.mu.Unlock()
	return nil
}

// Close leaves the topic and lets go of the cluster.
func (cs *Changes) Close() {
	cs.mu.Lock()
	stops, release := cs.stops, cs.release
	cs.stops, cs.release, cs.topic, cs.fns = nil, nil, nil, nil
	cs.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
	if release != nil {
		_ = release(context.Background())
	}
}

// Publish implements session.ChangeBus.
func (cs *Changes) Publish(c session.Change) {
	cs.mu.Lock()
	topic := cs.topic
	cs.mu.Unlock()
	if topic == nil {
		return
	}
	b, _ := json.Marshal(change{Change: c, Origin: cs.origin})
	if err := topic.Publish(context.Background(), b); err != nil {
		cs.log.Warn("a change could not be told to the other replicas", "kind", c.Kind, "err", err)
	}
}

// Subscribe implements session.ChangeBus.
func (cs *Changes) Subscribe(fn func(session.Change)) func() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.fns = append(cs.fns, fn)
	n := len(cs.fns) - 1
	return func() {
		cs.mu.Lock()
		defer cs.mu.Unlock()
		if n < len(cs.fns) {
			cs.fns[n] = nil
		}
	}
}

// heard hands another replica's change to the subscribers.
func (cs *Changes) heard(msg []byte) {
	var c change
	if json.Unmarshal(msg, &c) != nil || c.Origin == cs.origin {
		return
	}
	cs.mu.Lock()
	fns := append([]func(session.Change){}, cs.fns...)
	cs.mu.Unlock()
	for _, fn := range fns {
		if fn != nil {
			fn(c.Change)
		}
	}
}

var _ session.ChangeBus = (*Changes)(nil)

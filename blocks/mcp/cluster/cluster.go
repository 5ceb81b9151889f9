// Package cluster keeps an MCP server's tasks in the service's cluster (service.cluster), so
// that the replicas of a service are one server to its clients: a task created on one is read,
// answered and cancelled on any, its status notifications reach a listen stream on any, its
// work is taken by one replica from a queue and, if that replica dies, by another, and the
// limits on tasks count every replica's.
//
// Records live in a bucket of the cluster (runtime.ClusterKV), keyed by owner and task id, so
// a requester reaches only its own tasks; every change is a compare-and-set of the record, and
// each replica watches the bucket to tell its local watchers (a task's work, the listen
// streams). Work is an item of a queue (runtime.ClusterQueue): the tools/call made again as
// the task's (tasks.Work) on the replica that takes it. A task whose replica dies is taken
// again once the queue's wait runs out, so its tool may run twice.
package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/octo-run/octo/mcp/tasks"

	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/runtime"
)

// Tasks is an tasks.Store in a cluster. Start connects it; until then it refuses tasks.
type Tasks struct {
	ref    *runtime.ClusterRef
	limits tasks.Limits
	log    *slog.Logger
	// AckWait is how long a task's work may go without news before another replica takes it:
	// a replica working on it says so three times per wait.
	ackWait     time.Duration
	maxInFlight int
	once        func(tool string) bool // Options.AtMostOnce

	mu       sync.Mutex
	kv       runtime.ClusterKV
	queue    runtime.ClusterQueue
	release  runtime.Release
	stops    []func()
	watchers tasks.Watchers
	index    map[string]entry // every task of the bucket, by key, as the watch told
	owned    map[string]int   // of those, how many each owner has
	closed   bool
}

// entry is what the limits need of a task: whose, since when, and whether it has ended.
type entry struct {
	owner    string
	created  time.Time
	terminal bool
	revision uint64 // the record's last told: a watch started again tells it again
}

// Options tune New.
type Options struct {
	// AckWait is how long a replica may go silent on a task's work before another takes it;
	// 0 means 30s.
	AckWait time.Duration
	// MaxInFlight bounds the tasks one replica runs at once; 0 means 64.
	MaxInFlight int
	// AtMostOnce says whether a tool's task fails when its replica is lost, rather than being
	// taken over and run again; nil for none.
	AtMostOnce func(tool string) bool
}

// New returns a store of the cluster ref names, with limits, not yet connected.
func New(ref *runtime.ClusterRef, limits tasks.Limits, log *slog.Logger, o Options) *Tasks {
	if o.AckWait <= 0 {
		o.AckWait = 30 * time.Second
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 64
	}
	return &Tasks{ref: ref, limits: limits.WithDefaults(), log: log, ackWait: o.AckWait, maxInFlight: o.MaxInFlight,
		once: o.AtMostOnce, watchers: tasks.Watchers{},
		index: map[string]entry{}, owned: map[string]int{}}
}

// Start joins the cluster: the tasks bucket, its watch, and the queue this replica takes the
// work of tasks from, which run makes (mcp.Server.RunWork).
func (ts *Tasks) Start(ctx context.Context, run func(ctx context.Context, w *tasks.Work)) error {
	c, release, err := ts.ref.Acquire(ctx)
	if err != nil {
		return err
	}
	fail := func(err error) error { _ = release(context.Background()); return ts.ref.Fail(err) }
	name := "tasks_" + ts.ref.Scope()
	kv, err := c.KV(ctx, name, ts.limits.TTL)
	if err != nil {
		return fail(err)
	}
	queue, err := c.Queue(ctx, name, ts.ackWait)
	if err != nil {
		return fail(err)
	}
	stopWatch, err := kv.Watch(ctx, ">", ts.told)
	if err != nil {
		return fail(err)
	}
	stopTake, err := queue.Take(ctx, ts.maxInFlight, func(ctx context.Context, item []byte, delivery int) error {
		return ts.work(ctx, item, delivery, run)
	})
	if err != nil {
		stopWatch()
		return fail(err)
	}
	ts.mu.Lock()
	ts.kv, ts.queue, ts.release, ts.stops = kv, queue, release, []func(){stopTake, stopWatch}
	ts.mu.Unlock()
	return nil
}

// Close stops taking work and watching, and lets go of the cluster. The tasks go on: a task
// this replica was working on is taken by another.
func (ts *Tasks) Close() {
	ts.mu.Lock()
	if ts.closed {
		ts.mu.Unlock()
		return
	}
	ts.closed = true
	stops, release := ts.stops, ts.release
	ts.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
	if release != nil {
		_ = release(context.Background())
	}
}

// Limits implements tasks.Store.
func (ts *Tasks) Limits() tasks.Limits { return ts.limits }

// bucket is the connected bucket, or why there is none.
func (ts *Tasks) bucket() (runtime.ClusterKV, *jsonrpc.Error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.kv == nil || ts.closed {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the server is not in its cluster")
	}
	return ts.kv, nil
}

// key is where owner's task id lives: o and the owner (a digest in hex, or nothing for no
// identity), then the id.
func key(owner, id string) string { return "o" + owner + "." + id }

// unavailable is a cluster failure as the client sees it.
func unavailable(err error) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the cluster did not answer: %v", err)
}

// Add implements tasks.Store: the limits are counted over every replica's tasks.
func (ts *Tasks) Add(ctx context.Context, r *tasks.Record) *jsonrpc.Error {
	kv, e := ts.bucket()
	if e != nil {
		return e
	}
	if e := ts.makeRoom(ctx, kv, r.Owner); e != nil {
		return e
	}
	b, _ := json.Marshal(r)
	if _, err := kv.Create(ctx, key(r.Owner, r.ID), b); err != nil {
		return unavailable(err)
	}
	return nil
}

// makeRoom drops the oldest finished task when the owner's or the cluster's places are taken.
// It counts the tasks as this replica's watch of the bucket last told them: a count a moment
// behind a change on another replica, never a listing of the bucket.
func (ts *Tasks) makeRoom(ctx context.Context, kv runtime.ClusterKV, owner string) *jsonrpc.Error {
	ts.mu.Lock()
	mine, all := ts.owned[owner], len(ts.index)
	if mine >= ts.limits.MaxTasksPerOwner || all >= ts.limits.MaxTasks {
		ts.sweep(time.Now())
		mine, all = ts.owned[owner], len(ts.index)
	}
	ts.mu.Unlock()
	if mine >= ts.limits.MaxTasksPerOwner && !ts.dropOldestFinished(ctx, kv, owner, true) {
		return tasks.OwnerFull(ts.limits.MaxTasksPerOwner)
	}
	if all >= ts.limits.MaxTasks && !ts.dropOldestFinished(ctx, kv, owner, false) {
		return tasks.StoreFull(ts.limits.MaxTasks)
	}
	return nil
}

// dropOldestFinished removes the finished task created first (of owner's, when mine), if there
// is one.
func (ts *Tasks) dropOldestFinished(ctx context.Context, kv runtime.ClusterKV, owner string, mine bool) bool {
	ts.mu.Lock()
	oldestKey, oldest := "", time.Time{}
	for k, e := range ts.index {
		if e.terminal && (!mine || e.owner == owner) && (oldestKey == "" || e.created.Before(oldest)) {
			oldestKey, oldest = k, e.created
		}
	}
	ts.mu.Unlock()
	if oldestKey == "" || kv.Delete(ctx, oldestKey) != nil {
		return false
	}
	ts.forget(oldestKey) // at once, not when the watch tells it: the next count must see it
	return true
}

// sweep drops from the index the tasks past their time to live, under ts.mu: the bucket lets
// them go without a word.
func (ts *Tasks) sweep(now time.Time) {
	for k, e := range ts.index {
		if now.Sub(e.created) >= ts.limits.TTL {
			ts.forgetLocked(k)
		}
	}
}

// forget drops key from the index.
func (ts *Tasks) forget(key string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.forgetLocked(key)
}

func (ts *Tasks) forgetLocked(key string) {
	if e, ok := ts.index[key]; ok {
		delete(ts.index, key)
		if ts.owned[e.owner]--; ts.owned[e.owner] <= 0 {
			delete(ts.owned, e.owner)
		}
	}
}

// load reads and decodes the record at k.
func load(ctx context.Context, kv runtime.ClusterKV, k string) (*tasks.Record, uint64, error) {
	b, rev, err := kv.Get(ctx, k)
	if err != nil {
		return nil, 0, err
	}
	var r tasks.Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, 0, err
	}
	return &r, rev, nil
}

// Get implements tasks.Store.
func (ts *Tasks) Get(ctx context.Context, owner, id string) (*tasks.Record, *jsonrpc.Error) {
	kv, e := ts.bucket()
	if e != nil {
		return nil, e
	}
	r, _, e := ts.lookup(ctx, kv, owner, id)
	return r, e
}

// lookup reads owner's task id and its revision: an expired task is failed, so that its work
// stops wherever it runs, then dropped.
func (ts *Tasks) lookup(ctx context.Context, kv runtime.ClusterKV, owner, id string) (*tasks.Record, uint64, *jsonrpc.Error) {
	k := key(owner, id)
	r, rev, err := load(ctx, kv, k)
	switch {
	case errors.Is(err, runtime.ErrClusterNotFound):
		return nil, 0, tasks.NoTask(id)
	case err != nil:
		return nil, 0, unavailable(err)
	case time.Since(r.Created) >= ts.limits.TTL:
		if !r.Terminal() {
			r.Status, r.Message, r.Updated, r.Pending = tasks.Failed, "The task expired", time.Now(), nil
			r.Revision++
			b, _ := json.Marshal(r)
			_, _ = kv.Update(ctx, k, b, rev) // the replica running it hears of it and stops
		}
		_ = kv.Delete(ctx, k)
		return nil, 0, tasks.Expired(id)
	}
	return r, rev, nil
}

// Change implements tasks.Store: a compare-and-set of the record, tried again when another
// replica wrote it meanwhile.
func (ts *Tasks) Change(ctx context.Context, owner, id string, fn func(*tasks.Record) bool) (*tasks.Record, *jsonrpc.Error) {
	kv, e := ts.bucket()
	if e != nil {
		return nil, e
	}
	for range 32 {
		r, rev, e := ts.lookup(ctx, kv, owner, id)
		if e != nil {
			return nil, e
		}
		if !fn(r) {
			return r, nil
		}
		r.Revision++
		b, _ := json.Marshal(r)
		_, err := kv.Update(ctx, key(owner, id), b, rev)
		if errors.Is(err, runtime.ErrClusterConflict) {
			continue
		}
		if errors.Is(err, runtime.ErrClusterTooLarge) && r.Result != nil { // the task fails instead
			r.Result, r.Status, r.Message = nil, tasks.Failed, "The result is too large for the cluster"
			r.Error = jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the task's result is %v", err)
			b, _ = json.Marshal(r)
			_, err = kv.Update(ctx, key(owner, id), b, rev)
			if errors.Is(err, runtime.ErrClusterConflict) {
				continue
			}
		}
		if err != nil {
			return nil, unavailable(err)
		}
		return r, nil
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: task %q changes too often to be changed", id)
}

// Watch implements tasks.Store: the bucket's changes, as this replica sees them.
func (ts *Tasks) Watch(id string, fn func(*tasks.Record)) func() {
	ts.mu.Lock()
	remove := ts.watchers.Add(id, fn)
	ts.mu.Unlock()
	return func() {
		ts.mu.Lock()
		remove()
		ts.mu.Unlock()
	}
}

// told hands one change of the bucket to the watchers of its task: the bucket's watch calls it
// for each write, in order.
func (ts *Tasks) told(k string, value []byte) {
	if value == nil {
		ts.forget(k) // dropped: its watchers heard of it as it ended
		return
	}
	var r tasks.Record
	if json.Unmarshal(value, &r) != nil {
		return
	}
	ts.mu.Lock()
	e, known := ts.index[k]
	if known && r.Revision <= e.revision {
		ts.mu.Unlock()
		return // told already
	}
	if !known {
		ts.owned[r.Owner]++
	}
	ts.index[k] = entry{owner: r.Owner, created: r.Created, terminal: r.Terminal(), revision: r.Revision}
	fns := ts.watchers.Of(&r)
	ts.mu.Unlock()
	for _, fn := range fns {
		fn(r.Clone())
	}
}

// Run implements tasks.Store: the task's work goes to the queue, for whichever replica takes
// it; local, this process's own way to run it, is not used.
func (ts *Tasks) Run(r *tasks.Record, work *tasks.Work, _ func(context.Context)) {
	ts.mu.Lock()
	q := ts.queue
	ts.mu.Unlock()
	b, err := json.Marshal(work)
	if err == nil && q != nil {
		err = q.Put(context.Background(), b)
	}
	if err != nil || q == nil {
		if err == nil {
			err = errors.New("the server is not in its cluster")
		}
		ts.log.Error("a task's work could not be queued", "task", r.ID, "err", err)
		why := "Internal error: the task could not be started"
		if errors.Is(err, runtime.ErrClusterTooLarge) {
			why = fmt.Sprintf("Internal error: the task's work (its arguments and headers) is %v", err)
		}
		_, _ = ts.Change(context.Background(), r.Owner, r.ID, func(t *tasks.Record) bool {
			if t.Terminal() {
				return false
			}
			t.Status, t.Message, t.Updated, t.Pending = tasks.Failed, "The task could not be started", time.Now(), nil
			t.Error = jsonrpc.NewError(jsonrpc.CodeInternalError, "%s", why)
			return true
		})
	}
}

// errStopped hands a task whose work this replica stopped (it is stopping) to another.
var errStopped = errors.New("the replica stopped before the task ended")

// work runs one task's work taken from the queue; delivery counts the times it was taken. A
// task taken again whose tool runs at most once fails; one that ended meanwhile is done with
// (runTask sees it); one whose work stopped because this replica is stopping goes back to the
// queue, for another replica or to be found ended.
func (ts *Tasks) work(ctx context.Context, item []byte, delivery int, run func(ctx context.Context, w *tasks.Work)) error {
	var w tasks.Work
	if err := json.Unmarshal(item, &w); err != nil {
		ts.log.Error("a task's work is not readable; it is dropped", "err", err)
		return nil
	}
	if delivery > 1 && ts.once != nil && ts.once(w.Tool) {
		ts.log.Warn("a task's replica was lost; its tool runs at most once, so the task fails", "task", w.ID, "tool", w.Tool)
		_, e := ts.Change(ctx, w.Owner, w.ID, func(t *tasks.Record) bool {
			if t.Terminal() {
				return false
			}
			t.Status, t.Message, t.Updated, t.Pending = tasks.Failed, "The replica running the task was lost", time.Now(), nil
			t.Error = jsonrpc.NewError(jsonrpc.CodeInternalError,
				"Internal error: the replica running the task was lost, and tool %q runs at most once (atMostOnce)", w.Tool)
			return true
		})
		if e != nil && ctx.Err() != nil {
			return errStopped
		}
		return nil
	}
	if delivery > 1 {
		ts.log.Info("taking over a task whose replica was lost", "task", w.ID, "tool", w.Tool, "delivery", delivery)
	}
	run(ctx, &w)
	if ctx.Err() != nil {
		return errStopped
	}
	return nil
}

// Tasks lists the ids of every live task in the cluster, for tests and tools.
func (ts *Tasks) Tasks(ctx context.Context) ([]string, error) {
	kv, e := ts.bucket()
	if e != nil {
		return nil, e
	}
	keys, err := kv.Keys(ctx, "*.*")
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(keys))
	for _, k := range keys {
		_, id, _ := strings.Cut(k, ".")
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, nil
}

var _ tasks.Store = (*Tasks)(nil)

// Package tasks keeps the tasks of the tasks extension (SEP-2663) of MCP 2026-07-28: a task's
// record (status, questions, answers, result), the work that makes it, and where records are
// kept: this process's memory (NewMemory), or a store a cluster's replicas share behind the same
// interface (Store). A store is bounded: so many tasks at once, each kept for its time to live.
// The protocol (tasks/get, tasks/update, tasks/cancel, running a task's work) is the mcp
// package's.
package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/octo-run/octo/mcp/jsonrpc"
)

// InputRequest is one question a request or task asks the client: an elicitation, a sampling or
// a roots request, under the key its answer comes back by.
type InputRequest struct {
	Key    string          `json:"key"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// Defaults of Limits.
const (
	DefaultMaxTasks         = 1000
	DefaultMaxTasksPerOwner = 100
	DefaultTTL              = 10 * time.Minute
	DefaultPollInterval     = time.Second
	DefaultMaxResultBytes   = 1 << 20
)

// Task statuses.
const (
	Working       = "working"
	InputRequired = "input_required"
	Completed     = "completed"
	Failed        = "failed"
	Cancelled     = "cancelled"
)

// Limits bound a server's tasks; zero fields take the defaults.
type Limits struct {
	// MaxTasks is how many tasks the server keeps at once, running or finished. When all places
	// are taken the oldest finished task is dropped; with none finished a new task is refused.
	MaxTasks int
	// MaxTasksPerOwner is how many of them one owner (a token's subject, an Authorization
	// hash; every requester without an identity counts as one) may hold, so that one client
	// cannot take every place: past it the owner's oldest finished task is dropped, and with
	// none finished the owner's new task is refused, not anyone else's.
	MaxTasksPerOwner int
	// TTL is how long a task is kept from its creation (ttlMs); then it is stopped and dropped.
	TTL time.Duration
	// PollInterval is how often clients are asked to poll (pollIntervalMs).
	PollInterval time.Duration
	// MaxResultBytes caps a task's encoded result; a larger one fails the task with -32603.
	MaxResultBytes int64
}

// WithDefaults is l with its zero fields set to the defaults.
func (l Limits) WithDefaults() Limits {
	if l.MaxTasks <= 0 {
		l.MaxTasks = DefaultMaxTasks
	}
	if l.MaxTasksPerOwner <= 0 {
		l.MaxTasksPerOwner = min(DefaultMaxTasksPerOwner, l.MaxTasks)
	}
	if l.TTL <= 0 {
		l.TTL = DefaultTTL
	}
	if l.PollInterval <= 0 {
		l.PollInterval = DefaultPollInterval
	}
	if l.MaxResultBytes <= 0 {
		l.MaxResultBytes = DefaultMaxResultBytes
	}
	return l
}

// Record is one task as a store keeps it: what tasks/get answers, and what it waits on.
type Record struct {
	ID string `json:"id"`
	// Owner is who may see the task (see requester), "" when the request carried no identity.
	Owner   string    `json:"owner"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	Status  string    `json:"status"`
	Message string    `json:"message,omitempty"`
	// Pending are the questions of an input_required task, Given every answer the client sent.
	Pending []InputRequest             `json:"pending,omitempty"`
	Given   map[string]json.RawMessage `json:"given,omitempty"`
	// Result is a completed task's, Error a failed one's.
	Result json.RawMessage `json:"result,omitempty"`
	Error  *jsonrpc.Error  `json:"error,omitempty"`
	// Revision counts the record's changes: a store sets it (Change), and a watcher that hears
	// of a change it knows is newer than another tells them apart by it.
	Revision uint64 `json:"revision"`
}

// Terminal reports whether the task has ended: completed, failed or cancelled.
func (r *Record) Terminal() bool {
	return r.Status == Completed || r.Status == Failed || r.Status == Cancelled
}

// Clone is a copy of r that shares no map or slice with it.
func (r *Record) Clone() *Record {
	c := *r
	c.Pending = slices.Clone(r.Pending)
	c.Given = maps.Clone(r.Given)
	return &c
}

// Settle ends the task with status and message, unless it has ended already; it reports
// whether it changed.
func (r *Record) Settle(status, message string, now time.Time) bool {
	if r.Terminal() {
		return false
	}
	r.Status, r.Message, r.Updated, r.Pending = status, message, now, nil
	r.Revision++
	return true
}

// Work is what a task's work is made of when another replica may run it: the tools/call to
// make again, as the task's (its questions go to tasks/get, its answers come back with
// tasks/update).
type Work struct {
	ID        string          `json:"id"`
	Owner     string          `json:"owner"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	// Caps are the client's capabilities, Version its revision; Vars and Header are what the
	// flow's blocks before the tool set and read (a token's claims, the Authorization header).
	Caps    json.RawMessage `json:"caps,omitempty"`
	Version string          `json:"version"`
	Vars    map[string]any  `json:"vars,omitempty"`
	Header  http.Header     `json:"header,omitempty"`
}

// Store keeps a server's task records: this process's (NewMemory), or a cluster's. A record
// changes only through Change; every change is told, in its order, to the watchers of the task.
type Store interface {
	// Limits are the store's, defaults set.
	Limits() Limits
	// Add records a new task, making room within the limits (see Limits), or says why it
	// cannot (-32603).
	Add(ctx context.Context, r *Record) *jsonrpc.Error
	// Get returns a copy of the task id that owner may see; another requester's task is
	// answered as one that does not exist, and an expired one says so (-32602).
	Get(ctx context.Context, owner, id string) (*Record, *jsonrpc.Error)
	// Change applies fn to a copy of the task and keeps it when fn reports a change; it returns
	// the task as it is then.
	Change(ctx context.Context, owner, id string, fn func(*Record) bool) (*Record, *jsonrpc.Error)
	// Watch calls fn with each change of the task id ("": every task) from now on, until stop.
	// fn must not change a task itself.
	Watch(id string, fn func(*Record)) (stop func())
	// Run starts the task's work: local in this process, or work for whichever replica takes it.
	Run(r *Record, work *Work, local func(ctx context.Context))
	// Close stops the work the store runs and refuses new tasks.
	Close()
}

// Memory is the store of one process: records in memory, work in its goroutines.
type Memory struct {
	limits Limits
	clock  func() time.Time
	ctx    context.Context // ends on Close: every running work with it
	stop   context.CancelFunc
	wg     sync.WaitGroup
	busy   atomic.Int64 // works running

	mu       sync.Mutex
	byID     map[string]*Record
	closed   bool
	watchers Watchers
	dispatch sync.Mutex // held from a change to the end of its telling
}

// watcher is one Watch.
type watcher struct{ fn func(*Record) }

// Watchers are a store's watchers, by task id ("" for every task). They are not safe on
// their own: a store holds its lock around each use.
type Watchers map[string]map[*watcher]struct{}

// Add watches id with fn until remove, which the caller calls under the same lock.
func (ws Watchers) Add(id string, fn func(*Record)) (remove func()) {
	w := &watcher{fn: fn}
	if ws[id] == nil {
		ws[id] = map[*watcher]struct{}{}
	}
	ws[id][w] = struct{}{}
	return func() {
		delete(ws[id], w)
		if len(ws[id]) == 0 {
			delete(ws, id)
		}
	}
}

// Of returns the watchers a change of r is told to: its own, then those of every task.
func (ws Watchers) Of(r *Record) []func(*Record) {
	var fns []func(*Record)
	for _, id := range []string{r.ID, ""} {
		for w := range ws[id] {
			fns = append(fns, w.fn)
		}
	}
	return fns
}

// NewMemory returns an empty store with the given limits.
func NewMemory(l Limits) *Memory {
	ctx, stop := context.WithCancel(context.Background())
	return &Memory{limits: l.WithDefaults(), ctx: ctx, stop: stop, clock: time.Now, byID: map[string]*Record{},
		watchers: Watchers{}}
}

// Limits implements Store.
func (ts *Memory) Limits() Limits { return ts.limits }

// Close cancels every task, refuses new ones and waits for the running ones to end. It is safe
// to call more than once.
func (ts *Memory) Close() {
	ts.mu.Lock()
	ts.closed = true
	var told []*Record
	for _, r := range ts.byID {
		if r.Settle(Cancelled, "The server stopped", ts.clock()) {
			told = append(told, r.Clone())
		}
	}
	ts.tell(told) // unlocks
	ts.stop()
	ts.wg.Wait()
}

// Len returns how many tasks the store holds.
func (ts *Memory) Len() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.byID)
}

// tell hands the changes to their watchers, in order: it takes the dispatch lock before it
// lets go of the store's, which the caller holds, so that a later change is told after.
func (ts *Memory) tell(changes []*Record) {
	if len(changes) == 0 {
		ts.mu.Unlock()
		return
	}
	type call struct {
		fn func(*Record)
		r  *Record
	}
	var calls []call
	for _, r := range changes {
		for _, fn := range ts.watchers.Of(r) {
			calls = append(calls, call{fn, r})
		}
	}
	ts.dispatch.Lock()
	ts.mu.Unlock()
	defer ts.dispatch.Unlock()
	for _, c := range calls {
		c.fn(c.r)
	}
}

// Watch implements Store.
func (ts *Memory) Watch(id string, fn func(*Record)) (stop func()) {
	ts.mu.Lock()
	remove := ts.watchers.Add(id, fn)
	ts.mu.Unlock()
	return func() {
		ts.mu.Lock()
		remove()
		ts.mu.Unlock()
	}
}

// Add implements Store.
func (ts *Memory) Add(_ context.Context, r *Record) *jsonrpc.Error {
	ts.mu.Lock()
	if ts.closed {
		ts.mu.Unlock()
		return jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the server is shutting down")
	}
	told := ts.sweep(ts.clock())
	if e := ts.makeRoom(r.Owner); e != nil {
		ts.tell(told)
		return e
	}
	ts.byID[r.ID] = r.Clone()
	ts.tell(told)
	return nil
}

// makeRoom drops the oldest finished task when the owner's or the store's places are taken, or
// says that none can be dropped.
func (ts *Memory) makeRoom(owner string) *jsonrpc.Error {
	if ts.owned(owner) >= ts.limits.MaxTasksPerOwner && !ts.dropOldestFinished(owner, true) {
		return OwnerFull(ts.limits.MaxTasksPerOwner)
	}
	if len(ts.byID) >= ts.limits.MaxTasks && !ts.dropOldestFinished("", false) {
		return StoreFull(ts.limits.MaxTasks)
	}
	return nil
}

// OwnerFull and StoreFull are why a store refuses a new task: its requester, or the store, holds
// all the tasks it may.
func OwnerFull(max int) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Data: map[string]any{"maxTasksPerOwner": max},
		Message: fmt.Sprintf("Internal error: you already run %d tasks, the limit for one requester (maxTasksPerOwner); cancel one or wait for one to finish", max)}
}

func StoreFull(max int) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Data: map[string]any{"maxTasks": max},
		Message: fmt.Sprintf("Internal error: the server already runs %d tasks, its limit (maxTasks); cancel one or try again later", max)}
}

// sweep drops the tasks whose time to live is over, failing those still running; it returns
// the changes to tell.
func (ts *Memory) sweep(now time.Time) []*Record {
	var told []*Record
	for id, r := range ts.byID {
		if now.Sub(r.Created) >= ts.limits.TTL {
			if r.Settle(Failed, "The task expired", now) {
				told = append(told, r.Clone())
			}
			delete(ts.byID, id)
		}
	}
	return told
}

// owned counts owner's tasks, running or finished.
func (ts *Memory) owned(owner string) int {
	n := 0
	for _, r := range ts.byID {
		if r.Owner == owner {
			n++
		}
	}
	return n
}

// dropOldestFinished drops the finished task created first (of owner's, when mine), if there
// is one.
func (ts *Memory) dropOldestFinished(owner string, mine bool) bool {
	var oldest *Record
	for _, r := range ts.byID {
		if r.Terminal() && (!mine || r.Owner == owner) && (oldest == nil || r.Created.Before(oldest.Created)) {
			oldest = r
		}
	}
	if oldest != nil {
		delete(ts.byID, oldest.ID)
	}
	return oldest != nil
}

// lookup returns the live task id that owner may see, under the store's lock, or -32602, and
// the change an expiry made.
func (ts *Memory) lookup(owner, id string) (*Record, []*Record, *jsonrpc.Error) {
	now := ts.clock()
	r := ts.byID[id]
	if r != nil && r.Owner != owner {
		r = nil
	}
	if r != nil && now.Sub(r.Created) >= ts.limits.TTL {
		var told []*Record
		if r.Settle(Failed, "The task expired", now) {
			told = append(told, r.Clone())
		}
		delete(ts.byID, id)
		return nil, told, Expired(id)
	}
	if r == nil {
		return nil, nil, NoTask(id)
	}
	return r, nil, nil
}

// Expired and NoTask are the answers for a task that has expired, or that the requester has
// not (-32602).
func Expired(id string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: Failed to retrieve task: task %q has expired", id)
}

func NoTask(id string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: Failed to retrieve task: no task %q", id)
}

// Get implements Store.
func (ts *Memory) Get(_ context.Context, owner, id string) (*Record, *jsonrpc.Error) {
	ts.mu.Lock()
	r, told, e := ts.lookup(owner, id)
	if e != nil {
		ts.tell(told)
		return nil, e
	}
	c := r.Clone()
	ts.mu.Unlock()
	return c, nil
}

// Change implements Store.
func (ts *Memory) Change(_ context.Context, owner, id string, fn func(*Record) bool) (*Record, *jsonrpc.Error) {
	ts.mu.Lock()
	r, told, e := ts.lookup(owner, id)
	if e != nil {
		ts.tell(told)
		return nil, e
	}
	c := r.Clone()
	if !fn(c) {
		ts.mu.Unlock()
		return c, nil
	}
	c.Revision = r.Revision + 1
	ts.byID[id] = c
	ts.tell([]*Record{c.Clone()})
	return c, nil
}

// Run implements Store: the work runs here, until it returns or the store closes.
func (ts *Memory) Run(_ *Record, _ *Work, local func(ctx context.Context)) {
	ts.wg.Add(1)
	ts.busy.Add(1)
	go func() {
		defer ts.wg.Done()
		defer ts.busy.Add(-1)
		local(ts.ctx)
	}()
}

// Running counts the works running.
func (ts *Memory) Running() int64 { return ts.busy.Load() }

// Now is the store's clock, for the times of the records a server makes.
func (ts *Memory) Now() time.Time { return ts.clock() }

// SetClock makes now the store's clock, for a test that moves time on.
func (ts *Memory) SetClock(now func() time.Time) { ts.clock = now }

var _ Store = (*Memory)(nil)

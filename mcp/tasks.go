package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// This file holds the tasks extension (SEP-2663, io.modelcontextprotocol/tasks) of 2026-07-28:
// a tools/call may be answered with a task handle while the call goes on in the background; the
// client polls tasks/get for its status and its result, answers the task's questions with
// tasks/update and stops it with tasks/cancel. The store is bounded: so many tasks at once, each
// kept for its time to live, each result at most so large.

// ExtensionTasks is the tasks extension's identifier, in server/discover's
// capabilities.extensions and in a request's client capabilities.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// Defaults of TaskLimits.
const (
	DefaultMaxTasks           = 1000
	DefaultMaxTasksPerOwner   = 100
	DefaultTaskTTL            = 10 * time.Minute
	DefaultTaskPollInterval   = time.Second
	DefaultMaxTaskResultBytes = 1 << 20
)

// Task statuses.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// TaskLimits bound a server's tasks; zero fields take the defaults.
type TaskLimits struct {
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

func (l TaskLimits) withDefaults() TaskLimits {
	if l.MaxTasks <= 0 {
		l.MaxTasks = DefaultMaxTasks
	}
	if l.MaxTasksPerOwner <= 0 {
		l.MaxTasksPerOwner = min(DefaultMaxTasksPerOwner, l.MaxTasks)
	}
	if l.TTL <= 0 {
		l.TTL = DefaultTaskTTL
	}
	if l.PollInterval <= 0 {
		l.PollInterval = DefaultTaskPollInterval
	}
	if l.MaxResultBytes <= 0 {
		l.MaxResultBytes = DefaultMaxTaskResultBytes
	}
	return l
}

// Tasks is a server's task store (Server.Tasks). Its tasks run under a context of its own,
// not their request's: Close stops them all and waits for them.
type Tasks struct {
	limits TaskLimits
	ctx    context.Context
	stop   context.CancelFunc
	clock  func() time.Time
	wg     sync.WaitGroup

	mu     sync.Mutex
	byID   map[string]*task
	closed bool
	ls     *listeners // the listen streams told of status changes (notifications/tasks); set by NewStateful
}

// NewTasks returns an empty store with the given limits.
func NewTasks(l TaskLimits) *Tasks {
	ctx, stop := context.WithCancel(context.Background())
	return &Tasks{limits: l.withDefaults(), ctx: ctx, stop: stop, clock: time.Now, byID: map[string]*task{}}
}

// Close cancels every task, refuses new ones and waits for the running ones to end. It is safe
// to call more than once, and on a nil store.
func (ts *Tasks) Close() {
	if ts == nil {
		return
	}
	ts.mu.Lock()
	ts.closed = true
	for _, t := range ts.byID {
		ts.settle(t, TaskCancelled, "The server stopped")
	}
	ts.mu.Unlock()
	ts.stop()
	ts.wg.Wait()
}

// Len returns how many tasks the store holds.
func (ts *Tasks) Len() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.byID)
}

// task is one task; its fields are guarded by the store's mutex.
type task struct {
	id               string
	owner            string // who may see the task (see requester); "" when the request carried no identity
	created, updated time.Time
	status, message  string
	cancel           context.CancelFunc

	pending []inputRequest             // the questions of an input_required task
	given   map[string]json.RawMessage // every answer the client sent
	wake    chan struct{}              // closed when the last pending question is answered
	result  json.RawMessage            // a completed task's result
	err     *jsonrpc.Error             // a failed task's error
}

func (t *task) terminal() bool {
	return t.status == TaskCompleted || t.status == TaskFailed || t.status == TaskCancelled
}

// settle ends a task that has not ended yet, under the store's lock; its work, if still
// running, is cancelled, and its listeners are told.
func (ts *Tasks) settle(t *task, status, message string) {
	if t.terminal() {
		return
	}
	t.status, t.message, t.updated, t.pending = status, message, ts.clock(), nil
	t.cancel()
	ts.changed(t)
}

// add makes room for and records a new working task. Its context keeps the values of the
// request's (parent) but not its end: it ends when the task is cancelled or expires, or the
// store closes; release, once the task's work is over, lets go of the store's hold on it.
// Only owner may see the task afterwards.
func (ts *Tasks) add(parent context.Context, owner string) (t *task, ctx context.Context, release func() bool, e *jsonrpc.Error) {
	id, err := newTaskID()
	if err != nil {
		return nil, nil, nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: no randomness for a task id")
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.closed {
		return nil, nil, nil, errShuttingDown
	}
	now := ts.clock()
	ts.sweep(now)
	if ts.owned(owner) >= ts.limits.MaxTasksPerOwner && !ts.dropOldestFinished(owner, true) {
		return nil, nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Data: map[string]any{"maxTasksPerOwner": ts.limits.MaxTasksPerOwner},
			Message: fmt.Sprintf("Internal error: you already run %d tasks, the limit for one requester (maxTasksPerOwner); cancel one or wait for one to finish", ts.limits.MaxTasksPerOwner)}
	}
	if len(ts.byID) >= ts.limits.MaxTasks && !ts.dropOldestFinished("", false) {
		return nil, nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Data: map[string]any{"maxTasks": ts.limits.MaxTasks},
			Message: fmt.Sprintf("Internal error: the server already runs %d tasks, its limit (maxTasks); cancel one or try again later", ts.limits.MaxTasks)}
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	release = context.AfterFunc(ts.ctx, cancel)
	t = &task{id: id, owner: owner, created: now, updated: now, status: TaskWorking, cancel: cancel, given: map[string]json.RawMessage{}}
	ts.byID[id] = t
	return t, ctx, release, nil
}

// sweep drops the tasks whose time to live is over, stopping those still running.
func (ts *Tasks) sweep(now time.Time) {
	for id, t := range ts.byID {
		if now.Sub(t.created) >= ts.limits.TTL {
			ts.settle(t, TaskFailed, "The task expired")
			delete(ts.byID, id)
		}
	}
}

// owned counts owner's tasks, running or finished.
func (ts *Tasks) owned(owner string) int {
	n := 0
	for _, t := range ts.byID {
		if t.owner == owner {
			n++
		}
	}
	return n
}

// dropOldestFinished drops the finished task created first (of owner's, when mine), if there
// is one.
func (ts *Tasks) dropOldestFinished(owner string, mine bool) bool {
	var oldest *task
	for _, t := range ts.byID {
		if t.terminal() && (!mine || t.owner == owner) && (oldest == nil || t.created.Before(oldest.created)) {
			oldest = t
		}
	}
	if oldest != nil {
		delete(ts.byID, oldest.id)
	}
	return oldest != nil
}

// lookup returns the live task with id that owner may see, under the store's lock, or -32602.
// Another requester's task is answered exactly as a task that does not exist.
func (ts *Tasks) lookup(id, owner string) (*task, *jsonrpc.Error) {
	now := ts.clock()
	t := ts.byID[id]
	if t != nil && t.owner != owner {
		t = nil
	}
	if t != nil && now.Sub(t.created) >= ts.limits.TTL {
		ts.settle(t, TaskFailed, "The task expired")
		delete(ts.byID, id)
		return nil, invalidParams("Failed to retrieve task: task %q has expired", id)
	}
	if t == nil {
		return nil, invalidParams("Failed to retrieve task: no task %q", id)
	}
	return t, nil
}

func newTaskID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// get encodes the task with id as tasks/get answers it (DetailedTask, before resultType).
func (ts *Tasks) get(id, owner string) (json.RawMessage, *jsonrpc.Error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, e := ts.lookup(id, owner)
	if e != nil {
		return nil, e
	}
	return ts.encode(t, "", true), nil
}

// update records the client's answers to a task's questions; answers to questions the task
// does not wait for are ignored. The task goes on once every question is answered.
func (ts *Tasks) update(id, owner string, answers map[string]json.RawMessage) *jsonrpc.Error {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, e := ts.lookup(id, owner)
	if e != nil || t.status != TaskInputRequired {
		return e
	}
	left := t.pending[:0]
	for _, q := range t.pending {
		if a, ok := answers[q.key]; ok {
			t.given[q.key] = a
		} else {
			left = append(left, q)
		}
	}
	answered := len(left) < len(t.pending)
	t.pending = left
	if len(left) == 0 {
		t.status, t.updated = TaskWorking, ts.clock()
		close(t.wake)
	}
	if answered {
		ts.changed(t) // the questions left, or working again
	}
	return nil
}

// cancel stops the task with id; a finished task stays as it is.
func (ts *Tasks) cancel(id, owner string) *jsonrpc.Error {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, e := ts.lookup(id, owner)
	if e != nil {
		return e
	}
	ts.settle(t, TaskCancelled, "Cancelled by the client")
	return nil
}

// waitInput parks the task on its questions until they are all answered (true) or the task
// ends (false).
func (ts *Tasks) waitInput(ctx context.Context, t *task, asked []inputRequest) bool {
	ts.mu.Lock()
	if t.terminal() {
		ts.mu.Unlock()
		return false
	}
	wake := make(chan struct{})
	t.status, t.updated, t.pending, t.wake = TaskInputRequired, ts.clock(), asked, wake
	ts.changed(t)
	ts.mu.Unlock()
	select {
	case <-wake:
		return true
	case <-ctx.Done():
		return false
	}
}

// answers returns a copy of the answers the task has been given.
func (ts *Tasks) answers(t *task) map[string]json.RawMessage {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return maps.Clone(t.given)
}

// finish records how the task's work ended, unless the task already has (cancelled, expired).
func (ts *Tasks) finish(t *task, result json.RawMessage, e *jsonrpc.Error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if t.terminal() {
		return
	}
	switch { // the result or error first: settle tells the listeners the whole task
	case e != nil:
		t.err = e
		ts.settle(t, TaskFailed, e.Message)
	case int64(len(result)) > ts.limits.MaxResultBytes:
		t.err = jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the task's result of %d bytes is over the limit of %d (maxResultBytes)",
			len(result), ts.limits.MaxResultBytes)
		ts.settle(t, TaskFailed, "The result is too large")
	default:
		t.result = result
		ts.settle(t, TaskCompleted, "")
	}
}

// taskTime is how createdAt and lastUpdatedAt are written: ISO 8601 in UTC, to the millisecond.
const taskTime = "2006-01-02T15:04:05.000Z"

// encode writes a task: resultType (when not ""), the Task fields and, detailed, what its
// status carries (inputRequests, result or error). Called under the store's lock.
func (ts *Tasks) encode(t *task, resultType string, detailed bool) json.RawMessage {
	out := make([]byte, 0, 256+len(t.result))
	out = append(out, '{')
	if resultType != "" {
		out = append(out, `"resultType":`...)
		out = jsonscan.AppendString(out, resultType)
		out = append(out, ',')
	}
	out = append(out, `"taskId":`...)
	out = jsonscan.AppendString(out, t.id)
	out = append(out, `,"status":`...)
	out = jsonscan.AppendString(out, t.status)
	if t.message != "" {
		out = append(out, `,"statusMessage":`...)
		out = jsonscan.AppendString(out, t.message)
	}
	out = append(out, `,"createdAt":"`...)
	out = t.created.UTC().AppendFormat(out, taskTime)
	out = append(out, `","lastUpdatedAt":"`...)
	out = t.updated.UTC().AppendFormat(out, taskTime)
	out = fmt.Appendf(out, `","ttlMs":%d,"pollIntervalMs":%d`, ts.limits.TTL.Milliseconds(), ts.limits.PollInterval.Milliseconds())
	if detailed {
		out = t.appendDetail(out)
	}
	return append(out, '}')
}

func (t *task) appendDetail(out []byte) []byte {
	switch {
	case t.status == TaskInputRequired:
		out = append(out, `,"inputRequests":`...)
		out = appendInputRequests(out, t.pending)
	case t.status == TaskCompleted:
		out = append(out, `,"result":`...)
		out = append(out, t.result...)
	case t.status == TaskFailed && t.err != nil:
		b, err := json.Marshal(t.err)
		if err != nil {
			b = []byte(`{"code":-32603,"message":"Internal error"}`)
		}
		out = append(out, `,"error":`...)
		out = append(out, b...)
	}
	return out
}

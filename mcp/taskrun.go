package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"strings"
	"time"

	"github.com/octo-run/octo/mcp/tasks"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// This file connects the task store to requests: a provider runs the rest of a tools/call as
// a task (RunTask), and the server answers tasks/get, tasks/update and tasks/cancel.

// TaskFunc is the part of a tools/call that may run as a task. Run as a task, its context ends
// when the task is cancelled, expires or the server stops; it has no notifier (progress and
// logs are not sent for tasks), and its questions (RequestContext.Ask) reach the client through
// tasks/get: the task waits for the answers (tasks/update), then the function runs again with
// them, as a multi-round-trip request would.
type TaskFunc func(ctx context.Context, rc *RequestContext) (*CallToolResult, error)

// RunTask runs run as a task when the call may become one: a 2026-07-28 tools/call from a client
// that declared the tasks extension, on a server that keeps tasks (Server.Tasks). The call is
// then answered with the task's handle (CreateTaskResult) as soon as the task is recorded.
// Otherwise run runs in the call and RunTask returns what it returns.
func (rc *RequestContext) RunTask(ctx context.Context, run TaskFunc) (*CallToolResult, error) {
	if !rc.BecomesTask() {
		return run(ctx, rc)
	}
	created, e := rc.rounds.srv.startTask(ctx, rc, run)
	if e != nil {
		return nil, e
	}
	return nil, &taskCreated{created}
}

// BecomesTask reports whether RunTask runs its function as a task: the call is a 2026-07-28
// tools/call from a client that declared the tasks extension, on a server that keeps tasks.
func (rc *RequestContext) BecomesTask() bool {
	t := rc.taskRounds()
	return t != nil && declaresTasks(t.caps)
}

// RequireTask is the check of a tool that only runs as a task: -32021 naming the tasks
// extension when the call is a 2026-07-28 tools/call on a server that keeps tasks and the
// client did not declare the extension; nil otherwise (older revisions run it in the call).
func (rc *RequestContext) RequireTask() error {
	if t := rc.taskRounds(); t != nil && !declaresTasks(t.caps) {
		return missingTasks("this tool runs only as a task")
	}
	return nil
}

// taskRounds returns the rounds of a 2026-07-28 tools/call on a server that keeps tasks, or nil.
func (rc *RequestContext) taskRounds() *inputRounds {
	if rc == nil || rc.rounds == nil || rc.rounds.srv == nil || rc.rounds.srv.Tasks == nil ||
		!strings.HasPrefix(rc.rounds.target, "tools/call\x00") || rc.rounds.inTask {
		return nil
	}
	return rc.rounds
}

// declaresTasks reports whether client capabilities name the tasks extension.
func declaresTasks(caps []byte) bool {
	ext, ok := jsonscan.Member(caps, "extensions")
	if !ok || ext[0] != '{' {
		return false
	}
	v, ok := jsonscan.Member(ext, ExtensionTasks)
	return ok && v[0] == '{'
}

func missingTasks(why string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: CodeMissingCapability, Message: "Missing required client capability: extensions." + ExtensionTasks + " (" + why + ")",
		Data: map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{ExtensionTasks: struct{}{}}}}}
}

// taskCreated is how RunTask tells the core that the call became a task: its CreateTaskResult.
type taskCreated struct{ result json.RawMessage }

func (*taskCreated) Error() string { return "the call continues as a task" }

// now is the time of the task store's records.
func (s *Server) now() time.Time {
	if c, ok := s.Tasks.(interface{ Now() time.Time }); ok {
		return c.Now()
	}
	return time.Now()
}

// startTask records a task for the call rc serves and has the store run it: run itself in this
// process, under a context with the values of the call's (ctx) that outlives the call, or the
// call made again as the task's on whichever replica takes its work.
func (s *Server) startTask(ctx context.Context, rc *RequestContext, run TaskFunc) (json.RawMessage, *jsonrpc.Error) {
	id, err := newTaskID()
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: no randomness for a task id")
	}
	seed := rc.rounds
	_, name, _ := strings.Cut(seed.target, "\x00")
	now := s.now()
	rec := &tasks.Record{ID: id, Owner: requester(rc.Header, rc.Vars), Created: now, Updated: now, Status: tasks.Working,
		Given: maps.Clone(seed.given)} // the answers of the multi-round-trip rounds before the task
	if e := s.Tasks.Add(ctx, rec); e != nil {
		return nil, e
	}
	work := &tasks.Work{ID: id, Owner: rec.Owner, Tool: name, Arguments: seed.args, Caps: seed.caps, Version: rc.Version,
		Vars: rc.Vars, Header: rc.Header}
	trc := RequestContext{Vars: rc.Vars, Caller: rc.Caller, Header: rc.Header, Version: rc.Version, RequestID: rc.RequestID}
	if seed.detach != nil && trc.Caller != nil {
		trc.Caller = seed.detach(trc.Caller)
	}
	values := context.WithoutCancel(ctx)
	s.Tasks.Run(rec, work, func(storeCtx context.Context) {
		s.runTask(values, storeCtx, rec.Owner, id, name, seed.caps, seed.target, &trc, run)
	})
	return s.encodeTask(rec, "task", false), nil
}

// RunWork runs a task's work that another replica recorded (tasks.Store.Run of a cluster): the
// tools/call made again as the task's, so that the provider runs it in the call.
func (s *Server) RunWork(ctx context.Context, w *tasks.Work) {
	if s.Tools == nil {
		return
	}
	rc := &RequestContext{Vars: w.Vars, Header: w.Header, Version: w.Version}
	target := "tools/call\x00" + w.Tool
	run := func(ctx context.Context, rc *RequestContext) (*CallToolResult, error) {
		return s.Tools.CallTool(ctx, rc, w.Tool, w.Arguments)
	}
	s.runTask(ctx, ctx, w.Owner, w.ID, w.Tool, w.Caps, target, rc, run)
}

// runTask runs a task's work, once per round of questions, and records how it ended. It stops
// when the task ends otherwise (cancelled, expired) or stop does.
func (s *Server) runTask(values, stop context.Context, owner, id, name string, caps []byte, target string, rc *RequestContext, run TaskFunc) {
	ctx, cancel := context.WithCancel(values)
	defer cancel()
	defer context.AfterFunc(stop, cancel)()
	updates := make(chan *tasks.Record, 1) // the latest change, a newer one replacing it
	defer s.Tasks.Watch(id, func(r *tasks.Record) {
		if r.Terminal() {
			cancel()
		}
		for {
			select {
			case updates <- r:
				return
			default:
				select {
				case <-updates:
				default:
				}
			}
		}
	})()
	for {
		rec, e := s.Tasks.Get(ctx, owner, id)
		if e != nil || rec.Terminal() {
			return
		}
		rounds := &inputRounds{caps: caps, target: target, srv: s, inTask: true, given: rec.Given, used: map[string]json.RawMessage{}}
		if rounds.given == nil {
			rounds.given = map[string]json.RawMessage{}
		}
		rc.rounds = rounds
		res, err := s.safeRun(ctx, rc, run)
		if stop.Err() != nil {
			return // the store stopped the work; it ends the task or has another replica do it
		}
		if errors.Is(err, ErrInputRequired) && len(rounds.asked) > 0 {
			if !s.waitInput(ctx, owner, id, rounds.asked, updates) {
				return
			}
			continue
		}
		if err != nil {
			s.finish(ctx, owner, id, nil, toError(err))
			return
		}
		b, err := s.toolAnswer(name, res, rc)
		var te *jsonrpc.Error
		if err != nil {
			te = toError(err)
		}
		s.finish(ctx, owner, id, b, te)
		return
	}
}

// waitInput parks the task on its questions until they are all answered (true) or the task
// ends (false); updates are its changes, as runTask watches them.
func (s *Server) waitInput(ctx context.Context, owner, id string, asked []tasks.InputRequest, updates <-chan *tasks.Record) bool {
	rec, e := s.Tasks.Change(ctx, owner, id, func(r *tasks.Record) bool {
		if r.Terminal() {
			return false
		}
		r.Status, r.Updated, r.Pending = tasks.InputRequired, s.now(), asked
		return true
	})
	if e != nil || rec.Terminal() {
		return false
	}
	for {
		select {
		case r := <-updates:
			switch {
			case r.Revision <= rec.Revision: // a change before the questions: told late
			case r.Terminal():
				return false
			case r.Status == tasks.Working:
				return true
			}
		case <-ctx.Done():
			return false
		}
	}
}

// finish records how the task's work ended, unless the task already has (cancelled, expired).
func (s *Server) finish(ctx context.Context, owner, id string, result json.RawMessage, e *jsonrpc.Error) {
	limit := s.Tasks.Limits().MaxResultBytes
	_, _ = s.Tasks.Change(context.WithoutCancel(ctx), owner, id, func(r *tasks.Record) bool {
		now := s.now()
		switch { // the result or error with the status: the listeners hear the whole task
		case r.Terminal():
			return false
		case e != nil:
			r.Error = e
			return r.Settle(tasks.Failed, e.Message, now)
		case int64(len(result)) > limit:
			r.Error = jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the task's result of %d bytes is over the limit of %d (maxResultBytes)",
				len(result), limit)
			return r.Settle(tasks.Failed, "The result is too large", now)
		default:
			r.Result = result
			return r.Settle(tasks.Completed, "", now)
		}
	})
}

// safeRun runs a task's work; a panic is a failed task (-32603), never a crash.
func (s *Server) safeRun(ctx context.Context, rc *RequestContext, run TaskFunc) (res *CallToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			if s.OnPanic != nil {
				s.OnPanic("tools/call (task)", v, debug.Stack())
			}
			res, err = nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the task's work failed")
		}
	}()
	return run(ctx, rc)
}

// taskMethods are the tasks extension's methods.
var taskMethods = map[string]bool{"tasks/get": true, "tasks/update": true, "tasks/cancel": true}

// serveTaskMethod answers tasks/get, tasks/update and tasks/cancel: methods of 2026-07-28 on a
// server that keeps tasks, for clients that declared the extension.
func (s *Server) serveTaskMethod(ctx context.Context, req *jsonrpc.Request, rc *RequestContext) (json.RawMessage, error) {
	if s.Tasks == nil || rc.Version != Version20260728 {
		return nil, methodNotFound(req.Method)
	}
	if rc.rounds == nil || !declaresTasks(rc.rounds.caps) {
		return nil, missingTasks(req.Method + " belongs to the tasks extension")
	}
	raw, _ := jsonscan.Member(req.Params, "taskId")
	id, ok := jsonscan.Unquote(raw)
	if !ok {
		return nil, invalidParams("taskId must be a string, got %s", jsonscan.Kind(raw))
	}
	owner := requester(rc.Header, rc.Vars)
	switch req.Method {
	case "tasks/get":
		r, e := s.Tasks.Get(ctx, owner, id)
		if e != nil {
			return nil, e
		}
		return s.encodeTask(r, "", true), nil
	case "tasks/cancel":
		if _, e := s.Tasks.Change(ctx, owner, id, func(r *tasks.Record) bool { return r.Settle(tasks.Cancelled, "Cancelled by the client", s.now()) }); e != nil {
			return nil, e
		}
		return jsonrpc.EmptyObject, nil
	}
	answers, perr := taskAnswers(req.Params)
	if perr != nil {
		return nil, perr
	}
	if _, e := s.Tasks.Change(ctx, owner, id, func(r *tasks.Record) bool { return answer(r, answers, s.now()) }); e != nil {
		return nil, e
	}
	return jsonrpc.EmptyObject, nil
}

// answer records the client's answers to an input_required task's questions; answers to
// questions the task does not wait for are ignored. The task goes on once every question is
// answered. It reports whether the task changed.
func answer(r *tasks.Record, answers map[string]json.RawMessage, now time.Time) bool {
	if r.Status != tasks.InputRequired {
		return false
	}
	left := r.Pending[:0:0]
	if r.Given == nil {
		r.Given = map[string]json.RawMessage{}
	}
	for _, q := range r.Pending {
		if a, ok := answers[q.Key]; ok {
			r.Given[q.Key] = a
		} else {
			left = append(left, q)
		}
	}
	if len(left) == len(r.Pending) {
		return false
	}
	r.Pending = left
	if len(left) == 0 {
		r.Status, r.Updated = tasks.Working, now
	}
	return true
}

// taskAnswers reads tasks/update's inputResponses: an object of answers by question key.
func taskAnswers(params json.RawMessage) (map[string]json.RawMessage, *jsonrpc.Error) {
	raw, ok := jsonscan.Member(params, "inputResponses")
	if !ok || raw[0] != '{' {
		return nil, invalidParams("inputResponses must be an object, got %s", jsonscan.Kind(raw))
	}
	answers := map[string]json.RawMessage{}
	jsonscan.EachMember(raw, func(k, v []byte) bool {
		answers[string(jsonscan.KeyText(k))] = json.RawMessage(v)
		return true
	})
	return answers, nil
}

// encodeTask writes a task: resultType (when not ""), the Task fields and, detailed, what its
// status carries (inputRequests, result or error).
func (s *Server) encodeTask(r *tasks.Record, resultType string, detailed bool) json.RawMessage {
	l := s.Tasks.Limits()
	out := make([]byte, 0, 256+len(r.Result))
	out = append(out, '{')
	if resultType != "" {
		out = append(out, `"resultType":`...)
		out = jsonscan.AppendString(out, resultType)
		out = append(out, ',')
	}
	out = append(out, `"taskId":`...)
	out = jsonscan.AppendString(out, r.ID)
	out = append(out, `,"status":`...)
	out = jsonscan.AppendString(out, r.Status)
	if r.Message != "" {
		out = append(out, `,"statusMessage":`...)
		out = jsonscan.AppendString(out, r.Message)
	}
	out = append(out, `,"createdAt":"`...)
	out = r.Created.UTC().AppendFormat(out, taskTime)
	out = append(out, `","lastUpdatedAt":"`...)
	out = r.Updated.UTC().AppendFormat(out, taskTime)
	out = fmt.Appendf(out, `","ttlMs":%d,"pollIntervalMs":%d`, l.TTL.Milliseconds(), l.PollInterval.Milliseconds())
	if detailed {
		out = appendTaskDetail(out, r)
	}
	return append(out, '}')
}

func appendTaskDetail(out []byte, r *tasks.Record) []byte {
	switch {
	case r.Status == tasks.InputRequired:
		out = append(out, `,"inputRequests":`...)
		out = appendInputRequests(out, r.Pending)
	case r.Status == tasks.Completed:
		out = append(out, `,"result":`...)
		out = append(out, r.Result...)
	case r.Status == tasks.Failed && r.Error != nil:
		b, err := json.Marshal(r.Error)
		if err != nil {
			b = []byte(`{"code":-32603,"message":"Internal error"}`)
		}
		out = append(out, `,"error":`...)
		out = append(out, b...)
	}
	return out
}

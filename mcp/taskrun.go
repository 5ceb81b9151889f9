package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"runtime/debug"
	"strings"

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
	t := rc.taskRounds()
	if t == nil || !declaresTasks(t.caps) {
		return run(ctx, rc)
	}
	created, e := t.srv.startTask(ctx, rc, run)
	if e != nil {
		return nil, e
	}
	return nil, &taskCreated{created}
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
	ext, ok := member(caps, "extensions")
	if !ok || ext[0] != '{' {
		return false
	}
	v, ok := member(ext, ExtensionTasks)
	return ok && v[0] == '{'
}

func missingTasks(why string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: CodeMissingCapability, Message: "Missing required client capability: extensions." + ExtensionTasks + " (" + why + ")",
		Data: map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{ExtensionTasks: struct{}{}}}}}
}

// taskCreated is how RunTask tells the core that the call became a task: its CreateTaskResult.
type taskCreated struct{ result json.RawMessage }

func (*taskCreated) Error() string { return "the call continues as a task" }

// startTask records a task for the call rc serves and starts run in it, under a context with
// the values of the call's (ctx) that outlives the call.
func (s *Server) startTask(ctx context.Context, rc *RequestContext, run TaskFunc) (json.RawMessage, *jsonrpc.Error) {
	ts := s.Tasks
	t, ctx, release, e := ts.add(ctx, requester(rc.Header, rc.Vars))
	if e != nil {
		return nil, e
	}
	_, name, _ := strings.Cut(rc.rounds.target, "\x00")
	trc := RequestContext{Vars: rc.Vars, Caller: rc.Caller, Header: rc.Header, Version: rc.Version, RequestID: rc.RequestID}
	seed := rc.rounds
	if seed.detach != nil && trc.Caller != nil {
		trc.Caller = seed.detach(trc.Caller)
	}
	ts.mu.Lock()
	maps.Copy(t.given, seed.given) // the answers of the multi-round-trip rounds before the task
	ts.mu.Unlock()
	ts.wg.Add(1)
	go func() {
		defer ts.wg.Done()
		defer release()
		defer t.cancel()
		s.runTask(ctx, t, name, seed, &trc, run)
	}()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.encode(t, "task", false), nil
}

// runTask runs a task's work, once per round of questions, and records how it ended.
func (s *Server) runTask(ctx context.Context, t *task, name string, seed *inputRounds, rc *RequestContext, run TaskFunc) {
	ts := s.Tasks
	for {
		rounds := &inputRounds{caps: seed.caps, target: seed.target, srv: s, inTask: true,
			given: ts.answers(t), used: map[string]json.RawMessage{}}
		rc.rounds = rounds
		res, err := s.safeRun(ctx, rc, run)
		if errors.Is(err, ErrInputRequired) && len(rounds.asked) > 0 {
			if !ts.waitInput(ctx, t, rounds.asked) {
				return
			}
			continue
		}
		if err != nil {
			ts.finish(t, nil, toError(err))
			return
		}
		b, err := s.toolAnswer(name, res, rc)
		var e *jsonrpc.Error
		if err != nil {
			e = toError(err)
		}
		ts.finish(t, b, e)
		return
	}
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
func (s *Server) serveTaskMethod(req *jsonrpc.Request, rc *RequestContext) (json.RawMessage, error) {
	if s.Tasks == nil || rc.Version != Version20260728 {
		return nil, methodNotFound(req.Method)
	}
	if rc.rounds == nil || !declaresTasks(rc.rounds.caps) {
		return nil, missingTasks(req.Method + " belongs to the tasks extension")
	}
	raw, _ := member(req.Params, "taskId")
	id, ok := jsonscan.Unquote(raw)
	if !ok {
		return nil, invalidParams("taskId must be a string, got %s", jsonscan.Kind(raw))
	}
	owner := requester(rc.Header, rc.Vars)
	switch req.Method {
	case "tasks/get":
		b, e := s.Tasks.get(id, owner)
		if e != nil {
			return nil, e
		}
		return b, nil
	case "tasks/cancel":
		if e := s.Tasks.cancel(id, owner); e != nil {
			return nil, e
		}
		return jsonrpc.EmptyObject, nil
	}
	answers, perr := taskAnswers(req.Params)
	if perr != nil {
		return nil, perr
	}
	if e := s.Tasks.update(id, owner, answers); e != nil {
		return nil, e
	}
	return jsonrpc.EmptyObject, nil
}

// taskAnswers reads tasks/update's inputResponses: an object of answers by question key.
func taskAnswers(params json.RawMessage) (map[string]json.RawMessage, *jsonrpc.Error) {
	raw, ok := member(params, "inputResponses")
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

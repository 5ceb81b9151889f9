package mock

import (
	"strconv"
	"strings"
	"time"

	"github.com/octo-run/octo/mcp/jsonrpc"
	"github.com/octo-run/octo/runtime/config"
)

// A tool's task setting: whether a 2026-07-28 call runs as a task (the tasks extension).
const (
	taskNever    = "never"
	taskOptional = "optional"
	taskRequired = "required"
)

// maxSleep bounds a sleep step, as delayMs is bounded.
const maxSleep = time.Hour

// sleepFor reads what a sleep step rendered: a Go duration or a number of milliseconds.
func sleepFor(text string) (time.Duration, bool) {
	text = strings.TrimSpace(text)
	d, err := time.ParseDuration(text)
	if err != nil {
		ms, nerr := strconv.ParseFloat(text, 64)
		if nerr != nil {
			return 0, false
		}
		d = time.Duration(ms * float64(time.Millisecond))
	}
	return d, d >= 0 && d <= maxSleep
}

// compileTask sets up a tool's task: where its task starts and the error it answers with.
func (t *tool) compileTask(tc *toolConfig) {
	t.task, t.once = tc.Task, tc.AtMostOnce
	if t.task == "" {
		t.task = taskNever
	}
	for t.taskFrom < len(t.steps) && t.steps[t.taskFrom].preTask {
		t.taskFrom++
	}
	if pe := tc.ProtocolError; pe != nil {
		t.own.protoErr = &jsonrpc.Error{Code: pe.Code, Message: pe.Message}
	}
}

// checkTask reports load errors in a tool's task settings: beforeTask steps come first and
// need a task, and a protocolError is the answer, so it excludes isError.
func checkTask(tc *toolConfig, pos *config.Positions, ds *config.Diags) {
	later := false
	for i := range tc.Steps {
		sc := &tc.Steps[i]
		switch {
		case !sc.BeforeTask:
			later = true
		case tc.Task == "" || tc.Task == taskNever:
			*ds = append(*ds, pos.Diag(&sc.BeforeTask, "beforeTask needs the tool's task: optional or required"))
		case later:
			*ds = append(*ds, pos.Diag(&sc.BeforeTask, "steps with beforeTask come before the others"))
		}
	}
	if tc.AtMostOnce && (tc.Task == "" || tc.Task == taskNever) {
		*ds = append(*ds, pos.Diag(&tc.AtMostOnce, "atMostOnce is about tasks, and tool %q never runs as one: set task to optional or required", tc.Name))
	}
	if pe := tc.ProtocolError; pe != nil {
		if pe.Code == 0 {
			*ds = append(*ds, pos.Diag(&pe.Code, "a JSON-RPC error code is not 0 (-32603 is an internal error)"))
		}
		if tc.IsError {
			*ds = append(*ds, pos.Diag(&tc.IsError, "a tool answers with protocolError (a JSON-RPC error) or isError (a failed result), not both"))
		}
	}
}

package runtime

import (
	"context"
	"encoding/json"
	"errors"
)

// ClientAsker asks the caller of a run a question and returns its answer: an MCP client of a
// router tool is asked for elicitation or sampling (ask blocks). The source of the run installs
// it (WithClientAsker). Its errors are *Error with a message the caller may read (the client
// cannot answer, did not answer in time), or ErrAwaitingClient.
type ClientAsker interface {
	// Ask sends method with params to the caller and waits for its answer. key names the
	// question within the run, so that an answer sent with a later round finds its question.
	Ask(ctx context.Context, key, method string, params any) (json.RawMessage, error)
}

// ErrAwaitingClient is what a run returns when a question must wait for the caller to answer it
// in a new round (MCP 2026-07-28's input_required): not a failure, the source answers it, and
// the run starts again with the answer. catch and retry let it pass.
var ErrAwaitingClient = errors.New("awaiting the client's answer")

// ErrClientCannotAnswer is in the chain of an asker's error when the caller cannot answer the
// question at all (it did not declare the capability, has no way to hear it, or answered it
// with an error): an optional ask goes on without an answer.
var ErrClientCannotAnswer = errors.New("the client cannot answer")

type clientAskerKey struct{}

// WithClientAsker returns ctx carrying a, which the ask blocks run with it use.
func WithClientAsker(ctx context.Context, a ClientAsker) context.Context {
	return context.WithValue(ctx, clientAskerKey{}, a)
}

// ClientAskerOf is the ClientAsker installed in ctx, nil when the run has no caller to ask.
func ClientAskerOf(ctx context.Context) ClientAsker {
	a, _ := ctx.Value(clientAskerKey{}).(ClientAsker)
	return a
}

// Package catch is the catch block: it runs a branch, and when that fails runs another with the
// error in vars.error, so a flow can answer a failure in its own words.
package catch

import (
	"context"
	"errors"
	"log/slog"
	"slices"

	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "catch",
		Summary: "runs the `try` branch; when it fails, runs `catch` with the error in vars.error",
		Doc: "Runs try with the message. When it succeeds its answer goes on; when it fails (with an " +
			"error of a kind listed in on, by default any), catch runs instead, with the message as it came to the catch block (nothing the failed " +
			"branch changed) and vars.error = {message, kind, block}: the text a caller may see " +
			"(an internal error's is \"internal error\", or an expression's short cause; the details go to the log), the kind " +
			"(invalid, not found, upstream, timeout, internal, ...) and the address of the block " +
			"that failed (flows.api.process[0].try[1]). Its answer goes on as the flow's. A request " +
			"cancelled, or a server stopping, is not caught. To fail after all, end catch with a fail.",
		Example: "type: catch\ntry:\n  - type: http-request\n    settings: { url: 'http://127.0.0.1:9000/api/forecast' }\n" +
			"catch:\n  - type: set-payload\n    settings: { value: '{\"summary\": \"unknown\", \"reason\": vars.error.message}' }\n",
		Composite: true,
		Build:     runtime.BlockFunc(build),
	})
}

// ErrorVar is the variable the catch branch finds the error in (vars.error.message).
const ErrorVar = "error"

// Settings are the catch block's settings, written beside its type.
type Settings struct {
	Try runtime.Branch `yaml:"try" octo:"required" body:"kept" doc:"The blocks to run."`
	On  []string       `yaml:"on" enum:"internal,invalid,unauthorized,forbidden,not found,conflict,too large,unavailable,timeout,upstream" doc:"The kinds of error to catch; by default every kind. An error of another kind fails the flow as it is." example:"[upstream, timeout]"`
	// The vars tag tells the build that the catch branch may read vars.error.
	Catch runtime.Branch `yaml:"catch" octo:"required" vars:"error" body:"kept" doc:"The blocks to run when try fails, with vars.error: {message, kind, block}."`
}

// Block runs a branch and handles its failure with another.
type Block struct {
	try, catch runtime.Block
	on         []runtime.ErrorKind // nil: every kind
	log        *slog.Logger
}

func build(b *runtime.Build, s *Settings) (runtime.Block, error) {
	return &Block{try: s.Try.Block, catch: s.Catch.Block, on: runtime.KindsNamed(s.On), log: b.Logger()}, nil
}

// Process runs try on a copy of the message, so that catch starts from the message as it came.
func (c *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	out, err := c.try.Process(ctx, m.Clone())
	if err == nil {
		return out, nil
	}
	if ctx.Err() != nil || errors.Is(err, runtime.ErrShuttingDown) || errors.Is(err, runtime.ErrAwaitingClient) {
		return nil, err // nobody to answer, or the connector answers it itself
	}
	e := runtime.ErrorOf(err)
	if c.on != nil && !slices.Contains(c.on, e.Kind) {
		return nil, err
	}
	where := failedAt(err)
	if e.Kind.ServerFault() {
		// Caught, it reaches no connector's log: say here what the answer will not.
		c.log.Warn("caught an error", "kind", e.Kind.String(), "err", err)
	}
	hm := m.Clone()
	hm.SetVar(ErrorVar, map[string]any{"message": e.Msg, "kind": e.Kind.String(), "block": where})
	return c.catch.Process(ctx, hm)
}

// failedAt is the address of the block err names (a *runtime.BlockError in its chain), or "".
func failedAt(err error) string {
	var be *runtime.BlockError
	if errors.As(err, &be) {
		return be.Addr
	}
	return ""
}

var _ runtime.Block = (*Block)(nil)

// Package retry is the retry block: it runs a branch again, a bounded number of times, when it
// fails for a reason that trying again can mend.
package retry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterBlock(runtime.BlockSpec{
		Type:    "retry",
		Summary: "runs a branch again (at most `attempts` times, with backoff) when it fails for the server's side",
		Doc: "Runs process with the message; when it fails with an error of a kind listed in on " +
			"(by default the kinds that are the server's side failing: internal, unavailable, " +
			"timeout, upstream), waits and runs it again from the same message, nothing the failed " +
			"attempt changed kept, at most attempts times in all. The first wait is backoff, each " +
			"next one twice the last, at most maxBackoff. Other errors, the last attempt's error, " +
			"a request cancelled and a server stopping end the flow at once. Calls that change " +
			"things (a POST) should be safe to repeat before they are retried.",
		Example: "type: retry\nattempts: 3\nbackoff: 200ms\nprocess:\n  - type: http-request\n" +
			"    settings: { url: 'http://127.0.0.1:9000/api/forecast', timeout: 2s }\n",
		Composite: true,
		Build:     runtime.BlockFunc(build),
	})
}

// Settings are the retry block's settings, written beside its type.
type Settings struct {
	Attempts int `yaml:"attempts" default:"3" min:"1" max:"10" doc:"How many times to run process in all, the first included."`
	// Capped, as every wait holds the caller's request and an in-flight slot.
	Backoff    time.Duration  `yaml:"backoff" default:"100ms" min:"0" max:"10s" doc:"The wait before the second attempt; it doubles for each one after, up to maxBackoff."`
	MaxBackoff time.Duration  `yaml:"maxBackoff" default:"2s" min:"0" max:"1m" doc:"The longest wait between two attempts."`
	On         []string       `yaml:"on" enum:"internal,invalid,unauthorized,forbidden,not found,conflict,too large,unavailable,timeout,upstream" doc:"The kinds of error to try again after; by default internal, unavailable, timeout and upstream." example:"[upstream, timeout]"`
	Process    runtime.Branch `yaml:"process" octo:"required" body:"kept" doc:"The blocks to run, and run again."`
}

// Block runs a branch until it succeeds, fails for good, or has run attempts times.
type Block struct {
	branch       runtime.Block
	attempts     int
	backoff, max time.Duration
	on           []runtime.ErrorKind // nil: the server-fault kinds
	log          *slog.Logger
}

func build(b *runtime.Build, s *Settings) (runtime.Block, error) {
	blk := &Block{branch: s.Process.Block, attempts: s.Attempts, backoff: s.Backoff, max: s.MaxBackoff,
		on: runtime.KindsNamed(s.On), log: b.Logger()}
	if s.MaxBackoff < s.Backoff {
		return nil, b.Errorf(&s.MaxBackoff, "maxBackoff %v is shorter than backoff %v", s.MaxBackoff, s.Backoff)
	}
	return blk, nil
}

// Process runs the branch on a copy of the message for each attempt but the last, so every
// attempt starts from the message as it came.
func (r *Block) Process(ctx context.Context, m *runtime.Message) (*runtime.Message, error) {
	wait := r.backoff
	for attempt := 1; ; attempt++ {
		in := m
		if attempt < r.attempts {
			in = m.Clone()
		}
		out, err := r.branch.Process(ctx, in)
		if err == nil {
			return out, nil
		}
		if attempt == r.attempts || !r.retries(ctx, err) {
			if attempt > 1 {
				err = fmt.Errorf("attempt %d of %d: %w", attempt, r.attempts, err)
			}
			return nil, err
		}
		r.log.Warn("attempt failed, trying again", "attempt", attempt, "of", r.attempts, "wait", wait, "err", err)
		if err := runtime.Sleep(ctx, wait); err != nil {
			return nil, err
		}
		wait = min(2*wait, r.max)
	}
}

// retries reports whether an attempt that failed with err may be tried again.
func (r *Block) retries(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, runtime.ErrAwaitingClient) {
		return false
	}
	k := runtime.ErrorOf(err).Kind
	if r.on == nil {
		return k.ServerFault() && k != runtime.KindCancelled
	}
	return slices.Contains(r.on, k)
}

var _ runtime.Block = (*Block)(nil)

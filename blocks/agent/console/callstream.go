package console

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime"
)

// progressBuffer bounds the progress events a slow page has not read yet; past it they are
// left out (progress is a hint), never the answer.
const progressBuffer = 64

// callStream is /api/call with "progress": true: the tool runs as the user, the page hears
// each progress notification the call reports as a "progress" event ({progress, total,
// message}) and then its answer as a "result" event (what /api/call answers otherwise), or an
// "error" event ({error, status}). Try it shows a long call's progress with it.
type callStream struct {
	progress chan runtime.Event
	last     chan runtime.Event // the result or the error, sent once
	cancel   context.CancelFunc
	done     bool
}

func (c *api) callStreamed(a callArgs) reply {
	// The call belongs to the stream, not to the request that opened it: the page closing the
	// stream cancels it.
	ctx, cancel := context.WithTimeout(context.Background(), callStreamLimit)
	s := &callStream{progress: make(chan runtime.Event, progressBuffer), last: make(chan runtime.Event, 1), cancel: cancel}
	go func() {
		res, err := c.app.Tools().Call(ctx, agenttools.Call{Agent: ConsoleAgent, Name: a.Tool, Args: a.Arguments, ByUser: true,
			Progress: func(progress, total float64, message string) {
				select {
				case s.progress <- event("progress", map[string]any{"progress": progress, "total": total, "message": message}):
				default:
				}
			}})
		switch {
		case errors.Is(err, mcp.ErrUnknownTool):
			s.last <- event("error", map[string]any{"error": "no agent tool " + quoteLog(a.Tool), "status": http.StatusNotFound})
		case err != nil:
			s.last <- event("error", map[string]any{"error": err.Error(), "status": http.StatusInternalServerError})
		default:
			s.last <- event("result", callView{IsError: res.IsError, Text: resultText(res), Result: res})
		}
	}()
	return reply{stream: s}
}

// callStreamLimit bounds a streamed call as call_server bounds one request to a mock.
const callStreamLimit = 6 * time.Minute

// Next implements runtime.Stream: progress as it comes, then the answer, then the end.
func (s *callStream) Next(ctx context.Context) (runtime.Event, error) {
	if s.done {
		return runtime.Event{}, io.EOF
	}
	select {
	case ev := <-s.progress:
		return ev, nil
	default:
	}
	select {
	case ev := <-s.progress:
		return ev, nil
	case ev := <-s.last:
		s.done = true
		return ev, nil
	case <-ctx.Done():
		s.cancel()
		return runtime.Event{}, ctx.Err()
	}
}

// Close implements io.Closer: the page went, and the call is cancelled.
func (s *callStream) Close() error {
	s.cancel()
	return nil
}

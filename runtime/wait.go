package runtime

import (
	"context"
	"time"
)

// Sleep waits d, or returns ctx's error when it ends first: how a block waits between tries,
// so a client that leaves, or a server that stops, ends the wait too.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

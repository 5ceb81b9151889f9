package mock

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/octo-run/octo/mcp"
)

// progressSink records the progress values a call reports, as its client
// would receive them.
type progressSink struct{ got []float64 }

func (p *progressSink) Notify(_ context.Context, _ string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	var v struct {
		Progress float64 `json:"progress"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	p.got = append(p.got, v.Progress)
	return nil
}

// The waits run on synctest's clock, so each tick comes exactly on time
// however loaded the machine is.
func TestAWaitReportsProgressAtTheStartEachSecondAndTheEnd(t *testing.T) {
	tests := []struct {
		name string
		d    time.Duration
		want []float64
	}{
		{"1.2s: the start, one second, the end", 1200 * time.Millisecond, []float64{0, 1000, 1200}},
		{"2.5s: the start, two seconds, the end", 2500 * time.Millisecond, []float64{0, 1000, 2000, 2500}},
		{"1s: a tick due at the end is the end", time.Second, []float64{0, 1000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sink := &progressSink{}
				rc := &mcp.RequestContext{ProgressToken: json.RawMessage(`"p"`), Notifier: sink}
				if err := wait(context.Background(), rc, tt.d, true); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(sink.got, tt.want) {
					t.Fatalf("progress %v, want %v", sink.got, tt.want)
				}
			})
		})
	}
}

func TestAWaitEndsWhenItsCallIsCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		start := time.Now()
		if err := wait(ctx, nil, time.Minute, true); !errors.Is(err, context.Canceled) {
			t.Fatalf("wait = %v, want context.Canceled", err)
		}
		if took := time.Since(start); took != 300*time.Millisecond {
			t.Fatalf("the wait ended after %v, want when it was cancelled, 300ms", took)
		}
	})
}

package delay_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func flow(duration string) string {
	return "connectors: [ { name: api, type: http, settings: { port: 0 } } ]\nflows:\n  - name: f\n" +
		"    source: { connector: api, settings: { path: /f } }\n    process:\n      - type: delay\n" +
		"        settings: { duration: " + duration + " }\n"
}

func build(t *testing.T, duration string) *runtime.Flow {
	t.Helper()
	svc, err := runtimetest.BuildConfig(t, flow(duration), nil)
	if err != nil {
		t.Fatal(err)
	}
	return svc.Instance("flows.f").(*runtime.Flow)
}

func TestTheMessagePassesOnAfterTheWait(t *testing.T) {
	f := build(t, "50ms")
	start := time.Now()
	m, err := f.Run(context.Background(), runtime.NewMessage([]byte(`{"a":1}`)))
	if err != nil || string(m.Raw()) != `{"a":1}` {
		t.Fatalf("got %v %v, want the message unchanged", m, err)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Fatalf("passed on after %v, before its 50ms", waited)
	}
}

func TestACancelledRequestEndsTheWait(t *testing.T) {
	f := build(t, "1h")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.Run(ctx, runtime.NewMessage(nil))
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want the cancellation", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("an hour's wait went on after its request was cancelled")
	}
}

// heard collects the progress a run reports.
type heard struct {
	mu  sync.Mutex
	all []runtime.Progress
}

func (h *heard) ReportProgress(_ context.Context, p runtime.Progress) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.all = append(h.all, p)
}

func TestALongWaitTellsACallerThatListensHowLongItWaited(t *testing.T) {
	f := build(t, "2500ms")
	h := &heard{}
	if _, err := f.Run(runtime.WithProgress(context.Background(), h), runtime.NewMessage(nil)); err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.all) != 2 || h.all[0].Message != "waited 1s of 2.5s" || h.all[1].Progress != 2 || h.all[1].Total != 2.5 || !h.all[1].Within {
		t.Fatalf("heard %+v, want waited 1s and 2s of 2.5s, within the step", h.all)
	}
}

func TestTheDurationIsBoundedAtBuild(t *testing.T) {
	for _, d := range []string{"0s", "2h", "soon"} {
		if _, err := runtimetest.BuildConfig(t, flow(d), nil); err == nil || !strings.Contains(err.Error(), "duration") {
			t.Errorf("duration %s: build %v, want a problem at duration", d, err)
		}
	}
}

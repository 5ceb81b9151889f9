package progress_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "github.com/octo-run/octo/blocks/delay"
	_ "github.com/octo-run/octo/blocks/progress"
	_ "github.com/octo-run/octo/connectors/stdio"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// heard is a ProgressReporter that keeps what it hears, as the router's sends it on.
type heard struct {
	mu  sync.Mutex
	got []string
}

func (h *heard) ReportProgress(_ context.Context, p runtime.Progress) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.got = append(h.got, fmt.Sprintf("%g/%g %s", p.Progress, p.Total, p.Message))
}

// flowOf builds a flow of the given process items (YAML, indented under process:).
func flowOf(t *testing.T, process string) *runtime.Flow {
	t.Helper()
	text := "connectors: [ { name: io, type: stdio } ]\nflows:\n  - name: f\n    source: { connector: io }\n    process:\n" + process
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	svc, err := runtime.NewService(cfg, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return svc.Instance("flows.f").(*runtime.Flow)
}

func TestProgressBlocksAndLongDelaysReportToWhoAsked(t *testing.T) {
	f := flowOf(t, `      - type: progress
        settings: { progress: "body.step", total: "3", message: "step {{ body.step }} of {{ body.city }}" }
      - type: delay
        settings: { duration: 1100ms }
      - type: progress
        settings: { progress: "2.5" }
`)
	t.Run("a caller that asked hears each report, the delay's second included", func(t *testing.T) {
		h := &heard{}
		ctx := runtime.WithProgress(context.Background(), h)
		if _, err := f.Run(ctx, runtime.NewMessage([]byte(`{"step": 1, "city": "Oslo"}`))); err != nil {
			t.Fatal(err)
		}
		want := "1/3 step 1 of Oslo\n1/1.1 waited 1s of 1.1s\n2.5/0 "
		if got := strings.Join(h.got, "\n"); got != want {
			t.Fatalf("heard:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("without a listener nothing is worked out, not even a broken expression", func(t *testing.T) {
		g := flowOf(t, "      - type: progress\n        settings: { progress: 'body.city + 1' }\n")
		if _, err := g.Run(context.Background(), runtime.NewMessage([]byte(`{"city": "Oslo"}`))); err != nil {
			t.Fatal(err)
		}
		if _, err := g.Run(runtime.WithProgress(context.Background(), &heard{}), runtime.NewMessage([]byte(`{"city": "Oslo"}`))); err == nil {
			t.Fatal("the expression fails when someone listens, yet it did not")
		}
	})
	t.Run("a progress that is not a number fails the flow, saying so", func(t *testing.T) {
		g := flowOf(t, "      - type: progress\n        settings: { progress: 'body.city' }\n")
		_, err := g.Run(runtime.WithProgress(context.Background(), &heard{}), runtime.NewMessage([]byte(`{"city": "Oslo"}`)))
		if err == nil || !strings.Contains(err.Error(), `progress: expression "body.city" gave string, not a number`) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a cancelled caller stops a long delay at once", func(t *testing.T) {
		g := flowOf(t, "      - type: delay\n        settings: { duration: 1h }\n")
		ctx, cancel := context.WithCancel(runtime.WithProgress(context.Background(), &heard{}))
		cancel()
		if _, err := g.Run(ctx, runtime.NewMessage(nil)); err != context.Canceled {
			t.Fatalf("err = %v", err)
		}
	})
}

package log_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func flow(settings string) string {
	return "connectors: [ { name: api, type: http, settings: { port: 0 } } ]\nflows:\n  - name: f\n" +
		"    source: { connector: api, settings: { path: /f } }\n    process:\n      - type: log\n" +
		"        name: asked\n        settings: " + settings + "\n"
}

func build(t *testing.T, settings string, log *runtimetest.Buffer) *runtime.Flow {
	t.Helper()
	svc, err := runtimetest.BuildConfig(t, flow(settings), log)
	if err != nil {
		t.Fatal(err)
	}
	return svc.Instance("flows.f").(*runtime.Flow)
}

func TestTheLineIsLoggedAndTheMessageGoesOn(t *testing.T) {
	log := &runtimetest.Buffer{}
	f := build(t, `{ message: 'forecast for {{ body.city }}', level: warn }`, log)
	m, err := f.Run(context.Background(), runtime.NewMessage([]byte(`{"city":"Oslo"}`)))
	if err != nil || string(m.Raw()) != `{"city":"Oslo"}` {
		t.Fatalf("got %v %v, want the message unchanged", m, err)
	}
	want := `level=WARN msg="forecast for Oslo" flow=f block=log name=asked`
	if !strings.Contains(log.String(), want) {
		t.Fatalf("log %q, want %q", log.String(), want)
	}
}

// A line below the service's log level is not rendered, so its template's failure costs
// nothing and fails nothing.
func TestALineBelowTheLevelIsNotRendered(t *testing.T) {
	log := &runtimetest.Buffer{}
	f := build(t, `{ message: '{{ body.a.b.c }}', level: debug }`, log)
	if _, err := f.Run(context.Background(), runtime.NewMessage([]byte(`{"a":1}`))); err != nil {
		t.Fatalf("a debug line was rendered at level info: %v", err)
	}
	if log.String() != "" {
		t.Fatalf("logged %q", log.String())
	}
	f = build(t, `{ message: '{{ body.a.b.c }}', level: error }`, log)
	if _, err := f.Run(context.Background(), runtime.NewMessage([]byte(`{"a":1}`))); err == nil {
		t.Fatal("a line that cannot be rendered at its level did not fail the flow")
	}
}

// listener is a caller that hears lines at warn and above.
type listener struct {
	mu    sync.Mutex
	lines []string
}

func (l *listener) ClientLogs(level slog.Level) bool { return level >= slog.LevelWarn }
func (l *listener) ClientLog(_ context.Context, level slog.Level, line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, level.String()+" "+line)
}

func TestACallerThatListensHearsTheLinesItsLevelLetsThrough(t *testing.T) {
	for _, tt := range []struct {
		level string
		want  []string
	}{
		{"debug", nil},
		{"warn", []string{"WARN city Oslo"}},
	} {
		t.Run(tt.level, func(t *testing.T) {
			f := build(t, `{ message: 'city {{ body.city }}', level: `+tt.level+` }`, &runtimetest.Buffer{})
			l := &listener{}
			if _, err := f.Run(runtime.WithClientLogger(context.Background(), l), runtime.NewMessage([]byte(`{"city":"Oslo"}`))); err != nil {
				t.Fatal(err)
			}
			if strings.Join(l.lines, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("heard %q, want %q", l.lines, tt.want)
			}
		})
	}
}

func TestTheLevelIsOneOfFour(t *testing.T) {
	_, err := runtimetest.BuildConfig(t, flow(`{ message: hi, level: loud }`), nil)
	if err == nil || !strings.Contains(err.Error(), "level") {
		t.Fatalf("build: %v, want a problem at level", err)
	}
}

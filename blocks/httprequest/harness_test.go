package httprequest

import (
	"context"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	_ "github.com/octo-run/octo/blocks/setpayload"
	_ "github.com/octo-run/octo/connectors/http"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// flowOf is a config of one flow whose process is the given YAML list items, indented as
// written under process:, with env variables declared for each name in env.
func flowOf(process string, env map[string]string) string {
	var b strings.Builder
	if len(env) > 0 {
		b.WriteString("env:\n")
		for _, name := range slices.Sorted(maps.Keys(env)) {
			b.WriteString("  - { name: " + name + " }\n")
		}
	}
	b.WriteString(`connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: f
    source: { connector: api, settings: { path: /x } }
    process:
`)
	b.WriteString(process)
	return b.String()
}

// blockOf is a flow of one http-request block with these settings (YAML, indented by 8).
func blockOf(settings string) string {
	return "      - type: http-request\n        settings:\n" + settings
}

// running is a started service of one flow, its first block and its log.
type running struct {
	svc   *runtime.Service
	flow  *runtime.Flow
	block *Block
	log   *runtimetest.Buffer
	clock *fakeClock
}

// buildIn loads and builds a config of one file, c.yaml in dir, with env.
func buildIn(t testing.TB, dir, text string, env map[string]string, opts runtime.Options) (*runtime.Service, error) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	cfg, err := config.Load(filepath.Join(dir, "c.yaml"), lookup)
	if err != nil {
		return nil, err
	}
	opts.LookupEnv = lookup
	return runtime.NewService(cfg, opts)
}

// startService builds and starts a config of one file, c.yaml in dir, and stops it when the
// test ends.
func startService(t testing.TB, dir, text string, env map[string]string, opts runtime.Options) *runtime.Service {
	t.Helper()
	svc, err := buildIn(t, dir, text, env, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Stop(context.Background()) })
	return svc
}

// start builds and starts text, whose first block is an http-request, with a clock that does
// not wait; the service stops when the test ends.
func start(t testing.TB, text string, env map[string]string) *running {
	t.Helper()
	return startIn(t, t.TempDir(), text, env)
}

// startIn is start with c.yaml written in dir, beside the files it names.
func startIn(t testing.TB, dir, text string, env map[string]string) *running {
	t.Helper()
	r := &running{log: &runtimetest.Buffer{}, clock: &fakeClock{}}
	svc := startService(t, dir, text, env, runtime.Options{Logger: slog.New(slog.NewTextHandler(r.log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	r.svc, r.flow = svc, svc.Instance("flows.f").(*runtime.Flow)
	r.block = svc.Instance("flows.f.process[0]").(*Block)
	r.block.clock = r.clock
	return r
}

// run passes a message with body through the flow.
func (r *running) run(t testing.TB, body string) (*runtime.Message, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return r.flow.Run(ctx, runtime.NewMessage([]byte(body)))
}

// fakeClock moves time forward by what the block sleeps, at once.
type fakeClock struct {
	mu      sync.Mutex
	slept   []time.Duration
	elapsed time.Duration
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.elapsed)
}

func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slept = append(c.slept, d)
	c.elapsed += d
	return nil
}

func (c *fakeClock) sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.slept)
}

package supervisor_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/runtimetest"
	"github.com/octo-run/octo/runtime/supervisor"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// answering is a config answering GET /v with answer on port.
func answering(port int, answer string) string {
	return fmt.Sprintf(`service: { name: %s }
connectors:
  - { name: api, type: http, settings: { port: %d } }
flows:
  - name: v
    source: { connector: api, settings: { path: /v } }
    process: [ { type: set-payload, settings: { value: '%q' } } ]
`, answer, port, answer)
}

// load writes text as the config file of a folder and loads it.
func load(t testing.TB, text string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func noEnv(string) (string, bool) { return "", false }

func newSupervisor(t *testing.T) *supervisor.Supervisor {
	t.Helper()
	sup := supervisor.New(supervisor.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), LookupEnv: noEnv, StopTimeout: 5 * time.Second})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := sup.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return sup
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestAReplacedUnitAnswersFromItsNewBuildOnTheSamePort(t *testing.T) {
	sup, port := newSupervisor(t), runtimetest.FreePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d/v", port)
	ctx := context.Background()
	if err := sup.Start(ctx, "app", load(t, answering(port, "one"))); err != nil {
		t.Fatal(err)
	}
	if got := get(t, url); got != `"one"` {
		t.Fatalf("first build answered %s", got)
	}
	if _, err := sup.Replace(ctx, "app", load(t, answering(port, "two"))); err != nil {
		t.Fatal(err)
	}
	if got := get(t, url); got != `"two"` {
		t.Fatalf("after the replace: %s", got)
	}
	st := sup.Units()
	if len(st) != 1 || st[0].Name != "app" || st[0].Service != "two" || st[0].Builds != 2 {
		t.Fatalf("units %+v", st)
	}
}

func TestABrokenConfigLeavesTheRunningBuildServing(t *testing.T) {
	sup, port := newSupervisor(t), runtimetest.FreePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d/v", port)
	ctx := context.Background()
	if err := sup.Start(ctx, "app", load(t, answering(port, "one"))); err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(answering(port, "two"), `'"two"'`, `'"two" +'`, 1)
	_, err := sup.Replace(ctx, "app", load(t, broken))
	var ds config.Diags
	if !errors.As(err, &ds) || !strings.Contains(err.Error(), "flow.yaml:7:") {
		t.Fatalf("got %v, want diagnostics at the file's line", err)
	}
	if got := get(t, url); got != `"one"` {
		t.Fatalf("the running build stopped answering: %s", got)
	}
	if st := sup.Units(); st[0].Builds != 1 {
		t.Fatalf("units %+v", st)
	}
}

func TestAStoppedUnitHoldsNothing(t *testing.T) {
	sup, port := newSupervisor(t), runtimetest.FreePort(t)
	ctx := context.Background()
	if err := sup.Start(ctx, "app", load(t, answering(port, "one"))); err != nil {
		t.Fatal(err)
	}
	if _, err := sup.Replace(ctx, "app", load(t, answering(port, "two"))); err != nil {
		t.Fatal(err)
	}
	if err := sup.Stop(ctx, "app"); err != nil {
		t.Fatal(err)
	}
	if keys := sup.Shared().Keys(); len(keys) != 0 {
		t.Fatalf("still held: %q", keys)
	}
	if len(sup.Units()) != 0 || sup.Service("app") != nil {
		t.Fatalf("units %+v", sup.Units())
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatalf("the port is still bound: %v", err)
	}
	ln.Close()
}

func TestUnitsAreNamedOnce(t *testing.T) {
	sup := newSupervisor(t)
	ctx := context.Background()
	if err := sup.Start(ctx, "app", load(t, answering(0, "one"))); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"starting a running unit", sup.Start(ctx, "app", load(t, answering(0, "two"))), supervisor.ErrUnitExists},
		{"replacing an unknown unit", second(sup.Replace(ctx, "nope", load(t, answering(0, "two")))), supervisor.ErrNoUnit},
		{"stopping an unknown unit", sup.Stop(ctx, "nope"), supervisor.ErrNoUnit},
	}
	for _, c := range cases {
		t.Run(c.name+" is refused", func(t *testing.T) {
			if !errors.Is(c.err, c.want) {
				t.Fatalf("got %v", c.err)
			}
		})
	}
}

func TestTwoUnitsCannotServeOnePort(t *testing.T) {
	sup, port := newSupervisor(t), runtimetest.FreePort(t)
	ctx := context.Background()
	if err := sup.Start(ctx, "a", load(t, answering(port, "one"))); err != nil {
		t.Fatal(err)
	}
	err := sup.Start(ctx, "b", load(t, answering(port, "two")))
	if err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("got %v", err)
	}
	if len(sup.Units()) != 1 {
		t.Fatalf("units %+v", sup.Units())
	}
}

// second is the error of a call that returns a value besides.
func second[T any](_ T, err error) error { return err }

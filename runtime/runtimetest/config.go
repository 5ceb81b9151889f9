package runtimetest

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// BuildConfig writes text as c.yaml in a new temporary folder and builds it, with no
// environment and its log written to log (nil: discarded). Block and connector packages must
// be registered by the caller's imports.
func BuildConfig(t testing.TB, text string, log io.Writer) (*runtime.Service, error) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(file, noEnv)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = io.Discard
	}
	return runtime.NewService(cfg, runtime.Options{LookupEnv: noEnv, Logger: slog.New(slog.NewTextHandler(log, nil))})
}

// StartConfig builds text (see BuildConfig) and starts it; it stops when the test ends.
func StartConfig(t testing.TB, text string, log io.Writer) *runtime.Service {
	t.Helper()
	svc, err := BuildConfig(t, text, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Stop(context.Background()) })
	return svc
}

// RunFlow passes msg through the flow of svc named name, within 20 seconds.
func RunFlow(t testing.TB, svc *runtime.Service, name string, msg *runtime.Message) (*runtime.Message, error) {
	t.Helper()
	f, ok := svc.Instance("flows." + name).(*runtime.Flow)
	if !ok {
		t.Fatalf("no flow %q", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return f.Run(ctx, msg)
}

// Serve starts text as StartConfig does and returns the base URL (http://host:port) its http
// connector named connector serves at. Write `port: 0` in text: the connector binds a port
// the kernel picks and holds it from then on, so no other test can take it in between, as it
// can a FreePort's.
func Serve(t testing.TB, text, connector string, log io.Writer) (*runtime.Service, string) {
	t.Helper()
	svc := StartConfig(t, text, log)
	c, ok := svc.Connector(connector).(interface{ Addr() string })
	if !ok || c.Addr() == "" {
		t.Fatalf("connector %q serves no address", connector)
	}
	return svc, "http://" + c.Addr()
}

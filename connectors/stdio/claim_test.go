package stdio_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/connectors/stdio"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

const lines = `
connectors: [ { name: io, type: stdio } ]
flows:
  - { name: f, source: { connector: io }, process: [ { type: test-lines } ] }
`

func buildShared(t *testing.T, shared *runtime.Shared) *runtime.Service {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := runtime.NewService(cfg, runtime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Shared: shared, Unit: "u"})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func TestTheStreamsStayWithTheBuildReadingThem(t *testing.T) {
	shared := runtime.NewShared()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	defer outW.Close()
	ctx := stdio.WithStreams(context.Background(), inR, outW)
	out := bufio.NewReader(outR)
	first := buildShared(t, shared)
	if err := first.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if line, _ := out.ReadString('\n'); line != "hello\n" {
		t.Fatalf("greeting %q", line)
	}
	t.Run("a later build of the unit cannot start on them", func(t *testing.T) {
		second := buildShared(t, shared)
		err := second.Start(ctx)
		if err == nil || !strings.Contains(err.Error(), "standard input and output are served by a running build") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("the running build still answers", func(t *testing.T) {
		go func() { _, _ = inW.Write([]byte("ping\n")) }()
		if line, _ := out.ReadString('\n'); line != "got ping\n" {
			t.Fatalf("answer %q", line)
		}
	})
	t.Run("once it has stopped and its reader ended, they are free", func(t *testing.T) {
		go func() { _, _ = io.Copy(io.Discard, out) }()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := first.Stop(sctx); err != nil {
			t.Fatal(err)
		}
		if keys := shared.Keys(); len(keys) != 0 {
			t.Fatalf("still held: %q", keys)
		}
	})
}

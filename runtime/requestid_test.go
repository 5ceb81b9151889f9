package runtime_test

import (
	"bytes"
	"context"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime"
)

func TestARequestIDIsTakenWhenSaneAndMadeOtherwise(t *testing.T) {
	made := regexp.MustCompile(`^[0-9a-f]{16}$`)
	for _, c := range []struct {
		name, id string
		kept     bool
	}{
		{"a uuid is kept", "0f8fad5b-d9cb-469f-a165-70867728950e", true},
		{"printable ASCII is kept", "req:42/a_b.c~", true},
		{"128 characters are kept", strings.Repeat("a", 128), true},
		{"none gets one", "", false},
		{"129 characters get a new one", strings.Repeat("a", 129), false},
		{"a space gets a new one", "a b", false},
		{"a control character gets a new one", "a\x1bb", false},
		{"non-ASCII gets a new one", "caf\u00e9", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := runtime.SaneRequestID(c.id)
			if c.kept && got != c.id || !c.kept && !made.MatchString(got) {
				t.Fatalf("SaneRequestID(%q) = %q", c.id, got)
			}
			ctx, header := runtime.WithSaneRequestID(context.Background(), c.id)
			id := runtime.RequestID(ctx)
			if len(header) != 1 || header[0] != id || c.kept && id != c.id || !c.kept && !made.MatchString(id) {
				t.Fatalf("WithSaneRequestID(%q) carries %q and echoes %q", c.id, id, header)
			}
		})
	}
	if runtime.NewRequestID() == runtime.NewRequestID() {
		t.Fatal("two new ids are the same")
	}
}

func TestEveryLineLoggedWithARequestsContextSaysItsID(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(runtime.LogRequestIDs(slog.NewTextHandler(&buf, nil))).With("flow", "f")
	ctx := runtime.WithRequestID(context.Background(), "r-1")
	log.InfoContext(ctx, "with")
	log.Info("without")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "msg=with flow=f request_id=r-1") || strings.Contains(lines[1], "request_id") {
		t.Fatalf("logged:\n%s", buf.String())
	}
	if runtime.RequestID(context.Background()) != "" || runtime.RequestID(ctx) != "r-1" {
		t.Fatal("RequestID does not read what WithRequestID wrote")
	}
}

// A connector makes one per request: the context, its id and the header echoing it are one
// allocation, a made id included.
func TestWithSaneRequestIDAllocatesOnce(t *testing.T) {
	ctx := context.Background()
	for _, id := range []string{"req-1", ""} {
		if n := testing.AllocsPerRun(100, func() { _, _ = runtime.WithSaneRequestID(ctx, id) }); n != 1 {
			t.Fatalf("WithSaneRequestID(%q) allocates %.0f times, want 1", id, n)
		}
	}
}

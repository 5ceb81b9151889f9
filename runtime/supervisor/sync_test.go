package supervisor_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/runtimetest"
	"github.com/octo-run/octo/runtime/supervisor"
)

// declared is a unit answering answer on port, its version the answer.
func declared(t *testing.T, name string, port int, answer string) runtime.Unit {
	return runtime.Unit{Name: name, Config: load(t, answering(port, answer)), Version: answer}
}

// actions lists what a sync did, unit by unit.
func actions(out []supervisor.Outcome) string {
	var parts []string
	for _, o := range out {
		parts = append(parts, o.Unit.Name+" "+o.Action.String())
	}
	return strings.Join(parts, ", ")
}

func TestSyncServesWhatIsDeclared(t *testing.T) {
	sup := newSupervisor(t)
	ctx := context.Background()
	pa, pb := runtimetest.FreePort(t), runtimetest.FreePort(t)
	a, b := func(v string) runtime.Unit { return declared(t, "a", pa, v) }, func(v string) runtime.Unit { return declared(t, "b", pb, v) }
	if err := sup.Start(ctx, "by hand", load(t, answering(0, "mine"))); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name  string
		units []runtime.Unit
		want  string
		a, b  string // what each port answers after; "" for nothing
	}{
		{"undeclared units start", []runtime.Unit{a("a1"), b("b1")}, "a started, b started", `"a1"`, `"b1"`},
		{"a unit at the same version is kept", []runtime.Unit{a("a1"), b("b1")}, "a kept, b kept", `"a1"`, `"b1"`},
		{"a new version replaces only its unit", []runtime.Unit{a("a2"), b("b1")}, "a replaced, b kept", `"a2"`, `"b1"`},
		{"a unit no longer declared stops", []runtime.Unit{a("a2")}, "b stopped, a kept", `"a2"`, ""},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			out := sup.Sync(ctx, "g", s.units, supervisor.SyncOptions{})
			if got := actions(out); got != s.want {
				t.Fatalf("actions %q, want %q", got, s.want)
			}
			for port, want := range map[int]string{pa: s.a, pb: s.b} {
				if got := answer(port); got != want {
					t.Fatalf("port %d answers %q, want %q", port, got, want)
				}
			}
		})
	}
	t.Run("a unit of no group, started by hand, is left alone", func(t *testing.T) {
		sup.Sync(ctx, "g", nil, supervisor.SyncOptions{})
		if st := sup.Units(); len(st) != 1 || st[0].Name != "by hand" {
			t.Fatalf("units %+v", st)
		}
	})
}

func TestSyncDoesNotRetryAVersionThatFailed(t *testing.T) {
	sup := newSupervisor(t)
	ctx := context.Background()
	port := runtimetest.FreePort(t)
	good := declared(t, "a", port, "one")
	broken := runtime.Unit{Name: "a", Config: load(t, strings.Replace(answering(port, "two"), `'"two"'`, `'"two" +'`, 1)), Version: "two"}
	sup.Sync(ctx, "g", []runtime.Unit{good}, supervisor.SyncOptions{})

	out := sup.Sync(ctx, "g", []runtime.Unit{broken}, supervisor.SyncOptions{})
	var ds config.Diags
	if out[0].Action != supervisor.Failed || !errors.As(out[0].Err, &ds) || !out[0].Serving || out[0].Service == nil {
		t.Fatalf("a broken version: %+v", out[0])
	}
	if got := answer(port); got != `"one"` {
		t.Fatalf("the running build stopped answering: %q", got)
	}
	t.Run("the same version again is kept, with why it failed", func(t *testing.T) {
		out := sup.Sync(ctx, "g", []runtime.Unit{broken}, supervisor.SyncOptions{})
		if out[0].Action != supervisor.Kept || out[0].Err == nil || !out[0].Serving {
			t.Fatalf("%+v", out[0])
		}
		if st := sup.Units(); st[0].Builds != 1 {
			t.Fatalf("it was built again: %+v", st)
		}
	})
	t.Run("Retry tries it again", func(t *testing.T) {
		out := sup.Sync(ctx, "g", []runtime.Unit{broken}, supervisor.SyncOptions{Retry: []string{"a"}})
		if out[0].Action != supervisor.Failed {
			t.Fatalf("%+v", out[0])
		}
	})
	t.Run("a new version is tried", func(t *testing.T) {
		out := sup.Sync(ctx, "g", []runtime.Unit{declared(t, "a", port, "three")}, supervisor.SyncOptions{})
		if out[0].Action != supervisor.Replaced || out[0].Err != nil || answer(port) != `"three"` {
			t.Fatalf("%+v", out[0])
		}
	})
}

func TestSyncAfterCloseStartsNothing(t *testing.T) {
	sup := newSupervisor(t)
	if err := sup.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := sup.Sync(context.Background(), "g", []runtime.Unit{declared(t, "a", 0, "one")}, supervisor.SyncOptions{})
	if out[0].Action != supervisor.Failed || !errors.Is(out[0].Err, supervisor.ErrClosed) || len(sup.Units()) != 0 {
		t.Fatalf("%+v, units %+v", out[0], sup.Units())
	}
}

// client opens a connection per request, so a stopped unit's port answers nothing.
var client = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

// answer is what GET /v answers on port, "" when nothing does.
func answer(port int) string {
	resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/v", port))
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
